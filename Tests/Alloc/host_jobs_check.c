/*
 * Host-loop job allocation check (run by scripts/check-allocations.sh, which states the
 * budget): what one job on a host's loop (vow_dispatcher_new) costs the heap, counted by
 * alloc_counter.c (every allocation of the process).
 *
 * The loop: a fixed ring of (run, job) pairs drained on the calling thread; it never
 * allocates, so every allocation counted while it drains is the library's. Each figure is
 * the difference between n and 2n jobs, divided by n (the fixed cost drops out), after a
 * warm-up of a tenth.
 *
 *   links, drained       a chain of vow_then_on(d) links on a pending head, built first
 *                        (the links' own allocations are not counted), then the head is
 *                        fulfilled and the loop drained: each link is one job, and the
 *                        drain counts what submitting and running the jobs allocate.
 *                        Checked against BUDGET (0: a link travels to the host as itself).
 *   vow_dispatch          n vow_dispatch(d) calls made, then the loop drained: each call
 *                        submits its job at once, so the figure is every allocation per
 *                        call but the one object the call makes for its promise (its
 *                        link): checked against BUDGET too.
 *   links, built and drained  the whole chain per link, for reference: the link itself (1).
 *   libuv (Bridges/uv), drained  the links' drain on vow_uv_dispatcher_new's loop
 *                        (uv_run), when this program was built with the bridge
 *                        (-DVOW_ALLOC_UV): the same budget.
 *
 * Usage: host_jobs_check BUDGET [JOBS]
 */
#define _POSIX_C_SOURCE 200809L /* libuv's headers need pthread_rwlock_t */
#include "vow.h"
#include "alloc_counter.h"
#ifdef VOW_ALLOC_UV
#include "vow_uv.h"
#endif

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the host's loop: a fixed ring, drained on this thread ----------------------------- */

#define RING (1 << 16)

static vow_job ring_run[RING];
static void *ring_job[RING];
static size_t ring_head, ring_count;

static void submit(void *ctx, vow_job run, void *job) {
    (void)ctx;
    if (ring_count == RING) abort(); /* never here: one job of a chain is queued at a time */
    size_t at = (ring_head + ring_count) % RING;
    ring_run[at] = run;
    ring_job[at] = job;
    ring_count++;
}

static long drain(void) {
    long ran = 0;
    while (ring_count > 0) {
        vow_job run = ring_run[ring_head];
        void *job = ring_job[ring_head];
        ring_head = (ring_head + 1) % RING;
        ring_count--;
        run(job);
        ran++;
    }
    return ran;
}

/* ---- the work --------------------------------------------------------------------- */

static void pass_through(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    vow_result_return(out, value);
}

static void count_call(void *ctx, const vow_value *value, vow_result *out) {
    (void)value;
    (void)out;
    (*(long *)ctx)++;
}

/* What a chain of n links ends with (42: right; -1: wrong), and the allocations counted while
   it was drained (*drained) and in all (*all). run_loop drains d's loop and returns how many
   jobs it ran (-1: it does not count them). */
static long chain(vow_dispatcher *d, long (*run_loop)(void), long n, long *drained, long *all) {
    long start = alloc_counter_total();
    vow_value *v = vow_value_int(42);
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    vow_promise *p = vow_promise_retain(head);
    for (long i = 0; i < n; i++) {
        vow_promise *q = vow_then_on(d, p, pass_through, NULL, NULL, NULL);
        vow_promise_release(p);
        p = q;
    }
    long built = alloc_counter_total();
    vow_resolver_fulfill(r, v);
    long ran = run_loop();
    *drained = alloc_counter_total() - built;
    int64_t got = -1;
    vow_value *end = NULL;
    long result = vow_wait(p, 0, &end, NULL) == VOW_FULFILLED && vow_value_get_int(end, &got) == VOW_OK
        && got == 42 && (ran < 0 || ran == n) ? 42 : -1;
    vow_value_release(end);
    vow_promise_release(p);
    vow_promise_release(head);
    vow_resolver_release(r);
    vow_value_release(v);
    *all = alloc_counter_total() - start;
    return result;
}

/* n vow_dispatch(d) jobs made, then drained: 0 right, -1 wrong; *drained as above. */
static long dispatches(vow_dispatcher *d, long (*run_loop)(void), long n, long *drained, long *all) {
    long start = alloc_counter_total();
    long calls = 0;
    vow_promise **ps = malloc((size_t)n * sizeof *ps);
    if (!ps) return -1;
    for (long i = 0; i < n; i++) ps[i] = vow_dispatch(d, count_call, &calls, NULL);
    long made = alloc_counter_total();
    long ran = run_loop();
    *drained = alloc_counter_total() - made;
    long result = calls == n && (ran < 0 || ran == n) ? 0 : -1;
    for (long i = 0; i < n; i++) {
        if (vow_wait(ps[i], 0, NULL, NULL) != VOW_FULFILLED) result = -1;
        vow_promise_release(ps[i]);
    }
    free(ps);
    *all = alloc_counter_total() - start;
    return result;
}

typedef long (*workload)(vow_dispatcher *, long (*)(void), long, long *, long *);

/* Allocations per job: drained (*per_drained) and in all (*per_all); false on a wrong result. */
static bool per_job(workload w, long expected, vow_dispatcher *d, long (*run_loop)(void), long n,
                    double *per_drained, double *per_all) {
    long d1, a1, d2, a2;
    if (w(d, run_loop, n / 10, &d1, &a1) != expected) return false; /* warm-up */
    if (w(d, run_loop, n, &d1, &a1) != expected) return false;
    if (w(d, run_loop, 2 * n, &d2, &a2) != expected) return false;
    *per_drained = (double)(d2 - d1) / (double)n;
    *per_all = (double)(a2 - a1) / (double)n;
    return true;
}

/* ---- libuv ------------------------------------------------------------------------ */

#ifdef VOW_ALLOC_UV
static uv_loop_t uv_loop;
static long uv_drain(void) {
    uv_run(&uv_loop, UV_RUN_DEFAULT); /* returns once no job is queued */
    return -1;                        /* jobs not counted: the end value is checked */
}
#endif

/* ---- checking --------------------------------------------------------------------- */

static int passed, failures;

static double rounded(double x) { return (double)(long)(x * 100 + (x < 0 ? -0.5 : 0.5)) / 100; }

static void check(const char *what, double budget, bool right, double figure) {
    if (!right) {
        printf("%-56s WRONG RESULT\n", what);
        failures++;
        return;
    }
    if (isnan(budget)) {
        printf("%-56s %5.2f allocations/job (reference)\n", what, rounded(figure));
        return;
    }
    bool within = rounded(figure) <= budget;
    printf("%-56s %5.2f allocations/job (budget %.2f) %s\n", what, rounded(figure), budget,
           within ? "ok" : "OVER BUDGET");
    if (within) passed++; else failures++;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BUDGET [JOBS]\n", argv[0]);
        return 2;
    }
    double budget = atof(argv[1]);
    long n = argc > 2 ? atol(argv[2]) : 10000;
    if (n < 10 || 2 * n > RING) {
        fprintf(stderr, "host_jobs_check: JOBS must be between 10 and %d\n", RING / 2);
        return 2;
    }

    vow_dispatcher *d = vow_dispatcher_new(submit, NULL, NULL);
    double drained = 0, all = 0;
    bool right = per_job(chain, 42, d, drain, n, &drained, &all);
    check("C host loop: vow_then_on links, drained", budget, right, drained);
    check("C host loop: vow_then_on links, built and drained", NAN, right, all);
    right = per_job(dispatches, 0, d, drain, n, &drained, &all);
    check("C host loop: vow_dispatch jobs, beyond the call's link", budget, right, all - 1);
    check("C host loop: vow_dispatch jobs, made and drained", NAN, right, all);
    vow_dispatcher_release(d);

#ifdef VOW_ALLOC_UV
    if (uv_loop_init(&uv_loop) != 0) return 2;
    vow_dispatcher *uv = vow_uv_dispatcher_new(&uv_loop);
    right = uv && per_job(chain, 42, uv, uv_drain, n, &drained, &all);
    check("libuv (Bridges/uv): vow_then_on links, drained", budget, right, drained);
    vow_uv_dispatcher_close(uv);
    vow_dispatcher_release(uv);
    uv_run(&uv_loop, UV_RUN_DEFAULT);
    uv_loop_close(&uv_loop);
#endif

    printf("host-loop job allocations: %d passed, %d failed\n", passed, failures);
    return failures == 0 ? 0 : 1;
}
