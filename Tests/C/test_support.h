/*
 * test_support.h: the small harness every C test program includes (first).
 *
 * Each Tests/C/test_*.c is a standalone program in libuv's style: its main
 * runs the file's test functions one after the other and returns non-zero if
 * any CHECK failed. Callbacks bump counters; the tests assert the counters at
 * the end. Nothing here waits without a bound: every wait gives up after
 * ts_wait_seconds() (10 s, more under valgrind), so a broken library fails a
 * test instead of hanging it, and a watchdog thread ends the program if a
 * test still hangs somewhere else.
 *
 *   TEST_MAIN_BEGIN("test_values")
 *       RUN_TEST(test_ints);
 *   TEST_MAIN_END
 *
 * Pieces:
 *   CHECK / CHECK_EQ_INT / CHECK_EQ_PTR / CHECK_EQ_STR / CHECK_NULL / ...
 *       count checks and failures; a failure prints file:line and the
 *       expression. REQUIRE returns from the (void) test function on failure.
 *   track_new / track_destroy / track_check_all_once
 *       a lifetime tracker: each tracked ctx counts its callback calls and its
 *       destroys; at the end of the program every tracked ctx must have been
 *       destroyed exactly once.
 *   wait_promise / wait_counter / flush_default
 *       bounded waits.
 *   host_queue
 *       a poll-style host loop for vow_dispatcher_new, drained by the thread
 *       that owns it.
 *   capture_stderr_begin / capture_stderr_end
 *       redirects file descriptor 2 to a pipe to read what the library wrote.
 *   count_lines_containing / dump_pending / site_of
 *       reading what the library wrote: lines with a needle, the census of
 *       pending promises (debug mode), "FILE:LINE" as VOW_DEBUG_SITES records it.
 *   unhandled_counter_install / unhandled_count
 *       an unhandled-error handler that records what it saw.
 *
 * Needs C11 (<stdatomic.h>) and POSIX threads. The library header itself
 * stays C99 (checked by Tests/C/header/check_header.sh).
 */
#ifndef VOW_TEST_SUPPORT_H
#define VOW_TEST_SUPPORT_H

#ifndef _GNU_SOURCE
#  define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vow.h"

#define TS_UNUSED __attribute__((unused))

/* ======================================================================
 * Checks
 * ====================================================================== */

static atomic_long ts_checks TS_UNUSED;
static atomic_long ts_failures TS_UNUSED;
static const char *volatile ts_program TS_UNUSED = "?";
static const char *volatile ts_current_test TS_UNUSED = "(setup)";

static inline int
ts_fail_header(const char *file, int line)
{
    atomic_fetch_add(&ts_failures, 1);
    fprintf(stderr, "%s:%d: [%s] CHECK failed: ", file, line, ts_current_test);
    return 0;
}

static inline int
ts_check(int ok, const char *file, int line, const char *expr)
{
    atomic_fetch_add(&ts_checks, 1);
    if (ok) return 1;
    ts_fail_header(file, line);
    fprintf(stderr, "%s\n", expr);
    return 0;
}

static inline int
ts_check_int(long long a, long long b, const char *file, int line, const char *ea, const char *eb)
{
    atomic_fetch_add(&ts_checks, 1);
    if (a == b) return 1;
    ts_fail_header(file, line);
    fprintf(stderr, "%s == %s (%lld vs %lld)\n", ea, eb, a, b);
    return 0;
}

static inline int
ts_check_ptr(const void *a, const void *b, const char *file, int line, const char *ea, const char *eb)
{
    atomic_fetch_add(&ts_checks, 1);
    if (a == b) return 1;
    ts_fail_header(file, line);
    fprintf(stderr, "%s == %s (%p vs %p)\n", ea, eb, a, b);
    return 0;
}

static inline int
ts_check_str(const char *a, const char *b, const char *file, int line, const char *ea, const char *eb)
{
    atomic_fetch_add(&ts_checks, 1);
    if (a != NULL && b != NULL && strcmp(a, b) == 0) return 1;
    if (a == NULL && b == NULL) return 1;
    ts_fail_header(file, line);
    fprintf(stderr, "%s == %s (\"%s\" vs \"%s\")\n", ea, eb, a ? a : "(null)", b ? b : "(null)");
    return 0;
}

static inline int
ts_check_double(double a, double b, const char *file, int line, const char *ea, const char *eb)
{
    atomic_fetch_add(&ts_checks, 1);
    if (a == b || (isnan(a) && isnan(b))) return 1;
    ts_fail_header(file, line);
    fprintf(stderr, "%s == %s (%.17g vs %.17g)\n", ea, eb, a, b);
    return 0;
}

#define CHECK(cond) ts_check(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ_INT(a, b) ts_check_int((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_PTR(a, b) \
    ts_check_ptr((const void *)(a), (const void *)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_STR(a, b) ts_check_str((a), (b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_DOUBLE(a, b) ts_check_double((double)(a), (double)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_NULL(a) ts_check((a) == NULL, __FILE__, __LINE__, #a " == NULL")
#define CHECK_NOT_NULL(a) ts_check((a) != NULL, __FILE__, __LINE__, #a " != NULL")
/* Checks, and returns from the current void function if the check failed. */
#define REQUIRE(cond)                 \
    do {                              \
        if (!CHECK(cond)) return;     \
    } while (0)

/* ======================================================================
 * Time, scale and bounded waits
 * ====================================================================== */

static inline double
now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void
sleep_seconds(double s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* VOW_TEST_SCALE=small (set by the runner under valgrind) shrinks big tests. */
static inline int
ts_small(void)
{
    const char *s = getenv("VOW_TEST_SCALE");
    return s != NULL && strcmp(s, "small") == 0;
}

/* The bound of every wait: 10 s, or VOW_TEST_WAIT seconds. */
static inline double
ts_wait_seconds(void)
{
    const char *s = getenv("VOW_TEST_WAIT");
    if (s != NULL && atof(s) > 0) return atof(s);
    return 10.0;
}

/* Polls (1 ms steps) until *counter >= target or the bound passes. Returns 1 if reached. */
static inline int
wait_counter(atomic_int *counter, int target, double seconds)
{
    double end = now_seconds() + seconds;
    while (atomic_load(counter) < target) {
        if (now_seconds() > end) return 0;
        sleep_seconds(0.001);
    }
    return 1;
}

/* vow_wait with the harness bound; CHECKs that p settled in time. */
#define wait_promise(p, v, e) ts_wait_promise((p), (v), (e), __FILE__, __LINE__)
static inline vow_state
ts_wait_promise(vow_promise *p, vow_value **v, vow_error **e, const char *file, int line)
{
    vow_state s = vow_wait(p, ts_wait_seconds(), v, e);
    ts_check(s == VOW_FULFILLED || s == VOW_REJECTED, file, line, "promise settled within the wait bound");
    return s;
}

static inline void
ts_noop_on_value(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    (void)value;
    (void)out;
}

/*
 * Runs an empty job through the current default dispatcher (serial, FIFO)
 * twice and waits for it: everything queued there before has run, and the
 * job that ran it has been let go.
 */
static inline void
flush_default(void)
{
    for (int i = 0; i < 2; i++) {
        vow_promise *p = vow_dispatch(vow_dispatcher_default(), ts_noop_on_value, NULL, NULL);
        if (p == NULL) {
            CHECK(!"vow_dispatch returned NULL in flush_default");
            return;
        }
        vow_wait(p, ts_wait_seconds(), NULL, NULL);
        vow_promise_release(p);
    }
}

/* ======================================================================
 * Lifetime tracker
 * ====================================================================== */

typedef struct track {
    atomic_int destroyed; /* destroy(ctx) calls */
    atomic_int calls;     /* callback calls */
    atomic_int order;     /* sequence number of the last call (ts_sequence) */
    pthread_t thread;     /* thread of the last call */
    atomic_int on_main;   /* 1 if the last call ran on the main thread */
    const char *file;
    int line;
    void *data; /* free for the test's use */
} track;

static pthread_mutex_t ts_track_lock TS_UNUSED = PTHREAD_MUTEX_INITIALIZER;
static track **ts_tracks TS_UNUSED;
static size_t ts_track_count TS_UNUSED;
static size_t ts_track_capacity TS_UNUSED;
static atomic_long ts_destroy_total TS_UNUSED;
static atomic_int ts_sequence TS_UNUSED;
static pthread_t ts_main_thread TS_UNUSED;

#define track_new() ts_track_new(__FILE__, __LINE__)
static inline track *
ts_track_new(const char *file, int line)
{
    track *t = calloc(1, sizeof *t);
    if (t == NULL) abort();
    t->file = file;
    t->line = line;
    pthread_mutex_lock(&ts_track_lock);
    if (ts_track_count == ts_track_capacity) {
        size_t cap = ts_track_capacity ? ts_track_capacity * 2 : 64;
        track **grown = realloc(ts_tracks, cap * sizeof *grown);
        if (grown == NULL) abort();
        ts_tracks = grown;
        ts_track_capacity = cap;
    }
    ts_tracks[ts_track_count++] = t;
    pthread_mutex_unlock(&ts_track_lock);
    return t;
}

/* The destroy function for tracked contexts. */
static inline void
track_destroy(void *ctx)
{
    track *t = ctx;
    atomic_fetch_add(&t->destroyed, 1);
    atomic_fetch_add(&ts_destroy_total, 1);
}

/* Records a callback call on t (count, order, thread). */
static inline void
track_hit(track *t)
{
    t->thread = pthread_self();
    atomic_store(&t->on_main, pthread_equal(t->thread, ts_main_thread) ? 1 : 0);
    atomic_store(&t->order, atomic_fetch_add(&ts_sequence, 1) + 1);
    atomic_fetch_add(&t->calls, 1);
}

static inline int
track_calls(track *t)
{
    return atomic_load(&t->calls);
}

static inline int
track_destroyed(track *t)
{
    return atomic_load(&t->destroyed);
}

/* Waits (bounded) until t was destroyed, then CHECKs it was exactly once. */
#define CHECK_DESTROYED_ONCE(t)                                          \
    do {                                                                 \
        wait_counter(&(t)->destroyed, 1, ts_wait_seconds());             \
        CHECK_EQ_INT(track_destroyed(t), 1);                             \
    } while (0)

/*
 * At the end of the program: waits (bounded) until every tracked ctx was
 * destroyed, then checks each exactly once, naming the file:line of every
 * track_new whose ctx was destroyed 0 or 2+ times. Frees the trackers.
 */
static inline void
track_check_all_once(void)
{
    double end = now_seconds() + ts_wait_seconds();
    pthread_mutex_lock(&ts_track_lock);
    size_t n = ts_track_count;
    track **all = ts_tracks;
    ts_tracks = NULL;
    ts_track_count = ts_track_capacity = 0;
    pthread_mutex_unlock(&ts_track_lock);
    for (size_t i = 0; i < n; i++) {
        while (atomic_load(&all[i]->destroyed) < 1 && now_seconds() < end) sleep_seconds(0.001);
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        int d = atomic_load(&all[i]->destroyed);
        atomic_fetch_add(&ts_checks, 1);
        if (d != 1) {
            atomic_fetch_add(&ts_failures, 1);
            fprintf(stderr, "%s:%d: tracked ctx destroyed %d times (expected exactly once)\n", all[i]->file,
                    all[i]->line, d);
            bad++;
        }
    }
    /* A ctx never destroyed may still be used by the library: leak it rather than free it. */
    for (size_t i = 0; i < n; i++) {
        if (atomic_load(&all[i]->destroyed) >= 1) free(all[i]);
    }
    free(all);
    (void)bad;
}

/* Common tracked callbacks (ctx is a track *). */

/* Counts, and passes the value on (the same handle). */
static inline void
track_on_value_pass(void *ctx, const vow_value *value, vow_result *out)
{
    track_hit(ctx);
    vow_result_return(out, value);
}

/* Counts, and sets nothing (the derived promise resolves with the NULL value). */
static inline void
track_on_value_nothing(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    track_hit(ctx);
}

/* Counts, and throws the error on (the same handle). */
static inline void
track_on_error_rethrow(void *ctx, const vow_error *error, vow_result *out)
{
    track_hit(ctx);
    vow_result_throw(out, error);
}

/* Counts, and recovers with nothing (the NULL value). */
static inline void
track_on_error_recover(void *ctx, const vow_error *error, vow_result *out)
{
    (void)error;
    (void)out;
    track_hit(ctx);
}

/* Counts (finally, on_cancel, dispatch-style plain callbacks). */
static inline void
track_fn(void *ctx)
{
    track_hit(ctx);
}

/* ======================================================================
 * A poll-style host loop for vow_dispatcher_new
 * ====================================================================== */

typedef struct host_job {
    vow_job run;
    void *job;
} host_job;

typedef struct host_queue {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    host_job *items;
    size_t head, tail, capacity;
    atomic_int submitted;
    atomic_int ran;
    atomic_int destroyed; /* destroy(ctx) calls */
    atomic_int submit_under_run; /* submit called while this queue was running a job (allowed) */
    atomic_int running;
} host_queue;

static inline host_queue *
host_queue_new(void)
{
    host_queue *q = calloc(1, sizeof *q);
    if (q == NULL) abort();
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cond, NULL);
    return q;
}

/* The submit function: any thread. */
static inline void
host_submit(void *ctx, vow_job run, void *job)
{
    host_queue *q = ctx;
    pthread_mutex_lock(&q->lock);
    if (q->tail == q->capacity) {
        if (q->head > 0) {
            memmove(q->items, q->items + q->head, (q->tail - q->head) * sizeof *q->items);
            q->tail -= q->head;
            q->head = 0;
        }
        if (q->tail == q->capacity) {
            size_t cap = q->capacity ? q->capacity * 2 : 64;
            host_job *grown = realloc(q->items, cap * sizeof *grown);
            if (grown == NULL) abort();
            q->items = grown;
            q->capacity = cap;
        }
    }
    q->items[q->tail].run = run;
    q->items[q->tail].job = job;
    q->tail++;
    atomic_fetch_add(&q->submitted, 1);
    if (atomic_load(&q->running)) atomic_fetch_add(&q->submit_under_run, 1);
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

/* The destroy function: counts only (the test frees q with host_queue_free). */
static inline void
host_queue_destroy(void *ctx)
{
    host_queue *q = ctx;
    atomic_fetch_add(&q->destroyed, 1);
}

/* Runs one queued job on this thread; 0 if the queue was empty. */
static inline int
host_run_one(host_queue *q)
{
    pthread_mutex_lock(&q->lock);
    if (q->head == q->tail) {
        pthread_mutex_unlock(&q->lock);
        return 0;
    }
    host_job j = q->items[q->head++];
    pthread_mutex_unlock(&q->lock);
    atomic_store(&q->running, 1);
    j.run(j.job);
    atomic_store(&q->running, 0);
    atomic_fetch_add(&q->ran, 1);
    return 1;
}

/* Runs jobs until the queue is empty (jobs submitted meanwhile included). Returns how many ran. */
static inline int
host_drain(host_queue *q)
{
    int n = 0;
    while (host_run_one(q)) n++;
    return n;
}

static inline size_t
host_pending(host_queue *q)
{
    pthread_mutex_lock(&q->lock);
    size_t n = q->tail - q->head;
    pthread_mutex_unlock(&q->lock);
    return n;
}

/*
 * Runs the loop on this thread until p is settled (or the bound passes),
 * sleeping on the queue's condition between jobs. Returns p's state.
 */
static inline vow_state
host_run_until(host_queue *q, vow_promise *p, double seconds)
{
    double end = now_seconds() + seconds;
    for (;;) {
        host_drain(q);
        vow_state s = vow_promise_state(p);
        if (s != VOW_PENDING) return s;
        if (now_seconds() > end) return s;
        pthread_mutex_lock(&q->lock);
        if (q->head == q->tail) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 2 * 1000 * 1000;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec += 1;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&q->cond, &q->lock, &ts);
        }
        pthread_mutex_unlock(&q->lock);
    }
}

/* Like host_run_until, for a counter. Returns 1 if *counter reached target. */
static inline int
host_run_until_counter(host_queue *q, atomic_int *counter, int target, double seconds)
{
    double end = now_seconds() + seconds;
    for (;;) {
        host_drain(q);
        if (atomic_load(counter) >= target) return 1;
        if (now_seconds() > end) return 0;
        sleep_seconds(0.001);
    }
}

/* Hands every queued job back with vow_job_drop (a loop shutting down). Returns how many. */
static inline int
host_drop_all(host_queue *q)
{
    int n = 0;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        if (q->head == q->tail) {
            pthread_mutex_unlock(&q->lock);
            return n;
        }
        host_job j = q->items[q->head++];
        pthread_mutex_unlock(&q->lock);
        vow_job_drop(j.job);
        n++;
    }
}

/* Frees q once its destroy ran (else leaks it: the library may still hold it). */
static inline void
host_queue_free(host_queue *q)
{
    if (atomic_load(&q->destroyed) < 1) return;
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
    free(q->items);
    free(q);
}

/* ======================================================================
 * stderr capture (file descriptor 2 into a pipe)
 * ====================================================================== */

typedef struct stderr_capture {
    int saved;
    int pipe_read;
    int active;
} stderr_capture;

static inline void
capture_stderr_begin(stderr_capture *c)
{
    int fds[2];
    c->active = 0;
    c->saved = -1;
    c->pipe_read = -1;
    fflush(stderr);
    if (pipe(fds) != 0) return;
    /* 1 MiB of pipe buffer, so writers never block while nobody reads. */
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    c->saved = dup(2);
    dup2(fds[1], 2);
    close(fds[1]);
    c->pipe_read = fds[0];
    c->active = 1;
}

/* Restores fd 2 and returns what was written meanwhile (malloc'ed, NUL-terminated). */
static inline char *
capture_stderr_end(stderr_capture *c)
{
    if (!c->active) return strdup("");
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) abort();
    for (;;) {
        if (len + 1024 > cap) {
            cap *= 2;
            char *grown = realloc(buf, cap);
            if (grown == NULL) abort();
            buf = grown;
        }
        ssize_t r = read(c->pipe_read, buf + len, cap - len - 1);
        if (r <= 0) break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    close(c->pipe_read);
    c->active = 0;
    return buf;
}

/* "FILE:LINE" for a line of the calling file, as the VOW_DEBUG_SITES macros record it
 * (eight buffers used in turn: up to eight in one expression). */
#define site_of(line) ts_site_of(__FILE__, (line))
static inline const char *
ts_site_of(const char *file, int line)
{
    static char buffers[8][512];
    static int next;
    char *buffer = buffers[next++ % 8];
    snprintf(buffer, sizeof buffers[0], "%s:%d", file, line);
    return buffer;
}

/* What vow_debug_dump_pending writes (the census of pending promises), as a malloc'ed
 * string; *count gets its return. */
#define dump_pending(count) ts_dump_pending((count), __FILE__, __LINE__)
static inline char *
ts_dump_pending(size_t *count, const char *file, int line)
{
    FILE *f = tmpfile();
    if (f == NULL) abort();
    *count = vow_debug_dump_pending(f);
    long size = ftell(f);
    rewind(f);
    char *text = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
    if (text == NULL) abort();
    if (size > 0) ts_check(fread(text, 1, (size_t)size, f) == (size_t)size, file, line, "the census was read back whole");
    fclose(f);
    return text;
}

/* How many lines of text contain needle. */
static inline int
count_lines_containing(const char *text, const char *needle)
{
    int n = 0;
    const char *line = text;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *copy = strndup(line, len);
        if (copy && strstr(copy, needle)) n++;
        free(copy);
        line += len + (nl ? 1 : 0);
    }
    return n;
}

/* ======================================================================
 * Unhandled-error counter
 * ====================================================================== */

#define TS_UNHANDLED_MAX 256
typedef struct ts_unhandled_record {
    char domain[64];
    int64_t code;
    char message[96];
    int cancelled;
} ts_unhandled_record;

static pthread_mutex_t ts_unhandled_lock TS_UNUSED = PTHREAD_MUTEX_INITIALIZER;
static ts_unhandled_record ts_unhandled_seen[TS_UNHANDLED_MAX] TS_UNUSED;
static atomic_int ts_unhandled_total TS_UNUSED;

static inline void
ts_unhandled_handler(void *ctx, const vow_error *error)
{
    (void)ctx;
    pthread_mutex_lock(&ts_unhandled_lock);
    int i = atomic_load(&ts_unhandled_total);
    if (i < TS_UNHANDLED_MAX) {
        const char *d = vow_error_domain(error);
        const char *m = vow_error_message(error);
        snprintf(ts_unhandled_seen[i].domain, sizeof ts_unhandled_seen[i].domain, "%s", d ? d : "(null)");
        snprintf(ts_unhandled_seen[i].message, sizeof ts_unhandled_seen[i].message, "%s", m ? m : "(null)");
        ts_unhandled_seen[i].code = vow_error_code(error);
        ts_unhandled_seen[i].cancelled = vow_error_is_cancelled(error);
    }
    atomic_fetch_add(&ts_unhandled_total, 1);
    pthread_mutex_unlock(&ts_unhandled_lock);
}

/* Installs the recording handler and clears the record. */
static inline void
unhandled_counter_install(void)
{
    pthread_mutex_lock(&ts_unhandled_lock);
    atomic_store(&ts_unhandled_total, 0);
    memset(ts_unhandled_seen, 0, sizeof ts_unhandled_seen);
    pthread_mutex_unlock(&ts_unhandled_lock);
    vow_set_unhandled_error_handler(ts_unhandled_handler, NULL, NULL);
}

static inline void
unhandled_counter_reset(void)
{
    pthread_mutex_lock(&ts_unhandled_lock);
    atomic_store(&ts_unhandled_total, 0);
    memset(ts_unhandled_seen, 0, sizeof ts_unhandled_seen);
    pthread_mutex_unlock(&ts_unhandled_lock);
}

static inline int
unhandled_count(void)
{
    return atomic_load(&ts_unhandled_total);
}

/* How many recorded unhandled errors have this domain (and code, unless code < 0). */
static inline int
unhandled_count_matching(const char *domain, int64_t code)
{
    int n = 0;
    pthread_mutex_lock(&ts_unhandled_lock);
    int total = atomic_load(&ts_unhandled_total);
    for (int i = 0; i < total && i < TS_UNHANDLED_MAX; i++) {
        if (strcmp(ts_unhandled_seen[i].domain, domain) == 0 && (code < 0 || ts_unhandled_seen[i].code == code))
            n++;
    }
    pthread_mutex_unlock(&ts_unhandled_lock);
    return n;
}

/* ======================================================================
 * Misuse lines: a log for vow_set_misuse_handler
 * ====================================================================== */

/* What the library's misuse handler wrote: the first MISUSE_LOG_MAX lines (malloc'ed, freed
   by misuse_log_free), how many in all, and how many times the handler's destroy ran.
   Any thread may write to it (the lock). */
#define MISUSE_LOG_MAX 64
typedef struct misuse_log {
    pthread_mutex_t lock;
    char *lines[MISUSE_LOG_MAX];
    int count;
    atomic_int destroyed;
} misuse_log;

/* The handler: vow_set_misuse_handler(misuse_log_line, &log, misuse_log_destroy). */
static inline void
misuse_log_line(void *ctx, const char *line)
{
    misuse_log *log = ctx;
    pthread_mutex_lock(&log->lock);
    if (log->count < MISUSE_LOG_MAX) log->lines[log->count] = strdup(line);
    log->count++;
    pthread_mutex_unlock(&log->lock);
}

static inline void
misuse_log_destroy(void *ctx)
{
    atomic_fetch_add(&((misuse_log *)ctx)->destroyed, 1);
}

static inline void
misuse_log_init(misuse_log *log)
{
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->lock, NULL);
}

static inline void
misuse_log_free(misuse_log *log)
{
    int n = log->count < MISUSE_LOG_MAX ? log->count : MISUSE_LOG_MAX;
    for (int i = 0; i < n; i++) free(log->lines[i]);
    pthread_mutex_destroy(&log->lock);
}

/* Line i of the log, "" when there is none. */
static inline const char *
misuse_log_at(misuse_log *log, int i)
{
    return i >= 0 && i < log->count && i < MISUSE_LOG_MAX ? log->lines[i] : "";
}

static inline const char *
misuse_log_last(misuse_log *log)
{
    return misuse_log_at(log, log->count - 1);
}

/* ======================================================================
 * Program skeleton
 * ====================================================================== */

static inline void *
ts_watchdog(void *arg)
{
    double seconds = *(double *)arg;
    sleep_seconds(seconds);
    fprintf(stderr, "watchdog: %s still running after %.0f s, in %s\n", ts_program, seconds, ts_current_test);
    fflush(stderr);
    _exit(124);
    return NULL;
}

static inline void
ts_begin(const char *program)
{
    static double watchdog_seconds = 110;
    ts_program = program;
    ts_main_thread = pthread_self();
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *w = getenv("VOW_TEST_WATCHDOG");
    if (w != NULL && atof(w) > 0) watchdog_seconds = atof(w);
    pthread_t t;
    if (pthread_create(&t, NULL, ts_watchdog, &watchdog_seconds) == 0) pthread_detach(t);
}

static inline void
ts_run(const char *name, void (*fn)(void))
{
    long before = atomic_load(&ts_failures);
    double start = now_seconds();
    ts_current_test = name;
    fn();
    ts_current_test = "(teardown)";
    long failed = atomic_load(&ts_failures) - before;
    printf("  %s %s (%.3f s)\n", failed ? "FAIL" : "ok  ", name, now_seconds() - start);
}

static inline int
ts_end(void)
{
    ts_current_test = "track_check_all_once";
    track_check_all_once();
    long checks = atomic_load(&ts_checks), failures = atomic_load(&ts_failures);
    printf("%s: %ld checks, %ld failed\n", ts_program, checks, failures);
    printf("RESULT checks=%ld failures=%ld\n", checks, failures);
    fflush(stdout);
    fflush(stderr);
    return failures ? 1 : 0;
}

#define RUN_TEST(fn) ts_run(#fn, fn)
#define TEST_MAIN_BEGIN(name) \
    int main(void)            \
    {                         \
        ts_begin(name);
#define TEST_MAIN_END   \
    return ts_end();    \
    }

#endif /* VOW_TEST_SUPPORT_H */
