/* vow_version and vow_version_number (vow.h, "Versioning"), made from the header's
   VOW_VERSION_MAJOR / _MINOR / _PATCH, the one place the version is written (the release
   scripts read the same macros for vow.pc, the CMake package and the Debian packages). */
#include "vow.h"

#define VOW_STRING_(x) #x
#define VOW_STRING(x) VOW_STRING_(x)

int vow_version_number(void) {
    return VOW_VERSION_NUMBER;
}

const char *VOW_NULLABLE vow_version(void) {
    return VOW_STRING(VOW_VERSION_MAJOR) "." VOW_STRING(VOW_VERSION_MINOR) "." VOW_STRING(VOW_VERSION_PATCH);
}
