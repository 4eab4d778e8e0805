/*
 * Soak test (run by scripts/soak.sh): for a given time, C threads and Swift threads
 * create promise chains, attach then/catch/finally, cancel some, settle the rest from
 * other threads and release everything, all in one process on one libvow.so. Then it
 * checks exact totals and that resident memory stayed flat.
 *
 * Usage: soak SECONDS   (SOAK_C_THREADS, SOAK_SWIFT_THREADS: worker threads, default 2 each)
 *
 * Per unit of work (kind chosen at random):
 *   fulfill   head settled by the settler thread; then -> catch -> finally, end waited
 *   reject    the settler rejects; the catch recovers
 *   throw     the settler fulfils; the then callback throws; the catch recovers
 *   cancel    as fulfill, but the worker cancels the end at once (racing the settler)
 *   unhandled the settler rejects a head whose only link has no error callback; nobody
 *             handles it: the unhandled-error handler must see it exactly once
 * Checked at the end:
 *   - every waited unit settled (within 30 s) with the outcome its kind implies;
 *   - every finally ran once (count == units that have one);
 *   - every C context's destroy ran exactly once (a per-id counter ring, and the total);
 *   - unhandled reports in domain "soak.unhandled" == units of kind unhandled (C + Swift),
 *     and no unhandled report other than those and cancellations;
 *   - RSS at the end <= RSS after warm-up * 1.10 + 8 MiB.
 * Prints the totals and RSS; exits 1 on any mismatch.
 */
#include "vow.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 8
#define WINDOW 64
#define RING (1u << 20)
#define RSS_GROWTH_FRACTION 0.10
#define RSS_GROWTH_SLACK (8L << 20)

/* From soak_swift.swift: stats indexes. */
enum { SW_UNITS, SW_FULFILLED, SW_REJECTED, SW_THROWN, SW_CANCEL_REQUESTED, SW_CANCEL_OBSERVED, SW_UNHANDLED,
       SW_FINALLIES, SW_WRONG, SW_CANCEL_HANDLERS, SW_SETTLED_BY_PRODUCER, SW_COUNT };
extern int soak_swift_worker(double seconds, uint64_t seed, int64_t *stats);

enum kind { K_FULFILL, K_REJECT, K_THROW, K_CANCEL, K_UNHANDLED, K_COUNT };

/* ---- process-wide counters ----------------------------------------------------------- */

static atomic_long contexts_created, contexts_destroyed;
static _Atomic uint32_t *destroy_ring; /* destroys seen per context id, modulo RING */
static atomic_long finallies_run, cancel_handlers_run, callbacks_run;
static atomic_long reports_soak, reports_cancel, reports_other;
static atomic_long wrong_outcomes;

/* ---- contexts with destroy accounting ------------------------------------------------ */

typedef struct context {
    long id;
    int kind;
} context;

static context *context_new(int kind) {
    context *c = malloc(sizeof *c);
    c->id = atomic_fetch_add(&contexts_created, 1);
    c->kind = kind;
    return c;
}

static void context_destroy(void *p) {
    context *c = p;
    atomic_fetch_add(&destroy_ring[(unsigned long)c->id % RING], 1);
    atomic_fetch_add(&contexts_destroyed, 1);
    free(c);
}

/* ---- callbacks ----------------------------------------------------------------------- */

static vow_error *handled_error, *unhandled_error;

static void on_value(void *ctx, const vow_value *value, vow_result *out) {
    context *c = ctx;
    atomic_fetch_add_explicit(&callbacks_run, 1, memory_order_relaxed);
    if (c->kind == K_THROW) {
        vow_result_throw(out, handled_error);
        return;
    }
    int64_t i = 0;
    vow_value_get_int(value, &i);
    vow_value *next = vow_value_int(i + 1);
    vow_result_return(out, next);
    vow_value_release(next);
}

static void on_error(void *ctx, const vow_error *error, vow_result *out) {
    (void)ctx;
    (void)error;
    atomic_fetch_add_explicit(&callbacks_run, 1, memory_order_relaxed);
    vow_value *recovered = vow_value_int(-1);
    vow_result_return(out, recovered);
    vow_value_release(recovered);
}

static void on_finally(void *ctx) {
    (void)ctx;
    atomic_fetch_add_explicit(&finallies_run, 1, memory_order_relaxed);
}

static void on_cancel(void *ctx) {
    (void)ctx;
    atomic_fetch_add_explicit(&cancel_handlers_run, 1, memory_order_relaxed);
}

static void on_unhandled(void *ctx, const vow_error *error) {
    (void)ctx;
    const char *domain = vow_error_domain(error);
    if (domain && strcmp(domain, "soak.unhandled") == 0) {
        atomic_fetch_add(&reports_soak, 1);
    } else if (vow_error_is_cancelled(error)) {
        atomic_fetch_add(&reports_cancel, 1);
    } else {
        if (atomic_fetch_add(&reports_other, 1) < 5) {
            const char *message = vow_error_message(error);
            fprintf(stderr, "soak: unexpected unhandled error: %s %lld: %s\n", domain ? domain : "?",
                    (long long)vow_error_code(error), message ? message : "");
        }
    }
}

/* ---- the settler: settles heads from another thread ---------------------------------- */

typedef struct job {
    vow_resolver *resolver;
    int kind;
} job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t ready;
    job *jobs;
    size_t head, count, capacity;
    int closing;
    long settled_ok, settled_already;
} settler = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, 0, 0, 0};

static void settler_push(vow_resolver *r, int kind) {
    pthread_mutex_lock(&settler.lock);
    if (settler.count == settler.capacity) {
        size_t capacity = settler.capacity ? settler.capacity * 2 : 1024;
        job *jobs = malloc(capacity * sizeof *jobs);
        for (size_t i = 0; i < settler.count; i++) jobs[i] = settler.jobs[(settler.head + i) % settler.capacity];
        free(settler.jobs);
        settler.jobs = jobs;
        settler.head = 0;
        settler.capacity = capacity;
    }
    settler.jobs[(settler.head + settler.count) % settler.capacity] = (job){r, kind};
    settler.count++;
    pthread_cond_signal(&settler.ready);
    pthread_mutex_unlock(&settler.lock);
}

static void *settler_main(void *arg) {
    (void)arg;
    vow_value *one = vow_value_int(1);
    for (;;) {
        pthread_mutex_lock(&settler.lock);
        while (settler.count == 0 && !settler.closing) pthread_cond_wait(&settler.ready, &settler.lock);
        if (settler.count == 0) {
            pthread_mutex_unlock(&settler.lock);
            break;
        }
        job j = settler.jobs[settler.head];
        settler.head = (settler.head + 1) % settler.capacity;
        settler.count--;
        pthread_mutex_unlock(&settler.lock);
        int status;
        if (j.kind == K_REJECT) status = vow_resolver_reject(j.resolver, handled_error);
        else if (j.kind == K_UNHANDLED) status = vow_resolver_reject(j.resolver, unhandled_error);
        else status = vow_resolver_fulfill(j.resolver, one);
        vow_resolver_release(j.resolver);
        pthread_mutex_lock(&settler.lock);
        if (status == VOW_OK) settler.settled_ok++;
        else settler.settled_already++;
        pthread_mutex_unlock(&settler.lock);
    }
    vow_value_release(one);
    return NULL;
}

/* ---- C workers ----------------------------------------------------------------------- */

typedef struct c_stats {
    long units[K_COUNT];
    long cancel_observed;
    long with_finally;
} c_stats;

typedef struct in_flight {
    vow_promise *end;
    int kind;
} in_flight;

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits (bounded) for a unit's end and checks it against its kind. */
static void check_unit(in_flight *u, c_stats *stats) {
    vow_value *value = NULL;
    vow_error *error = NULL;
    vow_state state = vow_wait(u->end, 30.0, &value, &error);
    int64_t i = 0;
    if (state == VOW_FULFILLED) vow_value_get_int(value, &i);
    int right;
    switch (u->kind) {
    case K_FULFILL: right = state == VOW_FULFILLED && i == 2; break;
    case K_REJECT:
    case K_THROW: right = state == VOW_FULFILLED && i == -1; break;
    case K_CANCEL:
        right = (state == VOW_FULFILLED && i == 2) || (state == VOW_REJECTED && vow_error_is_cancelled(error));
        if (state == VOW_REJECTED) stats->cancel_observed++;
        break;
    default: right = 0;
    }
    if (!right) {
        if (atomic_fetch_add(&wrong_outcomes, 1) < 5)
            fprintf(stderr, "soak: C unit of kind %d ended in state %d (value %lld)\n", u->kind, (int)state,
                    (long long)i);
    }
    vow_value_release(value);
    vow_error_release(error);
    vow_promise_release(u->end);
}

typedef struct worker_arg {
    double seconds;
    uint64_t seed;
    c_stats stats;
    int64_t swift_stats[SW_COUNT];
    int swift_status;
} worker_arg;

static void *c_worker(void *p) {
    worker_arg *arg = p;
    c_stats *stats = &arg->stats;
    uint64_t rnd = arg->seed | 1;
    in_flight window[WINDOW];
    int used = 0;
    double deadline = seconds_now() + arg->seconds;
    while (seconds_now() < deadline) {
        rnd ^= rnd << 13;
        rnd ^= rnd >> 7;
        rnd ^= rnd << 17;
        int kind = (int)(rnd % K_COUNT);
        stats->units[kind]++;
        vow_resolver *r = NULL;
        vow_promise *head = vow_promise_pending(&r);
        if (kind == K_UNHANDLED) {
            vow_promise *end = vow_then(head, on_value, NULL, context_new(kind), context_destroy);
            vow_promise_release(end);
            vow_promise_release(head);
            settler_push(r, kind);
            continue;
        }
        vow_resolver_on_cancel(r, on_cancel, context_new(kind), context_destroy);
        vow_promise *p1 = vow_then(head, on_value, NULL, context_new(kind), context_destroy);
        vow_promise *p2 = vow_catch(p1, on_error, context_new(kind), context_destroy);
        vow_promise *end = vow_finally(p2, on_finally, context_new(kind), context_destroy);
        stats->with_finally++;
        vow_promise_release(head);
        vow_promise_release(p1);
        vow_promise_release(p2);
        settler_push(r, kind);
        if (kind == K_CANCEL) vow_cancel(end);
        window[used++] = (in_flight){end, kind};
        if (used == WINDOW) {
            for (int i = 0; i < used; i++) check_unit(&window[i], stats);
            used = 0;
        }
    }
    for (int i = 0; i < used; i++) check_unit(&window[i], stats);
    return NULL;
}

static void *swift_worker(void *p) {
    worker_arg *arg = p;
    arg->swift_status = soak_swift_worker(arg->seconds, arg->seed, arg->swift_stats);
    return NULL;
}

/* ---- main ---------------------------------------------------------------------------- */

static long rss_bytes(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

/* A worker count from the environment: 0 to MAX_WORKERS, default 2. */
static int env_count(const char *name) {
    const char *text = getenv(name);
    if (!text || !*text) return 2;
    int n = atoi(text);
    return n < 0 ? 0 : n > MAX_WORKERS ? MAX_WORKERS : n;
}

/* Bytes the malloc heap has handed out and not taken back (all arenas). */
static long heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long)(info.uordblks + info.hblkhd);
}

/* Polls (bounded) until *counter reaches want; returns 1 if it did. */
static int await_count(atomic_long *counter, long want, double seconds) {
    double deadline = seconds_now() + seconds;
    while (atomic_load(counter) < want) {
        if (seconds_now() > deadline) return 0;
        usleep(1000);
    }
    return 1;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 600;
    if (seconds <= 0) seconds = 1;
    /* Warm-up before the first RSS sample: 10% of the run, between 1 and 60 s. */
    double warmup = seconds * 0.1 < 60 ? (seconds * 0.1 > 1 ? seconds * 0.1 : 1) : 60;

    destroy_ring = calloc(RING, sizeof *destroy_ring);
    memset((void *)destroy_ring, 0, RING * sizeof *destroy_ring);
    handled_error = vow_error_new("soak.handled", 3, "rejected by the producer");
    unhandled_error = vow_error_new("soak.unhandled", 1, "deliberately unhandled (C)");
    vow_set_unhandled_error_handler(on_unhandled, NULL, NULL);

    pthread_t settler_thread;
    pthread_create(&settler_thread, NULL, settler_main, NULL);

    int C_WORKERS = env_count("SOAK_C_THREADS"), SWIFT_WORKERS = env_count("SOAK_SWIFT_THREADS");
    worker_arg args[2 * MAX_WORKERS];
    pthread_t threads[2 * MAX_WORKERS];
    memset(args, 0, sizeof args);
    for (int i = 0; i < C_WORKERS + SWIFT_WORKERS; i++) {
        args[i].seconds = seconds;
        args[i].seed = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        pthread_create(&threads[i], NULL, i < C_WORKERS ? c_worker : swift_worker, &args[i]);
    }

    /* RSS after warm-up, then the peak while running. */
    usleep((useconds_t)(warmup * 1e6));
    long rss_start = rss_bytes();
    long rss_peak = rss_start;
    double start_time = seconds_now();
    double end_time = start_time + seconds - warmup;
    long trace[10], heap_trace[10];
    int traced = 0;
    while (seconds_now() < end_time) {
        usleep(200000);
        long rss = rss_bytes();
        if (rss > rss_peak) rss_peak = rss;
        while (traced < 10 && seconds_now() >= start_time + (end_time - start_time) * (traced + 1) / 10) {
            heap_trace[traced] = heap_in_use();
            trace[traced++] = rss;
        }
    }

    for (int i = 0; i < C_WORKERS + SWIFT_WORKERS; i++) pthread_join(threads[i], NULL);
    pthread_mutex_lock(&settler.lock);
    settler.closing = 1;
    pthread_cond_signal(&settler.ready);
    pthread_mutex_unlock(&settler.lock);
    pthread_join(settler_thread, NULL);

    /* Totals. */
    long c_units[K_COUNT] = {0}, c_with_finally = 0, c_cancel_observed = 0;
    long sw[SW_COUNT] = {0};
    int swift_failed = 0;
    for (int i = 0; i < C_WORKERS + SWIFT_WORKERS; i++) {
        if (i < C_WORKERS) {
            for (int k = 0; k < K_COUNT; k++) c_units[k] += args[i].stats.units[k];
            c_with_finally += args[i].stats.with_finally;
            c_cancel_observed += args[i].stats.cancel_observed;
        } else {
            for (int k = 0; k < SW_COUNT; k++) sw[k] += (long)args[i].swift_stats[k];
            swift_failed |= args[i].swift_status != 0;
        }
    }
    long c_total = 0;
    for (int k = 0; k < K_COUNT; k++) c_total += c_units[k];
    long expected_reports = c_units[K_UNHANDLED] + sw[SW_UNHANDLED];

    /* Destroys and unhandled reports may trail the last settlement a little. */
    int destroys_done = await_count(&contexts_destroyed, atomic_load(&contexts_created), 30);
    int reports_done = await_count(&reports_soak, expected_reports, 30);
    int finallies_done = await_count(&finallies_run, c_with_finally, 30);
    long rss_end = rss_bytes();

    /* Per-id destroy check: ids 0..created-1 map to slot id % RING. */
    long created = atomic_load(&contexts_created);
    long ring_mismatch = 0;
    for (unsigned long s = 0; s < RING; s++) {
        long ids = created > (long)s ? (created - (long)s + RING - 1) / RING : 0;
        if ((long)atomic_load(&destroy_ring[s]) != ids) ring_mismatch++;
    }

    int failures = 0;
#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        int ok_ = (cond);                                                                                      \
        printf("  %-4s ", ok_ ? "ok" : "FAIL");                                                                \
        printf(__VA_ARGS__);                                                                                   \
        printf("\n");                                                                                          \
        if (!ok_) failures++;                                                                                  \
    } while (0)

    printf("soak: %.0f s, %d C threads + %d Swift threads + 1 C settler thread\n", seconds, C_WORKERS,
           SWIFT_WORKERS);
    printf("  C units: %ld (fulfill %ld, reject %ld, throw %ld, cancel %ld [cancelled %ld], unhandled %ld)\n",
           c_total, c_units[K_FULFILL], c_units[K_REJECT], c_units[K_THROW], c_units[K_CANCEL], c_cancel_observed,
           c_units[K_UNHANDLED]);
    printf("  Swift units: %ld (fulfill+cancel %ld, reject %ld, throw %ld, cancel %ld [cancelled %ld], unhandled %ld)\n",
           sw[SW_UNITS], sw[SW_FULFILLED], sw[SW_REJECTED], sw[SW_THROWN], sw[SW_CANCEL_REQUESTED],
           sw[SW_CANCEL_OBSERVED], sw[SW_UNHANDLED]);
    printf("  C callbacks run %ld, cancel handlers run %ld (C) + %ld (Swift); settler: %ld settled, %ld already settled\n",
           atomic_load(&callbacks_run), atomic_load(&cancel_handlers_run), sw[SW_CANCEL_HANDLERS], settler.settled_ok,
           settler.settled_already);
    CHECK(atomic_load(&wrong_outcomes) == 0 && sw[SW_WRONG] == 0 && !swift_failed,
          "every waited unit settled as its kind implies (wrong: C %ld, Swift %ld)", atomic_load(&wrong_outcomes),
          sw[SW_WRONG]);
    CHECK(settler.settled_ok + settler.settled_already == c_total,
          "every C head was settled or found settled by the settler (%ld of %ld)",
          settler.settled_ok + settler.settled_already, c_total);
    CHECK(settler.settled_already <= c_units[K_CANCEL],
          "only heads of cancelled units were found settled (%ld <= %ld)", settler.settled_already,
          c_units[K_CANCEL]);
    CHECK(finallies_done && atomic_load(&finallies_run) == c_with_finally, "every C finally ran once (%ld of %ld)",
          atomic_load(&finallies_run), c_with_finally);
    CHECK(sw[SW_FINALLIES] == sw[SW_UNITS] - sw[SW_UNHANDLED], "every Swift finally ran once (%ld of %ld)",
          sw[SW_FINALLIES], sw[SW_UNITS] - sw[SW_UNHANDLED]);
    CHECK(destroys_done && atomic_load(&contexts_destroyed) == created && ring_mismatch == 0,
          "every C context destroyed exactly once (%ld of %ld; %ld ids off)", atomic_load(&contexts_destroyed),
          created, ring_mismatch);
    CHECK(reports_done && atomic_load(&reports_soak) == expected_reports,
          "unhandled reports == deliberately unhandled rejections (%ld of %ld; C %ld + Swift %ld)",
          atomic_load(&reports_soak), expected_reports, c_units[K_UNHANDLED], sw[SW_UNHANDLED]);
    CHECK(atomic_load(&reports_other) == 0, "no other unhandled error reported (%ld; cancellations: %ld)",
          atomic_load(&reports_other), atomic_load(&reports_cancel));
    printf("  every tenth of the run after warm-up, RSS (MiB):");
    for (int i = 0; i < traced; i++) printf(" %.1f", trace[i] / 1048576.0);
    printf("\n  and malloc heap in use (MiB):");
    for (int i = 0; i < traced; i++) printf(" %.1f", heap_trace[i] / 1048576.0);
    printf(" (at the end, drained: %.1f)\n", heap_in_use() / 1048576.0);
    long rss_limit = (long)((double)rss_start * (1 + RSS_GROWTH_FRACTION)) + RSS_GROWTH_SLACK;
    CHECK(rss_end <= rss_limit, "RSS flat: start %.1f MiB (after %.0f s warm-up), end %.1f MiB, peak %.1f MiB, limit %.1f MiB",
          rss_start / 1048576.0, warmup, rss_end / 1048576.0, rss_peak / 1048576.0, rss_limit / 1048576.0);
    printf("soak: %d passed, %d failed\n", 9 - failures, failures);

    vow_set_unhandled_error_handler(NULL, NULL, NULL);
    vow_error_release(handled_error);
    vow_error_release(unhandled_error);
    return failures == 0 ? 0 : 1;
}
