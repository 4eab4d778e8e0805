/*
 * main.c: a C host with its own event loop plugs it into Vow.
 *
 * Many C programs are built around one loop (poll, libuv, GLib) and want every callback
 * on that loop's thread, so their state needs no locks. vow_dispatcher_new turns the
 * loop into a dispatcher, and vow_set_default_dispatcher makes it the default: from then
 * on every callback registered without an explicit dispatcher runs on the loop, whichever
 * thread settles the promise (worker threads, Vow's timers, the background pool).
 *
 * The loop here is plain poll() on a pipe: submit() queues the job and writes one byte;
 * the loop wakes up and runs the queued jobs in order. A real host would poll its
 * sockets in the same call.
 *
 * Exits 0 when every default-dispatcher callback ran on the loop's thread.
 */
#define _POSIX_C_SOURCE 200809L   /* nanosleep, clock_gettime with -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vow.h>

/* ---- the event loop ---------------------------------------------------------------- */

typedef struct item {
    vow_job run;
    void *job;
} item;

typedef struct loop {
    pthread_mutex_t lock;   /* guards items and count; never held while a job runs */
    item *items;
    size_t count, capacity;
    int wake[2];            /* a pipe: submit writes a byte, the loop polls the read end */
    pthread_t thread;       /* the thread that runs the loop */
    int stop;               /* set by a callback, on the loop thread */
} loop;

/* Vow calls this from any thread. It must not run the job here: only queue it and wake
   the loop, which runs it later, in submission order. */
static void loop_submit(void *ctx, vow_job run, void *job) {
    loop *l = ctx;
    pthread_mutex_lock(&l->lock);
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 64;
        item *grown = realloc(l->items, capacity * sizeof *grown);
        if (grown == NULL) abort();   /* a sketch: a real host would handle this */
        l->items = grown;
        l->capacity = capacity;
    }
    l->items[l->count++] = (item){run, job};
    pthread_mutex_unlock(&l->lock);
    /* The write end is non-blocking: when the pipe is full, bytes already in it will
       wake the loop anyway. */
    ssize_t written;
    do written = write(l->wake[1], "!", 1); while (written < 0 && errno == EINTR);
}

/* Runs until a callback sets stop and nothing is queued, or until `seconds` pass. */
static int loop_run(loop *l, double seconds) {
    l->thread = pthread_self();
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        struct pollfd fds[1] = {{.fd = l->wake[0], .events = POLLIN}};
        poll(fds, 1, 100);                          /* a real loop polls its sockets here too */
        char drain[64];
        if (fds[0].revents & POLLIN) {
            ssize_t got = read(l->wake[0], drain, sizeof drain);   /* the bytes carry no data */
            (void)got;
        }

        for (;;) {                                  /* run what is queued, in order */
            pthread_mutex_lock(&l->lock);
            if (l->count == 0) {
                pthread_mutex_unlock(&l->lock);
                break;
            }
            item next = l->items[0];
            memmove(l->items, l->items + 1, (l->count - 1) * sizeof *l->items);
            l->count--;
            pthread_mutex_unlock(&l->lock);
            next.run(next.job);                     /* exactly once, outside the lock */
        }
        if (l->stop) return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 > seconds)
            return -1;
    }
}

/* ---- the program's work -------------------------------------------------------------- */

static loop the_loop = {.lock = PTHREAD_MUTEX_INITIALIZER};
static atomic_int on_loop, off_loop;   /* default-dispatcher callbacks, by thread */
static int64_t total;                  /* touched on the loop thread only: no lock */

/* Every default-dispatcher callback starts here. */
static void check_thread(const char *who) {
    if (pthread_equal(pthread_self(), the_loop.thread)) {
        atomic_fetch_add(&on_loop, 1);
    } else {
        atomic_fetch_add(&off_loop, 1);
        printf("  %s ran off the loop!\n", who);
    }
}

/* A worker thread: produces a number after a while and settles the promise from there. */
typedef struct work {
    vow_resolver *resolver;
    int64_t value;
    int delay_ms;
} work;

static void *worker(void *arg) {
    work *w = arg;
    struct timespec pause = {0, (long)w->delay_ms * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (w->value >= 0) {
        vow_value *v = vow_value_int(w->value);
        vow_resolver_fulfill(w->resolver, v);
        vow_value_release(v);
    } else {
        vow_error *e = vow_error_new("worker", w->value, "the sensor did not answer");
        vow_resolver_reject(w->resolver, e);
        vow_error_release(e);
    }
    return NULL;
}

static void add_value(void *ctx, const vow_value *value, vow_result *out) {
    check_thread(ctx);
    int64_t n = 0;
    vow_value_get_int(value, &n);
    total += n;                    /* no lock: only the loop thread runs this */
    printf("  %s: %lld (running total %lld)\n", (const char *)ctx, (long long)n, (long long)total);
    vow_result_return(out, value);
}

static void report_error(void *ctx, const vow_error *error, vow_result *out) {
    check_thread(ctx);
    printf("  %s: caught %s %lld: %s\n", (const char *)ctx, vow_error_domain(error),
           (long long)vow_error_code(error), vow_error_message(error));
    (void)out;
}

/* On the background pool, on purpose: a CPU-heavy step that should not block the loop. */
static void square_off_loop(void *ctx, const vow_value *value, vow_result *out) {
    int64_t n = 0;
    vow_value_get_int(value, &n);
    vow_value *squared = vow_value_int(n * n);
    vow_result_return(out, squared);
    vow_value_release(squared);
    *(int *)ctx = !pthread_equal(pthread_self(), the_loop.thread);
}

static void timer_fired(void *ctx, const vow_value *value, vow_result *out) {
    check_thread(ctx);
    printf("  %s: the 50 ms timer fired\n", (const char *)ctx);
    (void)value;
    (void)out;
}

/* A callback on the loop must not block the loop. vow_wait notices a wait that could
   never end (the awaited callback is queued behind this one, on this same loop) and
   returns at once with VOW_DEADLOCK (and a VOW_ERROR_DEADLOCK error) instead of hanging. */
static int deadlock_seen;
static void try_to_block(void *ctx, const vow_value *value, vow_result *out) {
    check_thread(ctx);
    vow_promise *p = vow_promise_fulfilled(value);
    vow_promise *queued_behind_me = vow_then(p, NULL, NULL, NULL, NULL);
    vow_error *error = NULL;
    vow_state state = vow_wait(queued_behind_me, 5.0, NULL, &error);
    deadlock_seen = state == VOW_DEADLOCK && vow_error_code(error) == VOW_ERROR_DEADLOCK;
    printf("  %s: vow_wait on the loop returned at once: %s\n", (const char *)ctx,
           deadlock_seen ? "VOW_ERROR_DEADLOCK" : "something else");
    vow_error_release(error);
    vow_promise_release(queued_behind_me);
    vow_promise_release(p);
    (void)out;
}

static void all_done(void *ctx) {
    check_thread(ctx);
    the_loop.stop = 1;             /* the loop returns once its queue is empty */
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("libvow %s: a poll() loop as Vow's default dispatcher\n", vow_version());
    if (pipe(the_loop.wake) != 0) return 1;
    fcntl(the_loop.wake[1], F_SETFL, O_NONBLOCK);
    the_loop.thread = pthread_self();

    /* Plug the loop in. The dispatcher holds ctx; destroy (none here) would run when its
       last reference goes. */
    vow_dispatcher *d = vow_dispatcher_new(loop_submit, &the_loop, NULL);
    vow_set_default_dispatcher(d);

    /* Two sensors on worker threads, one of which fails. */
    vow_resolver *r1, *r2;
    vow_promise *sensor1 = vow_promise_pending(&r1);
    vow_promise *sensor2 = vow_promise_pending(&r2);
    work w1 = {r1, 7, 10}, w2 = {r2, -5, 20};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, worker, &w1);
    pthread_create(&t2, NULL, worker, &w2);

    /* sensor1: squared on the background pool (an explicit dispatcher), then back on
       the loop (the default). */
    int squared_off_loop = 0;
    vow_promise *squared = vow_then_on(vow_dispatcher_background(), sensor1, square_off_loop, NULL,
                                       &squared_off_loop, NULL);
    vow_promise *first = vow_then(squared, add_value, NULL, "sensor 1 squared", NULL);

    /* sensor2 fails: the error is caught on the loop. */
    vow_promise *second = vow_catch(sensor2, report_error, "sensor 2", NULL);

    /* A Vow timer: it fires on Dispatch's queue, its callback runs on the loop. */
    vow_promise *timer = vow_after(0.05);
    vow_promise *ticked = vow_then(timer, timer_fired, NULL, "timer", NULL);

    /* A callback that tries to block the loop. */
    vow_value *one = vow_value_int(1);
    vow_promise *ready = vow_promise_fulfilled(one);
    vow_promise *blocked = vow_then(ready, try_to_block, NULL, "blocking attempt", NULL);

    /* When all four are done, stop the loop. */
    vow_promise *parts[] = {first, second, ticked, blocked};
    vow_promise *joined = vow_join(parts, 4);
    vow_promise *finished = vow_finally(joined, all_done, "finally", NULL);

    int rc = loop_run(&the_loop, 10.0);   /* every callback above runs in here */

    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("%d callbacks ran on the loop thread, %d elsewhere; the squaring ran %s\n",
           atomic_load(&on_loop), atomic_load(&off_loop),
           squared_off_loop ? "on the background pool" : "on the loop (unexpected)");

    /* Unplug: the library's own queue is the default again, then drop our dispatcher. */
    vow_set_default_dispatcher(NULL);
    vow_dispatcher_release(d);
    vow_promise *mine[] = {sensor1, sensor2, squared, first, second, timer, ticked, ready, blocked,
                           joined, finished};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) vow_promise_release(mine[i]);
    vow_value_release(one);
    vow_resolver_release(r1);
    vow_resolver_release(r2);
    close(the_loop.wake[0]);
    close(the_loop.wake[1]);
    free(the_loop.items);

    int ok = rc == 0 && atomic_load(&off_loop) == 0 && atomic_load(&on_loop) == 5 && total == 49 &&
             squared_off_loop && deadlock_seen;
    printf(ok ? "event loop: ok\n" : "event loop: FAILED\n");
    return ok ? 0 : 1;
}
