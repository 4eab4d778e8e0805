/* The retain and release entry points of the counted handles (vow.h: vow_promise_retain,
   vow_promise_release, vow_value_retain, ...), made by the preprocessor from one table:
   each is one call of the Swift function that checks the handle and counts the reference
   (see vow_counted_handles.h). */
/* The library's own names (vow_face_names.h), hidden: only the engine's table refers to
   them, by distance (engine_entries.c), which a preemptible symbol would not allow. */
#define VOW_EXTERN extern __attribute__((visibility("hidden")))
#include "vow_face_names.h"
#include "vow.h"
#include "vow_counted_handles.h"

#if defined(__clang__)
#  pragma clang diagnostic ignored "-Wnullability-extension"
#endif

/* X(type, const, kind): the handle type vow_TYPE, whether its retain and release take it
   const (values and errors are immutable; a promise is not), and its kind. */
#define VOW_COUNTED_HANDLES(X)                     \
    X(promise, /* mutable */, VOW_COUNTED_PROMISE) \
    X(value, const, VOW_COUNTED_VALUE)             \
    X(error, const, VOW_COUNTED_ERROR)

#define VOW_DEFINE_RETAIN_RELEASE_(type, qualifier, kind)                            \
    vow_##type *VOW_NULLABLE vow_##type##_retain(qualifier vow_##type *VOW_NULLABLE h) \
    {                                                                                \
        return (vow_##type *)vowface_counted_retain((void *)h, kind);                    \
    }                                                                                \
    void vow_##type##_release(qualifier vow_##type *VOW_NULLABLE h)                  \
    {                                                                                \
        vowface_counted_release((void *)h, kind);                                        \
    }

VOW_COUNTED_HANDLES(VOW_DEFINE_RETAIN_RELEASE_)
