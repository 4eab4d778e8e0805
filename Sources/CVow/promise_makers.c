/* Vow 0.2's deprecated _at names (vow.h, "Debug mode"), made by the preprocessor from the
   X_0_2 rows of the table VOW_PROMISE_MAKERS: each calls its NAME_site, which has the same
   parameters (a jump). The functions NAME and NAME_site are Swift, in
   Sources/Vow/C/CPromiseMakers.swift (made by scripts/generate-promise-makers.sh). */
/* The library's own names (vow_face_names.h), hidden: only the engine's table refers to
   them, by distance (engine_entries.c), which a preemptible symbol would not allow. */
#define VOW_EXTERN extern __attribute__((visibility("hidden")))
#include "vow_face_names.h"
#include "vow.h"

#if defined(__clang__)
#  pragma clang diagnostic ignored "-Wnullability-extension"
#endif

#define VOW_DEFINE_AT_NAME_(name, parameters, arguments)                                                   \
    vow_promise *VOW_NULLABLE name##_at(const char *VOW_NULLABLE file, int line, VOW_SITE_UNPAREN_ parameters) \
    {                                                                                                       \
        return name##_site(file, line, VOW_SITE_UNPAREN_ arguments);                                        \
    }

VOW_PROMISE_MAKERS(VOW_NO_AT_NAME_, VOW_DEFINE_AT_NAME_)
