/*
 * Bounded-when memory check (run by scripts/check-allocations.sh, which states the
 * budgets).
 *
 * vow_when_limited_on (C) and when(fulfilled: iterator, concurrently:) (Swift,
 * swift_limited.swift) over COUNT inputs with LIMIT pending at most: make() returns a
 * pending promise; its dispatcher is a host loop that this thread drains, and this
 * thread settles every input, so the number pending at each call of make() is exact. It
 * must never reach LIMIT before a call (a counter checks each one), and the peak of the
 * heap bytes in use while the whole when runs, above the bytes in use before, must stay
 * within the budget: the live inputs (at most LIMIT) and one result entry per input,
 * nothing per settled input. Linked with alloc_bytes.c (which interposes malloc).
 *
 * Usage: limited_bytes COUNT LIMIT C_BUDGET_BYTES_PER_INPUT SWIFT_BUDGET_BYTES_PER_INPUT
 * Exit status 0 when both runs are right and within budget, 1 otherwise.
 */
#include "vow.h"
#include "alloc_bytes.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* From swift_limited.swift. */
extern long vow_alloc_swift_limited(long count, long limit);

/* ---- a host loop drained by this thread ---------------------------------------------- */

typedef struct job {
    vow_job run;
    void *job;
} job;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static job *queue;
static size_t queue_count, queue_capacity;

static void submit(void *ctx, vow_job run, void *j) {
    (void)ctx;
    pthread_mutex_lock(&queue_lock);
    if (queue_count == queue_capacity) {
        queue_capacity = queue_capacity ? queue_capacity * 2 : 64;
        queue = realloc(queue, queue_capacity * sizeof *queue);
        if (queue == NULL) abort();
    }
    queue[queue_count].run = run;
    queue[queue_count].job = j;
    queue_count++;
    pthread_mutex_unlock(&queue_lock);
}

/* Runs every queued job (and jobs queued meanwhile), oldest first. */
static void drain(void) {
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        if (queue_count == 0) {
            pthread_mutex_unlock(&queue_lock);
            return;
        }
        job first = queue[0];
        for (size_t i = 1; i < queue_count; i++) queue[i - 1] = queue[i];
        queue_count--;
        pthread_mutex_unlock(&queue_lock);
        first.run(first.job);
    }
}

/* ---- the C run --------------------------------------------------------------------- */

typedef struct inputs {
    long limit;
    long made, settled, max_pending, over_limit;
    vow_resolver **ready; /* resolvers of the inputs made and not settled yet (at most limit) */
    long ready_count;
} inputs;

static vow_promise *make(void *ctx, size_t i) {
    inputs *in = ctx;
    (void)i;
    if (in->made - in->settled >= in->limit) in->over_limit++;
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    if (in->ready_count < in->limit) {
        in->ready[in->ready_count++] = r;
    } else {
        vow_resolver_release(r); /* over the limit: already counted; it rejects (broken) */
    }
    in->made++;
    if (in->made - in->settled > in->max_pending) in->max_pending = in->made - in->settled;
    return p;
}

/* Returns the most inputs pending at once, -1 for a wrong result, -2 if make() was called
 * with limit inputs pending. */
static long c_limited(long count, long limit) {
    vow_dispatcher *d = vow_dispatcher_new(submit, NULL, NULL);
    inputs in = {.limit = limit};
    in.ready = calloc((size_t)limit, sizeof *in.ready);
    vow_value *v = vow_value_int(1);
    vow_promise *all = vow_when_limited_on(d, (size_t)count, (size_t)limit, make, &in, NULL);
    while (vow_promise_state(all) == VOW_PENDING) {
        drain();
        long n = in.ready_count;
        in.ready_count = 0;
        for (long k = 0; k < n; k++) {
            vow_resolver_fulfill(in.ready[k], v);
            vow_resolver_release(in.ready[k]);
            in.settled++;
        }
    }
    long result = in.max_pending;
    vow_value *list = NULL;
    if (vow_wait(all, 0, &list, NULL) != VOW_FULFILLED || vow_value_count(list) != (size_t)count ||
        vow_value_at(list, (size_t)count - 1) != v)
        result = -1;
    if (in.over_limit > 0) result = -2;
    vow_value_release(list);
    vow_promise_release(all);
    vow_value_release(v);
    vow_dispatcher_release(d);
    drain();
    free(in.ready);
    return result;
}

static long swift_limited(long count, long limit) { return vow_alloc_swift_limited(count, limit); }

/* ---- measuring ----------------------------------------------------------------------- */

static int failures;

static void measure(const char *what, long (*run)(long, long), long count, long limit, double budget) {
    (void)run(count / 10, limit);
    long before = alloc_bytes_live();
    alloc_bytes_reset_peak();
    long pending = run(count, limit);
    long grown = alloc_bytes_peak() - before;
    double per_input = (double)grown / (double)count;
    int right = pending > 0 && pending <= limit;
    int within = per_input <= budget;
    printf("%-46s %8ld inputs, at most %ld pending (limit %ld): peak +%9ld bytes, %6.2f bytes/input "
           "(budget %g) %s\n",
           what, count, pending, limit, grown, per_input, budget,
           !right ? (pending == -2 ? "OVER THE LIMIT" : "WRONG RESULT") : within ? "ok" : "OVER BUDGET");
    if (!right || !within) failures++;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s COUNT LIMIT C_BUDGET_BYTES_PER_INPUT SWIFT_BUDGET_BYTES_PER_INPUT\n", argv[0]);
        return 2;
    }
    long count = atol(argv[1]);
    long limit = atol(argv[2]);
    measure("C vow_when_limited_on", c_limited, count, limit, atof(argv[3]));
    measure("Swift when(fulfilled:concurrently:)", swift_limited, count, limit, atof(argv[4]));
    printf("bounded when memory: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
