/*
 * textstats.h: the C face of the Swift step in textstats.swift.
 *
 * Built as libtextstats.so against the same libvow.so as the C program (one promise engine
 * in the process). vow.h's rules hold: the returned handle is +1, the argument is borrowed,
 * any thread may call it.
 */
#ifndef TEXTSTATS_H
#define TEXTSTATS_H

#include <vow.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * text: a promise of BYTES (UTF-8 text). Returns a promise (+1) of a LIST of three values:
 * the number of lines (INT), of words (INT) and the longest word (STRING). The counting runs
 * on Vow's background pool once text fulfils; a rejection of text passes through. NULL text
 * returns NULL.
 */
vow_promise *text_stats(vow_promise *text);

#ifdef __cplusplus
}
#endif

#endif /* TEXTSTATS_H */
