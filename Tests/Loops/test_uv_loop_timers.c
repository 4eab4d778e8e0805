/* test_uv_loop_timers.c: the libuv dispatcher times the library's timers with the loop
 * (issue 33 item 1, vow_dispatcher_new_with_timers): vow_after, vow_timeout and vow_delay
 * on a loop's dispatcher fire from a uv_timer_t on the loop's thread at the loop's time; a
 * timer no longer needed is stopped and closed at once; closing the dispatcher with a timer
 * armed cancels its promise and leaves nothing open (valgrind, ASan: nothing leaks). */
#define _GNU_SOURCE
#include "uv_support.h"

/* Counts the loop's timer handles still active, besides the test loop's guard. */
static void
count_timer(uv_handle_t *h, void *arg)
{
    if (h->type == UV_TIMER && uv_is_active(h)) (*(int *)arg)++;
}

static int
active_timers(test_loop *tl)
{
    int n = 0;
    uv_walk(&tl->loop, count_timer, &n);
    return n - (uv_is_active((uv_handle_t *)&tl->guard) ? 1 : 0);
}

typedef struct fired {
    test_loop *tl;
    pthread_t thread;
    uint64_t loop_ms;  /* uv_now when the promise settled */
    int calls;
} fired;

/* Inline: runs where the promise settles, i.e. in the timer's callback. */
static void
note_settled(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    fired *f = ctx;
    f->thread = pthread_self();
    f->loop_ms = uv_now(&f->tl->loop);
    f->calls++;
}

static void
test_after_fires_from_the_loop(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    uv_update_time(&tl.loop);
    uint64_t start = uv_now(&tl.loop);
    vow_promise *after = vow_after(0.05);
    fired f = {&tl, 0, 0, 0};
    vow_promise *seen = vow_then_on(vow_dispatcher_inline(), after, note_settled, NULL, &f, NULL);
    /* The armed uv_timer_t keeps uv_run going until it fires, as any timer does: no hold. */
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(after), VOW_FULFILLED);
    CHECK_EQ_INT(f.calls, 1);
    CHECK(pthread_equal(f.thread, pthread_self())); /* the loop's thread */
    /* At the loop's time, never early (uv_now truncates to whole milliseconds: 1 ms slack). */
    CHECK(f.loop_ms - start >= 49);
    CHECK_EQ_INT(active_timers(&tl), 0);
    vow_promise_release(seen);
    vow_promise_release(after);

    /* vow_delay: the value, later, by the loop's clock too. */
    vow_value *seven = vow_value_int(7);
    vow_promise *now = vow_promise_fulfilled(seven);
    vow_value_release(seven);
    uv_update_time(&tl.loop);
    start = uv_now(&tl.loop); /* before vow_delay: the pause counts from the call */
    vow_promise *later = vow_delay(now, 0.02);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(later), VOW_FULFILLED);
    CHECK(uv_now(&tl.loop) - start >= 19);
    vow_promise_release(later);
    vow_promise_release(now);

    vow_set_default_dispatcher(NULL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

static void
test_timeout_on_the_loop(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);

    /* A promise that never settles times out at the loop's time. */
    vow_resolver *r = NULL;
    vow_promise *never = vow_promise_pending(&r);
    uv_update_time(&tl.loop);
    uint64_t start = uv_now(&tl.loop);
    vow_promise *limited = vow_timeout(never, 0.03);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(limited), VOW_REJECTED);
    vow_error *e = vow_promise_error(limited);
    CHECK(e != NULL && vow_error_code(e) == VOW_ERROR_TIMEOUT);
    vow_error_release(e);
    CHECK(uv_now(&tl.loop) - start >= 29);
    vow_promise_release(limited);

    /* A promise that settles first: the timeout's uv_timer_t is stopped and closed, so the
       loop ends now, not an hour later, and no timer is left. */
    vow_resolver *r2 = NULL;
    vow_promise *quick = vow_promise_pending(&r2);
    vow_promise *hour = vow_timeout(quick, 3600);
    CHECK_EQ_INT(uv_run(&tl.loop, UV_RUN_NOWAIT) >= 0, 1); /* the arm job runs: the timer starts */
    CHECK_EQ_INT(active_timers(&tl), 1);
    vow_value *one = vow_value_int(1);
    vow_resolver_fulfill(r2, one);
    vow_value_release(one);
    double t0 = now_seconds();
    CHECK(run_bounded(&tl));
    CHECK(now_seconds() - t0 < 5);
    CHECK_EQ_INT(vow_promise_state(hour), VOW_FULFILLED);
    CHECK_EQ_INT(active_timers(&tl), 0);
    vow_promise_release(hour);
    vow_promise_release(quick);
    vow_resolver_release(r2);

    vow_set_default_dispatcher(NULL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    vow_cancel(never);
    vow_promise_release(never);
    vow_resolver_release(r);
    close_loop(&tl);
}

static void
test_close_with_a_timer_armed(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    vow_promise *hour = vow_after(3600);
    uv_run(&tl.loop, UV_RUN_NOWAIT); /* armed */
    CHECK_EQ_INT(active_timers(&tl), 1);
    vow_set_default_dispatcher(NULL);
    /* Closing drops the armed timer: its promise is cancelled, the uv_timer_t closed. */
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(hour), VOW_REJECTED);
    vow_error *e = vow_promise_error(hour);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    CHECK_EQ_INT(active_timers(&tl), 0);
    vow_promise_release(hour);
    vow_dispatcher_release(d);
    close_loop(&tl); /* uv_loop_close returns 0: nothing left open */
}

TEST_MAIN_BEGIN("test_uv_loop_timers")
    RUN_TEST(test_after_fires_from_the_loop);
    RUN_TEST(test_timeout_on_the_loop);
    RUN_TEST(test_close_with_a_timer_armed);
TEST_MAIN_END
