/*
 * Counts the heap allocations of the whole process. alloc_counter.c defines malloc, calloc,
 * realloc, free, posix_memalign, aligned_alloc and memalign; an executable that links it
 * interposes glibc's for every library (libswiftCore and libvow included) and forwards to
 * glibc's __libc_* entry points, so memory is managed exactly as without it.
 */
#ifndef VOW_TESTS_ALLOC_COUNTER_H
#define VOW_TESTS_ALLOC_COUNTER_H

/** Allocating calls so far: malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign. */
long alloc_counter_total(void);

#endif
