/*
 * wordcount.h: the C face of the Swift component in wordcount.swift.
 *
 * The component is a Swift library (libwordcount.so) built against the same libvow.so
 * as the C program, so there is one promise engine in the process and a vow_promise
 * passes between C and Swift as it is. Its functions follow vow.h's rules: a returned
 * handle is +1, everything passed in is borrowed, every function may be called from
 * any thread.
 */
#ifndef WORDCOUNT_H
#define WORDCOUNT_H

#include <stdint.h>
#include <vow.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Counts the lines, words and bytes of every regular file under a directory (sub-
 * directories included, hidden entries skipped), one job per file on Vow's background
 * pool.
 *
 * directory        a promise of the directory's path, a STRING (borrowed). The work
 *                  starts when it fulfils, so a request can be made before its input
 *                  is known.
 * timeout_seconds  the request rejects with VOW_ERROR_TIMEOUT (domain "vow") when it
 *                  takes longer; files not started yet are then never read.
 *
 * Returns a promise (+1) that fulfils with a LIST of four INTs: files, lines, words,
 * bytes. It rejects with the directory promise's error, with VOW_ERROR_TIMEOUT, or with
 * the component's Swift error (domain "WordCountError") when a directory or file cannot
 * be read. vow_cancel on it stops the files not started yet and, once nothing else waits
 * on it, cancels the directory promise too. NULL directory returns NULL.
 */
vow_promise *wc_count(vow_promise *directory, double timeout_seconds);

/* Files counted so far by every request in this process: a progress count. */
int64_t wc_files_counted(void);

#ifdef __cplusplus
}
#endif

#endif /* WORDCOUNT_H */
