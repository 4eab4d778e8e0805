/*
 * Live and peak heap bytes of the whole process. alloc_bytes.c defines malloc, calloc,
 * realloc, free, posix_memalign, aligned_alloc and memalign, like alloc_counter.c, and
 * keeps, besides the count of allocating calls, the bytes in use (each block counted at
 * malloc_usable_size, what it really takes from the heap but for glibc's header word) and
 * the highest figure they reached since alloc_bytes_reset_peak. An executable links one of
 * the two interposers, not both.
 */
#ifndef VOW_TESTS_ALLOC_BYTES_H
#define VOW_TESTS_ALLOC_BYTES_H

/** Bytes in use now. */
long alloc_bytes_live(void);

/** The highest alloc_bytes_live since the last reset. */
long alloc_bytes_peak(void);

/** Starts a new peak from the bytes in use now. */
void alloc_bytes_reset_peak(void);

/** Allocating calls so far. */
long alloc_bytes_calls(void);

#endif
