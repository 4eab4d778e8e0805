/* test_test_loop_edges.c: the edges of vow_testing.h found in issue 32: a clock that
   reaches any finite time, a loop released from inside one of its own jobs, vow_wait on
   a promise that needs the installed loop. */
#define VOW_NO_NONNULL
#include "test_support.h"

#include <pthread.h>

#include "vow_testing.h"

static vow_test_loop *
installed_loop(void)
{
    vow_test_loop *l = vow_test_loop_new(0);
    if (l == NULL) abort();
    CHECK_EQ_INT(vow_test_loop_install(l), VOW_OK);
    return l;
}

static int64_t
error_code(vow_promise *p)
{
    vow_error *e = vow_promise_error(p);
    int64_t code = e ? vow_error_code(e) : -1;
    vow_error_release(e);
    return code;
}

/* ---- the clock reaches any finite time (it stopped at 2^63 ns, some 292 years) ---- */

static void
test_clock_reaches_any_finite_time(void)
{
    vow_test_loop *l = installed_loop();
    vow_promise *centuries = vow_after(1e10);       /* 317 years: a time, not "never" */
    vow_promise *far = vow_after(1e300);
    vow_promise *never = vow_after(INFINITY);
    CHECK_EQ_INT(vow_test_loop_advance(l, 1e10 - 1), 0);
    CHECK_EQ_INT(vow_promise_state(centuries), VOW_PENDING);
    CHECK_EQ_INT(vow_test_loop_advance(l, 1), 1);
    CHECK_EQ_INT(vow_promise_state(centuries), VOW_FULFILLED);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 1e10);
    /* +infinity fires every timer, however far: the 1e300-second one too. */
    CHECK_EQ_INT(vow_test_loop_advance(l, INFINITY), 1);
    CHECK_EQ_INT(vow_promise_state(far), VOW_FULFILLED);
    CHECK(vow_test_loop_now(l) > 1e20);
    /* Only +infinity means never. */
    CHECK_EQ_INT(vow_promise_state(never), VOW_PENDING);
    vow_cancel(never);
    vow_promise_release(centuries);
    vow_promise_release(far);
    vow_promise_release(never);
    vow_test_loop_release(l);
}

/* ---- a loop released from inside one of its own jobs stops at once ---- */

static int behind_ran;

static void
release_the_loop(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    vow_test_loop_release(ctx);
}

static void
mark_behind(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    (void)value;
    (void)out;
    behind_ran = 1;
}

static void
test_release_from_own_job(void)
{
    vow_test_loop *l = installed_loop();
    vow_value *null = vow_value_null();
    vow_promise *start = vow_promise_fulfilled(null);
    vow_value_release(null);
    vow_promise *releasing = vow_then(start, release_the_loop, NULL, l, NULL);
    vow_promise *behind = vow_then(start, mark_behind, NULL, NULL, NULL);
    vow_promise *timer = vow_after(1);
    vow_promise *timer_after = vow_then(timer, mark_behind, NULL, NULL, NULL);
    behind_ran = 0;
    /* The first job releases the loop: the job queued behind it is dropped (its promise
       cancelled), the timer never fires (its promise cancelled), and the advance ends. */
    CHECK_EQ_INT(vow_test_loop_advance(l, 5), 1);
    CHECK_EQ_INT(behind_ran, 0);
    CHECK_EQ_INT(vow_promise_state(releasing), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(behind), VOW_REJECTED);
    CHECK_EQ_INT(error_code(behind), VOW_ERROR_CANCELLED);
    CHECK_EQ_INT(vow_promise_state(timer), VOW_REJECTED);
    CHECK_EQ_INT(error_code(timer), VOW_ERROR_CANCELLED);
    /* The loop is gone from this thread: the default is the library's queue again. */
    vow_promise *after = vow_then(start, mark_behind, NULL, NULL, NULL);
    CHECK_EQ_INT(vow_wait(after, 10, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(behind_ran, 1);
    vow_promise_release(after);
    vow_promise_release(timer_after);
    vow_promise_release(timer);
    vow_promise_release(behind);
    vow_promise_release(releasing);
    vow_promise_release(start);
}

/* ---- vow_wait on a promise that needs the installed loop ---- */

static void *
advance_later(void *l)
{
    usleep(50 * 1000);
    vow_test_loop_advance(l, 1);
    return NULL;
}

static void
test_wait_on_a_promise_that_needs_the_loop(void)
{
    vow_test_loop *l = installed_loop();
    vow_promise *tick = vow_after(1);
    /* Nothing runs the loop while this thread waits: the wait ends with its time. */
    CHECK_EQ_INT(vow_wait(tick, 0.05, NULL, NULL), VOW_PENDING);
    CHECK_EQ_INT(vow_promise_state(tick), VOW_PENDING);
    /* With no limit it waits for whoever runs the loop: here another thread. */
    pthread_t other;
    CHECK_EQ_INT(pthread_create(&other, NULL, advance_later, l), 0);
    CHECK_EQ_INT(vow_wait(tick, -1, NULL, NULL), VOW_FULFILLED);
    pthread_join(other, NULL);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 1);
    vow_promise_release(tick);
    vow_test_loop_release(l);
}

TEST_MAIN_BEGIN("test_test_loop_edges")
    RUN_TEST(test_clock_reaches_any_finite_time);
    RUN_TEST(test_release_from_own_job);
    RUN_TEST(test_wait_on_a_promise_that_needs_the_loop);
TEST_MAIN_END
