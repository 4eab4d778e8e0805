/* The C half of Examples/nio's OneEngine program: C code on vow.h that shares promises with
   the program's Swift code (one engine: see ARCHITECTURE.md, "One engine whatever the
   products"). */
#ifndef ONE_ENGINE_C_H
#define ONE_ENGINE_C_H

#include <vow.h>

/* A promise (+1) of p's integer value squared, by a C callback; p is borrowed. */
vow_promise *one_engine_square(vow_promise *p);

/* A promise (+1) of the integer n, made in C. */
vow_promise *one_engine_number(int64_t n);

/* vow_after(seconds): a C timer, on the clock of the calling thread's default dispatcher. */
vow_promise *one_engine_after(double seconds);

/* Makes a promise in C, rejects it and lets go of it unhandled. */
void one_engine_drop_a_rejection(void);

/* The default dispatcher as C sees it (borrowed). */
vow_dispatcher *one_engine_default_dispatcher(void);

#endif
