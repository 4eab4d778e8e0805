/* Process-wide live and peak heap bytes (see alloc_bytes.h). Used by the loop check
   (Tests/Alloc/loop_bytes.c, run by scripts/check-allocations.sh). */
#define _GNU_SOURCE
#include "alloc_bytes.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *p);

static atomic_long live, peak, calls;

long alloc_bytes_live(void) { return atomic_load_explicit(&live, memory_order_relaxed); }
long alloc_bytes_peak(void) { return atomic_load_explicit(&peak, memory_order_relaxed); }
long alloc_bytes_calls(void) { return atomic_load_explicit(&calls, memory_order_relaxed); }
void alloc_bytes_reset_peak(void) { atomic_store(&peak, alloc_bytes_live()); }

/* Counts a new block p (NULL: nothing). */
static void *added(void *p) {
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    if (p == NULL) return p;
    long now = atomic_fetch_add_explicit(&live, (long)malloc_usable_size(p), memory_order_relaxed)
        + (long)malloc_usable_size(p);
    long high = atomic_load_explicit(&peak, memory_order_relaxed);
    while (now > high && !atomic_compare_exchange_weak_explicit(&peak, &high, now, memory_order_relaxed,
                                                               memory_order_relaxed)) {
    }
    return p;
}

/* Uncounts the block p before it is freed or moved. */
static void removed(void *p) {
    if (p != NULL) atomic_fetch_sub_explicit(&live, (long)malloc_usable_size(p), memory_order_relaxed);
}

void *malloc(size_t size) { return added(__libc_malloc(size)); }

void *calloc(size_t n, size_t size) { return added(__libc_calloc(n, size)); }

void *realloc(void *p, size_t size) {
    long before = p ? (long)malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, size);
    if (q == NULL && size != 0) return NULL; /* p untouched */
    atomic_fetch_sub_explicit(&live, before, memory_order_relaxed);
    return added(q);
}

void free(void *p) {
    removed(p);
    __libc_free(p);
}

void *memalign(size_t alignment, size_t size) { return added(__libc_memalign(alignment, size)); }

void *aligned_alloc(size_t alignment, size_t size) { return added(__libc_memalign(alignment, size)); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = added(__libc_memalign(alignment, size));
    if (!p && size) return ENOMEM;
    *out = p;
    return 0;
}
