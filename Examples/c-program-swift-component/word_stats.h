/*
 * word_stats.h: the C face of the Swift component (Sources/WordStats/WordStats.swift).
 *
 * The component links the same libvow.so as the program (one engine in the process), so
 * a vow_promise passes between C and Swift as it is. It follows vow.h's rules: the
 * returned handle is +1, the argument is borrowed, any thread may call it.
 */
#ifndef WORD_STATS_H
#define WORD_STATS_H

#include <vow.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A promise (+1) of the number of words in `text`, a promise of a STRING (borrowed),
   counted on Vow's background pool once `text` fulfils. Rejects with `text`'s error, or
   with a VowError when `text` fulfils with something else than a STRING. NULL text (or
   a handle the component cannot use) returns NULL. */
vow_promise *word_stats_count(vow_promise *text);

#ifdef __cplusplus
}
#endif

#endif
