/* The C entry points of every function that returns a promise it made, made by the
   preprocessor from the table VOW_PROMISE_MAKERS (vow.h, "Debug mode"): NAME, its debug
   twin NAME_site, and for Vow 0.2's rows (X_0_2) the deprecated NAME_at, which has the
   parameters of NAME_site. Each is one call of the row's Swift implementation NAME_impl
   (vow_promise_makers.h) with the caller's site: none from NAME (recorded as "C"), the
   file and line it was given from the twins. */
#include "vow.h"
#include "vow_promise_makers.h"

#include <stddef.h>

#if defined(__clang__)
#  pragma clang diagnostic ignored "-Wnullability-extension"
#endif

/* The definitions take each parameter's nullability from vow.h's declaration of the
   function (some plain functions declare a pointer VOW_NONNULL; the table writes every
   pointer VOW_NULLABLE). */
#undef VOW_NULLABLE
#define VOW_NULLABLE

#define VOW_DEFINE_ENTRY_POINTS_(name, parameters, arguments)                                  \
    vow_promise *name(VOW_SITE_UNPAREN_ parameters)                                           \
    {                                                                                        \
        return name##_impl(VOW_SITE_UNPAREN_ arguments, (vow_call_site){NULL, 0});             \
    }                                                                                        \
    vow_promise *name##_site(const char *file, int line, VOW_SITE_UNPAREN_ parameters)        \
    {                                                                                        \
        return name##_impl(VOW_SITE_UNPAREN_ arguments, (vow_call_site){file, line});          \
    }

#define VOW_DEFINE_ENTRY_POINTS_0_2_(name, parameters, arguments)                              \
    VOW_DEFINE_ENTRY_POINTS_(name, parameters, arguments)                                     \
    vow_promise *name##_at(const char *file, int line, VOW_SITE_UNPAREN_ parameters)          \
    {                                                                                        \
        return name##_impl(VOW_SITE_UNPAREN_ arguments, (vow_call_site){file, line});          \
    }

VOW_PROMISE_MAKERS(VOW_DEFINE_ENTRY_POINTS_, VOW_DEFINE_ENTRY_POINTS_0_2_)
