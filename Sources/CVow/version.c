/* vow_version and vow_version_number (vow.h, "Versioning"), made from the header's
   VOW_VERSION_MAJOR / _MINOR / _PATCH, the one place the version is written (the release
   scripts read the same macros for vow.pc, the CMake package and the Debian packages).
   Defined under the library's own names (vow_face_names.h: vowface_version, ...), hidden:
   the public vow_version is an entry point that reaches them through the engine's table,
   by distance, which a preemptible symbol would not allow. */
#define VOW_EXTERN extern __attribute__((visibility("hidden")))
#include "vow_face_names.h"
#include "vow.h"

#define VOW_STRING_(x) #x
#define VOW_STRING(x) VOW_STRING_(x)

int vow_version_number(void) {
    return VOW_VERSION_NUMBER;
}

const char *VOW_NULLABLE vow_version(void) {
    return VOW_STRING(VOW_VERSION_MAJOR) "." VOW_STRING(VOW_VERSION_MINOR) "." VOW_STRING(VOW_VERSION_PATCH);
}
