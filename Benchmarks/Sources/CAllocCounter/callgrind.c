/* Callgrind client requests for the benchmarks (see include/alloc_counter.h); the
   allocation counter itself is alloc_counter.c, a link to Tests/Alloc/alloc_counter.c. */
#include "alloc_counter.h"

/* ---- callgrind client requests (no-ops outside valgrind) ------------------------------ */

#if defined(__has_include)
#  if __has_include(<valgrind/callgrind.h>)
#    include <valgrind/callgrind.h>
#    define BENCH_HAVE_CALLGRIND 1
#  endif
#endif

int bench_on_valgrind(void) {
#ifdef BENCH_HAVE_CALLGRIND
    return RUNNING_ON_VALGRIND ? 1 : 0;
#else
    return 0;
#endif
}

void bench_callgrind_zero(void) {
#ifdef BENCH_HAVE_CALLGRIND
    CALLGRIND_ZERO_STATS;
#endif
}

void bench_callgrind_dump(void) {
#ifdef BENCH_HAVE_CALLGRIND
    CALLGRIND_DUMP_STATS;
#endif
}
