/*
 * Memory budget of a pending promise with one handler (run by
 * scripts/check-allocations.sh, which states the budgets).
 *
 * Swift (swift_pending.swift): Promise<Int>.pending() and one `then` on the default
 * dispatcher, the resolver and the derived promise kept. C: vow_promise_pending and one
 * vow_then on the default dispatcher, the resolver and the derived promise kept. Linked with
 * alloc_bytes.c, which interposes malloc for the whole process: the bytes in use grow by
 * exactly what the promises hold (each block at malloc_usable_size), so the figure is exact
 * and does not depend on the machine's load. The arrays that keep them are reserved before
 * the measured run.
 *
 * Usage: pending_bytes COUNT SWIFT_BUDGET_BYTES C_BUDGET_BYTES (per pending promise)
 * Exit status 0 when both are within budget and every handler ran afterwards, 1 otherwise.
 */
#include "vow.h"
#include "alloc_bytes.h"

#include <stdio.h>
#include <stdlib.h>

/* From swift_pending.swift. */
extern void vow_alloc_swift_pending_prepare(long n);
extern void vow_alloc_swift_pending_make(long n);
extern long vow_alloc_swift_pending_finish(void);

static void add_one(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    int64_t i = 0;
    vow_value_get_int(value, &i);
    vow_value *next = vow_value_int(i + 1);
    vow_result_return(out, next);
    vow_value_release(next);
}

/* Returns until the default queue has run every job submitted before and let go of it: a
 * link queued now runs in a later batch than all of them, and the queue frees a batch
 * before it takes the next. Without it, the links of the run before (and their values)
 * could be freed by the queue's thread while the next run is measured. */
static void drain_default_queue(void) {
    vow_value *zero = vow_value_int(0);
    vow_promise *settled = vow_promise_fulfilled(zero);
    vow_promise *barrier = vow_then(settled, add_one, NULL, NULL, NULL);
    vow_value *got = NULL;
    vow_wait(barrier, 60, &got, NULL);
    vow_value_release(got);
    vow_promise_release(barrier);
    vow_promise_release(settled);
    vow_value_release(zero);
}

static vow_resolver **c_resolvers;
static vow_promise **c_derived;

static void c_prepare(long n) {
    c_resolvers = calloc((size_t)n, sizeof *c_resolvers);
    c_derived = calloc((size_t)n, sizeof *c_derived);
}

static void c_make(long n) {
    for (long i = 0; i < n; i++) {
        vow_promise *p = vow_promise_pending(&c_resolvers[i]);
        c_derived[i] = vow_then(p, add_one, NULL, NULL, NULL);
        vow_promise_release(p);
    }
}

static long c_finish(long n) {
    for (long i = 0; i < n; i++) {
        vow_value *v = vow_value_int(i);
        vow_resolver_fulfill(c_resolvers[i], v);
        vow_value_release(v);
        vow_resolver_release(c_resolvers[i]);
    }
    vow_value *got = NULL;
    long result = -1;
    if (vow_wait(c_derived[n - 1], 60, &got, NULL) == VOW_FULFILLED) {
        int64_t last = -1;
        if (vow_value_get_int(got, &last) == VOW_OK && last == n) result = n;
    }
    vow_value_release(got);
    for (long i = 0; i < n; i++) vow_promise_release(c_derived[i]);
    free(c_resolvers);
    free(c_derived);
    return result;
}

static int failures;

static void report(const char *what, long n, long grown, long result, double budget) {
    double each = (double)grown / (double)n;
    int within = each <= budget;
    printf("%-52s %7ld made: +%9ld bytes, %7.2f bytes each (budget %g) %s\n", what, n, grown, each, budget,
           result != n ? "HANDLERS DID NOT RUN" : within ? "ok" : "OVER BUDGET");
    if (result != n || !within) failures++;
}

static void swift_run(long n, double budget, int measured) {
    vow_alloc_swift_pending_prepare(n);
    long before = alloc_bytes_live();
    vow_alloc_swift_pending_make(n);
    long grown = alloc_bytes_live() - before;
    long result = vow_alloc_swift_pending_finish();
    drain_default_queue();
    if (measured) report("Swift: pending() + then, default dispatcher", n, grown, result, budget);
}

static void c_run(long n, double budget, int measured) {
    c_prepare(n);
    long before = alloc_bytes_live();
    c_make(n);
    long grown = alloc_bytes_live() - before;
    long result = c_finish(n);
    drain_default_queue();
    if (measured) report("C: vow_promise_pending + vow_then, default", n, grown, result, budget);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s COUNT SWIFT_BUDGET_BYTES C_BUDGET_BYTES\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    double swift_budget = atof(argv[2]);
    double c_budget = atof(argv[3]);
    if (n < 1) return 2;
    /* Warm-ups: the library's one-time allocations (queues, caches) are not per promise. */
    swift_run(n / 10 + 1, swift_budget, 0);
    c_run(n / 10 + 1, c_budget, 0);
    swift_run(n, swift_budget, 1);
    c_run(n, c_budget, 1);
    printf("pending memory: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
