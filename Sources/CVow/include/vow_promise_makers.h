/*
 * vow_promise_makers.h: the Swift implementations of the functions that return a promise
 * they made. Internal to Vow, not part of vow.h (it is in the CVow module for the C face;
 * C programs never include it).
 *
 * Every row of the table VOW_PROMISE_MAKERS in vow.h has three C entry points, made by the
 * preprocessor in Sources/CVow/promise_makers.c: NAME, NAME_site (and for Vow 0.2's rows
 * the deprecated NAME_at). Each is one call of the row's implementation, declared here,
 *
 *     vow_promise *NAME_impl(<the row's parameters>, vow_call_site site)
 *
 * and written by hand in Swift, in Sources/Vow/C, as
 *
 *     @c @implementation
 *     func NAME_impl(<the parameters as Swift imports them>, _ site: vow_call_site) -> OpaquePointer?
 *
 * (the compiler checks that the Swift parameters are the row's; a row with no
 * implementation does not link, an implementation with no row does not compile).
 */
#ifndef VOW_PROMISE_MAKERS_H
#define VOW_PROMISE_MAKERS_H

/* (Installed, this header sits beside the Swift modules and vow.h comes first in the
   module map, see scripts/install.sh.) */
#if __has_include("vow.h")
#  include "vow.h"
#endif

/* Where the caller made the promise: the file and line a NAME_site twin was given, or no
   file (recorded as "C") from the plain NAME. Passed in two registers. */
typedef struct vow_call_site {
    const char *VOW_NULLABLE file;
    int line;
} vow_call_site;

#define VOW_DECLARE_IMPLEMENTATION_(name, parameters, arguments)                                   \
    __attribute__((visibility("hidden"))) vow_promise *VOW_NULLABLE name##_impl(VOW_SITE_UNPAREN_ \
                                                                                parameters,       \
                                                                            vow_call_site site);
VOW_PROMISE_MAKERS(VOW_DECLARE_IMPLEMENTATION_, VOW_DECLARE_IMPLEMENTATION_)
#undef VOW_DECLARE_IMPLEMENTATION_

#endif
