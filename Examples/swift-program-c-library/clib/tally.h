/*
 * tally.h: a small C library built on vow.h (libtally.so, linked with
 * `pkg-config --libs vow`). Its functions follow vow.h's rules: a returned handle is +1,
 * everything passed in is borrowed, any thread may call them.
 */
#ifndef TALLY_H
#define TALLY_H

#include <stddef.h>
#include <stdint.h>
#include <vow.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A promise (+1) of the sum of numbers[0..n), an INT, computed on a thread of the
   library's own (the numbers are copied before the call returns). */
vow_promise *tally_sum_later(const int64_t *numbers, size_t n);

/* A promise (+1) of a STRING that describes `number`, a promise of an INT (borrowed):
   "the tally is N". Rejects with `number`'s error. */
vow_promise *tally_describe(vow_promise *number);

#ifdef __cplusplus
}
#endif

#endif
