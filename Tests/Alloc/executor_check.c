/*
 * Executor allocation check (run by scripts/check-allocations.sh, which states the budget).
 *
 * Linked with alloc_counter.c (every allocation of the process is counted, see
 * alloc_check.c) and with the Swift library built from swift_executor.swift: a task on
 * Swift's global pool calls an actor n and 2n times, each call a round trip pool ->
 * the actor's executor -> pool; the difference divided by n is the cost of one round trip.
 *
 * A round trip costs the Swift runtime allocations of its own: on Linux, the hop back to
 * the pool (swift_task_enqueueGlobal from the executor's thread) takes Dispatch
 * continuations from a per-thread cache that a thread outside Dispatch's pool never
 * refills. So the first row measures that cost with an executor that allocates nothing by
 * construction (it hands each job itself to a C loop), and each other row is reported as
 * its total minus that baseline: the executor's own allocations per round trip.
 *
 *   Vow's executor, a C program's own loop (vow_dispatcher_new) checked against BUDGET
 *   Vow's executor, the library's default serial queue       checked against SERIAL_BUDGET
 *   an object per job on the same C loop (swift-nio's figure)  printed, for reference
 *
 * The C loop: one pthread draining a fixed ring of (run, job) pairs; it never allocates, so
 * its row is exactly Vow's executor. The serial queue's row also holds what Dispatch does
 * for the queue itself: when the queue ran dry between two round trips, restarting its drain
 * takes a Dispatch continuation from the submitting thread's cache, and the hop back to the
 * pool starts from one of Dispatch's threads, whose cache is often warm; so its figure moves
 * between about -0.5 and +0.5 with the machine's load, around 0.
 *
 * Usage: executor_check BUDGET SERIAL_BUDGET [ROUND_TRIPS]
 */
#include "vow.h"
#include "alloc_counter.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*loop_submit)(void *ctx, vow_job run, void *job);

/* From swift_executor.swift. */
extern long vow_alloc_executor_round_trips(long n, long mode, vow_dispatcher *d, loop_submit submit, void *ctx);

/* ---- a C loop: one thread, a fixed ring of (run, job) ------------------------------- */

#define RING 4096

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    vow_job run[RING];
    void *job[RING];
    size_t head, count;
    bool stop;
} loop;

static void submit(void *ctx, vow_job run, void *job) {
    loop *l = ctx;
    pthread_mutex_lock(&l->lock);
    if (l->count == RING) abort(); /* never in this check: one job in flight at a time */
    size_t at = (l->head + l->count) % RING;
    l->run[at] = run;
    l->job[at] = job;
    l->count++;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
}

static void *loop_main(void *arg) {
    loop *l = arg;
    pthread_mutex_lock(&l->lock);
    for (;;) {
        if (l->count > 0) {
            vow_job run = l->run[l->head];
            void *job = l->job[l->head];
            l->head = (l->head + 1) % RING;
            l->count--;
            pthread_mutex_unlock(&l->lock);
            run(job);
            pthread_mutex_lock(&l->lock);
            continue;
        }
        if (l->stop) break;
        pthread_cond_wait(&l->wake, &l->lock);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/* ---- measuring -------------------------------------------------------------------- */

static int passed, failures;
static loop the_loop;

/* Allocations per round trip (total) with the given executor; -1 on a wrong result. */
static double per_round_trip(long n, long mode, vow_dispatcher *d) {
    (void)vow_alloc_executor_round_trips(n / 10, mode, d, submit, &the_loop);
    long before = alloc_counter_total();
    long r1 = vow_alloc_executor_round_trips(n, mode, d, submit, &the_loop);
    long middle = alloc_counter_total();
    long r2 = vow_alloc_executor_round_trips(2 * n, mode, d, submit, &the_loop);
    long used = (alloc_counter_total() - middle) - (middle - before);
    if (r1 != n || r2 != 2 * n) return -1;
    return (double)used / (double)n;
}

/* A row checked against budget; NAN budget: a reference figure, printed and not checked. */
static void check(const char *what, double budget, double total, double baseline) {
    if (total < 0) {
        printf("%-58s WRONG RESULT\n", what);
        failures++;
        return;
    }
    double own = total - baseline;
    double rounded = (double)(long)(own * 100 + (own < 0 ? -0.5 : 0.5)) / 100;
    if (isnan(budget)) {
        printf("%-58s %5.2f own allocations/round trip (%.2f in all; reference)\n", what, rounded, total);
        return;
    }
    int within = rounded <= budget;
    printf("%-58s %5.2f own allocations/round trip (%.2f in all; budget %.2f) %s\n", what, rounded, total, budget,
           within ? "ok" : "OVER BUDGET");
    if (within) passed++; else failures++;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s BUDGET SERIAL_BUDGET [ROUND_TRIPS]\n", argv[0]);
        return 2;
    }
    double budget = atof(argv[1]);
    double serial_budget = atof(argv[2]);
    long n = argc > 3 ? atol(argv[3]) : 10000;

    pthread_mutex_init(&the_loop.lock, NULL);
    pthread_cond_init(&the_loop.wake, NULL);
    pthread_t thread;
    if (pthread_create(&thread, NULL, loop_main, &the_loop) != 0) return 2;
    vow_dispatcher *d = vow_dispatcher_new(submit, &the_loop, NULL);

    double baseline = per_round_trip(n, 2, NULL);
    if (baseline < 0) {
        printf("baseline: WRONG RESULT\n");
        return 1;
    }
    printf("%-58s %5.2f allocations/round trip (the Swift runtime's)\n",
           "baseline: a job handed as it is to a C loop", baseline);
    check("Vow executor: a C loop (vow_dispatcher_new)", budget, per_round_trip(n, 1, d), baseline);
    check("Vow executor: the library's default serial queue", serial_budget, per_round_trip(n, 0, NULL), baseline);
    check("an object per job on the C loop (swift-nio's figure)", NAN, per_round_trip(n, 3, NULL), baseline);

    vow_dispatcher_release(d);
    pthread_mutex_lock(&the_loop.lock);
    the_loop.stop = true;
    pthread_cond_signal(&the_loop.wake);
    pthread_mutex_unlock(&the_loop.lock);
    pthread_join(thread, NULL);

    printf("executor allocations: %d passed, %d failed\n", passed, failures);
    return failures == 0 ? 0 : 1;
}
