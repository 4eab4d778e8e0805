/*
 * Allocation budget check (run by scripts/check-allocations.sh, which states the budgets).
 *
 * Linked with alloc_counter.c, this executable defines malloc, calloc, realloc, free,
 * memalign, posix_memalign and aligned_alloc. An executable's definitions take precedence over libc's for the whole
 * process, so every allocation made by libvow.so, libswiftCore, Dispatch and the Swift
 * library built from swift_links.swift passes through here and is counted; each call is
 * forwarded to glibc's __libc_* entry points, so memory behaves exactly as without it.
 *
 * Usage: alloc_check SWIFT_BUDGET SWIFT_RESOLVED_BUDGET C_BUDGET C_ADOPT_BUDGET [LINKS]
 * Budgets are allocations per link (decimals allowed). Exit status 0 when every figure is
 * within its budget, 1 otherwise (or when a chain gives a wrong result).
 */
#include "vow.h"
#include "alloc_counter.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the counting allocator: alloc_counter.c ---------------------------------------- */

static long counted(void) { return alloc_counter_total(); }

/* ---- the chains ------------------------------------------------------------------- */

/* From swift_links.swift. */
extern long vow_alloc_swift_links(long n, int mode);

/* The C interface is referenced weakly so a libvow without it fails with a message. */
#pragma weak vow_then
#pragma weak vow_promise_fulfilled
#pragma weak vow_promise_pending
#pragma weak vow_promise_release
#pragma weak vow_resolver_fulfill
#pragma weak vow_resolver_release
#pragma weak vow_value_int
#pragma weak vow_value_release
#pragma weak vow_value_get_int
#pragma weak vow_error_release
#pragma weak vow_result_return
#pragma weak vow_result_adopt
#pragma weak vow_wait

static int c_interface_present(void) {
    return vow_then && vow_promise_fulfilled && vow_promise_pending && vow_promise_release
        && vow_resolver_fulfill && vow_resolver_release && vow_value_int && vow_value_release
        && vow_value_get_int && vow_error_release && vow_result_return && vow_result_adopt && vow_wait;
}

/* The trivial link: passes the value on. */
static void pass_through(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    vow_result_return(out, value);
}

/* A step that returns the next call's promise: here one already fulfilled with the value
 * (the link adopts it: vow_result_adopt makes no PROMISE value around it). */
static void adopt_fulfilled(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    vow_result_adopt(out, vow_promise_fulfilled(value));
}

/*
 * n vow_then links on the default dispatcher, waited for. mode 0: the head is fulfilled
 * first (the brief's case); 1: the chain is built on a pending head, which is fulfilled
 * afterwards; 2: as 0, each link's callback returning a promise to adopt. Returns the end
 * value (42) or -1.
 */
static long c_links(long n, int mode) {
    int pending_head = mode == 1;
    vow_on_value step = mode == 2 ? adopt_fulfilled : pass_through;
    vow_value *v = vow_value_int(42);
    vow_resolver *r = NULL;
    vow_promise *head = pending_head ? vow_promise_pending(&r) : vow_promise_fulfilled(v);
    vow_promise *p = head;
    vow_promise *first = head;
    for (long i = 0; i < n; i++) {
        vow_promise *q = vow_then(p, step, NULL, NULL, NULL);
        if (p != first) vow_promise_release(p);
        p = q;
    }
    if (pending_head) {
        vow_resolver_fulfill(r, v);
        vow_resolver_release(r);
    }
    vow_value *out = NULL;
    vow_error *error = NULL;
    long result = -1;
    if (vow_wait(p, 30, &out, &error) == VOW_FULFILLED) {
        int64_t i = 0;
        if (vow_value_get_int(out, &i) == VOW_OK) result = (long)i;
    }
    vow_value_release(out);
    vow_error_release(error);
    vow_promise_release(p);
    vow_promise_release(first);
    vow_value_release(v);
    return result;
}

/* ---- measuring -------------------------------------------------------------------- */

static int passed, failures;

/*
 * Runs a warm-up chain (runtime caches, queue arrays), then counts the allocations of a
 * chain of n links and of one of 2n links: the difference divided by n is the cost of a
 * link, free of the fixed cost of the head and the wait. It is rounded to two decimals
 * before being compared with the budget. expected -2 means "the chain's length" (a Swift
 * chain adds 1 per link).
 */
static void check(const char *what, double budget, long n, long expected, long (*chain)(long n, int arg), int arg) {
    (void)chain(n / 10, arg);
    long before = counted();
    long result1 = chain(n, arg);
    long middle = counted();
    long result2 = chain(2 * n, arg);
    long used = (counted() - middle) - (middle - before);
    double per_link = (double)used / (double)n;
    double rounded = (double)(long)(per_link * 100 + 0.5) / 100;
    int within = rounded <= budget;
    int right = result1 == (expected == -2 ? n : expected) && result2 == (expected == -2 ? 2 * n : expected);
    printf("%-50s %5.2f allocations/link (budget %.2f) %s\n", what, per_link, budget,
           !right ? "WRONG RESULT" : within ? "ok" : "OVER BUDGET");
    if (!right) printf("    chains ended with %ld and %ld\n", result1, result2);
    if (!within || !right) failures++; else passed++;
}

static long swift_chain(long n, int mode) { return vow_alloc_swift_links(n, mode); }

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s SWIFT_BUDGET SWIFT_RESOLVED_BUDGET C_BUDGET C_ADOPT_BUDGET [LINKS]\n", argv[0]);
        return 2;
    }
    double swift_budget = atof(argv[1]);
    double swift_resolved_budget = atof(argv[2]);
    double c_budget = atof(argv[3]);
    double c_adopt_budget = atof(argv[4]);
    long n = argc > 5 ? atol(argv[5]) : 10000;

    check("Swift then, pending head, .default", swift_budget, n, -2, swift_chain, 1);
    check("Swift then, fulfilled head, .inline", swift_budget, n, -2, swift_chain, 2);
    check("Swift then, fulfilled head, .default", swift_resolved_budget, n, -2, swift_chain, 0);
    if (c_interface_present()) {
        check("C vow_then, fulfilled head, default dispatcher", c_budget, n, 42, c_links, 0);
        check("C vow_then, pending head, default dispatcher", c_budget, n, 42, c_links, 1);
        check("C vow_then, each step adopting (vow_result_adopt)", c_adopt_budget, n, 42, c_links, 2);
    } else {
        printf("C vow_then: libvow.so has no C interface (vow_then missing)\n");
        failures++;
    }
    printf("allocations: %d passed, %d failed\n", passed, failures);
    return failures == 0 ? 0 : 1;
}
