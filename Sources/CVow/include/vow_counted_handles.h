/*
 * vow_counted_handles.h: the retain and release of the counted handles. Internal to Vow,
 * not part of vow.h (it is in the CVow module for the C face; C programs never include
 * it).
 *
 * vow_promise_retain, vow_promise_release, vow_value_retain, vow_value_release,
 * vow_error_retain and vow_error_release are one line each: they are made by the
 * preprocessor from the table VOW_COUNTED_HANDLES in Sources/CVow/counted_handles.c, and
 * each calls one of the two functions below with its handle's kind. Those are Swift
 * (Sources/Vow/C/CCountedHandles.swift): they check the handle as every C entry point
 * does (NULL: nothing, a NULL answer; another kind, a released handle or a stray pointer:
 * the misuse line that names the C function, e.g. "vow: vow_value_retain: expected a
 * vow_value, got a vow_promise", and nothing else) and add or drop the reference.
 */
#ifndef VOW_COUNTED_HANDLES_H
#define VOW_COUNTED_HANDLES_H

/* Which counted handle an entry point takes, as its tag: the value the object behind the
   handle carries at its tag offset (the C face's HandleTag, Sources/Vow/Shared/
   HandleObject.swift; EngineUnitTests "C-handle layout" holds them equal). */
typedef enum vow_counted_kind {
    VOW_COUNTED_PROMISE = 0x6d6f7270, /* "prom" */
    VOW_COUNTED_VALUE = 0x756c6176,   /* "valu" */
    VOW_COUNTED_ERROR = 0x6f727265,   /* "erro" */
} vow_counted_kind;

/* Adds a reference to the object behind handle, a handle of kind, and returns handle;
   NULL or a wrong handle: NULL. Any thread. */
__attribute__((visibility("hidden")))
void *vowface_counted_retain(void *handle, vow_counted_kind kind);

/* Drops a reference to the object behind handle, a handle of kind (the last one frees
   it, on this thread); NULL or a wrong handle: nothing. Any thread. */
__attribute__((visibility("hidden")))
void vowface_counted_release(void *handle, vow_counted_kind kind);

#endif
