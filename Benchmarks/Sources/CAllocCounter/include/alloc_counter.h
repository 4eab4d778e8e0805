/*
 * Counts the heap allocations of the whole process. This target defines malloc, calloc,
 * realloc, free, posix_memalign, aligned_alloc and memalign; an executable that links it
 * interposes glibc's for every library (libswiftCore and libvow included) and forwards
 * to glibc's __libc_* entry points, so memory is managed exactly as without it.
 */
#ifndef ALLOC_COUNTER_H
#define ALLOC_COUNTER_H

/** Allocating calls so far: malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign. */
long alloc_counter_total(void);


/*
 * Instruction counts under callgrind (valgrind --tool=callgrind), for figures that do
 * not depend on what else the machine is doing. Outside valgrind these do nothing.
 */

/** 1 when running under valgrind. */
int bench_on_valgrind(void);

/** Zeroes callgrind's counters (every thread's). */
void bench_callgrind_zero(void);

/** Writes callgrind's counters since the last zero to the next dump file. */
void bench_callgrind_dump(void);

#endif
