/*
 * uv_support.h: what the libuv test programs share, on top of Tests/C/test_support.h
 * (included first: checks, trackers, bounded waits, the watchdog).
 *
 *   test_loop              a uv_loop_t with a bound: an unreferenced timer that stops
 *                          the loop after ts_wait_seconds() (a failure).
 *   run_bounded(tl)        uv_run(UV_RUN_DEFAULT) within that bound, and nothing more.
 *   close_loop(tl)         runs the close callbacks still due, then CHECKs that
 *                          uv_loop_close returned 0 (if not, lists what is still open).
 *   ran_on(t, thread)      whether the tracked callback t ran, last on that thread.
 */
#ifndef VOW_UV_SUPPORT_H
#define VOW_UV_SUPPORT_H

#include "test_support.h"

#include <uv.h>

#include "vow_uv.h"

/* A loop with a bound: an unreferenced timer that stops it after ts_wait_seconds(). */
typedef struct test_loop {
    uv_loop_t loop;
    uv_timer_t guard;
    int fired;
} test_loop;

static void
ts_uv_guard_fired(uv_timer_t *timer)
{
    ((test_loop *)timer->data)->fired = 1;
    uv_stop(timer->loop);
}

static inline int
test_loop_init(test_loop *tl)
{
    memset(tl, 0, sizeof *tl);
    if (uv_loop_init(&tl->loop) != 0) return 0;
    uv_timer_init(&tl->loop, &tl->guard);
    tl->guard.data = tl;
    uv_unref((uv_handle_t *)&tl->guard); /* the bound keeps nothing alive */
    return 1;
}

/* uv_run(UV_RUN_DEFAULT) until the loop has nothing left to do, and nothing more (no extra
 * turn after it returns); 1 if it ended by itself within the bound. */
#define run_bounded(tl) ts_run_bounded((tl), __FILE__, __LINE__)
static inline int
ts_run_bounded(test_loop *tl, const char *file, int line)
{
    tl->fired = 0;
    uv_timer_start(&tl->guard, ts_uv_guard_fired, (uint64_t)(ts_wait_seconds() * 1000), 0);
    uv_run(&tl->loop, UV_RUN_DEFAULT);
    uv_timer_stop(&tl->guard);
    ts_check(!tl->fired, file, line, "the loop ended by itself within the wait bound");
    return !tl->fired;
}

/* Closes the guard, runs the close callbacks still due, closes the loop and CHECKs that
 * nothing was left open (else lists what was). */
#define close_loop(tl) ts_close_loop((tl), __FILE__, __LINE__)
static inline void
ts_close_loop(test_loop *tl, const char *file, int line)
{
    uv_close((uv_handle_t *)&tl->guard, NULL);
    uv_run(&tl->loop, UV_RUN_DEFAULT);
    int rc = uv_loop_close(&tl->loop);
    if (rc != 0) {
        fprintf(stderr, "uv_loop_close: %s; handles still there:\n", uv_strerror(rc));
        uv_print_all_handles(&tl->loop, stderr);
    }
    ts_check_int(rc, 0, file, line, "uv_loop_close(loop)", "0");
}

static inline int
ran_on(track *t, pthread_t thread)
{
    return atomic_load(&t->calls) > 0 && pthread_equal(t->thread, thread);
}

#endif /* VOW_UV_SUPPORT_H */
