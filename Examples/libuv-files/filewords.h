/*
 * filewords.h: the C face of the Swift component in filewords.swift.
 *
 * Built as libfilewords.so against the same libvow.so as the C program (one promise engine
 * in the process). vow.h's rules hold: the returned handle is +1, the argument is borrowed,
 * any thread may call it.
 */
#ifndef FILEWORDS_H
#define FILEWORDS_H

#include <vow.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * bytes: a promise of BYTES (a file's contents). Returns a promise (+1) of the number of
 * words in it (an INT), counted on Vow's background pool once bytes fulfils. Bytes that are
 * not UTF-8 reject it with the Swift error TextError.notUTF8 (in C: domain "TextError",
 * code 1, message "notUTF8"). A rejection of bytes passes through; cancelling the returned
 * promise cancels bytes (and so the read behind it). NULL bytes returns NULL.
 */
vow_promise *file_words(vow_promise *bytes);

#ifdef __cplusplus
}
#endif

#endif /* FILEWORDS_H */
