/* test_uv_timer.c: a uv_timer_t as a promise step: after_ms(loop, ms) fulfils from the
 * timer's callback; callbacks chained on it with the dispatcher run on the loop, in time. */
#define _GNU_SOURCE
#include "uv_support.h"

/* A timer whose firing fulfils a promise with the time it took (a DOUBLE, seconds). */
typedef struct timer_step {
    uv_timer_t timer;
    vow_resolver *resolver;
    double started;
} timer_step;

static void
timer_step_closed(uv_handle_t *handle)
{
    free(handle->data);
}

static void
timer_step_fired(uv_timer_t *timer)
{
    timer_step *step = timer->data;
    vow_value *elapsed = vow_value_double(now_seconds() - step->started);
    vow_resolver_fulfill(step->resolver, elapsed); /* on the loop thread */
    vow_value_release(elapsed);
    vow_resolver_release(step->resolver);
    uv_close((uv_handle_t *)timer, timer_step_closed);
}

static timer_step *last_step; /* the step after_ms made last */

/* Returns (+1) a promise fulfilled by a timer on loop after ms milliseconds. Loop thread. */
static vow_promise *
after_ms(uv_loop_t *loop, uint64_t ms)
{
    timer_step *step = calloc(1, sizeof *step);
    if (step == NULL) return NULL;
    vow_promise *p = vow_promise_pending(&step->resolver);
    uv_update_time(loop); /* the timer counts from now, not from the loop's cached time */
    step->started = now_seconds();
    uv_timer_init(loop, &step->timer);
    step->timer.data = step;
    uv_timer_start(&step->timer, timer_step_fired, ms, 0);
    last_step = step;
    return p;
}

typedef struct chain_state {
    uv_loop_t *loop;
    pthread_t loop_thread;
    int steps;
    int off_loop;
    double first_elapsed;
} chain_state;

/* Step 1: records the first timer, then returns the promise of a second timer (adopted). */
static void
then_wait_again(void *ctx, const vow_value *value, vow_result *out)
{
    chain_state *s = ctx;
    if (!pthread_equal(pthread_self(), s->loop_thread)) s->off_loop++;
    s->steps++;
    vow_value_get_double(value, &s->first_elapsed);
    vow_promise *second = after_ms(s->loop, 30);
    vow_value *adopt = vow_value_promise(second);
    vow_result_return(out, adopt);
    vow_value_release(adopt);
    vow_promise_release(second);
}

/* Step 2: the second timer's elapsed time, doubled into milliseconds as an INT. */
static void
to_milliseconds(void *ctx, const vow_value *value, vow_result *out)
{
    chain_state *s = ctx;
    if (!pthread_equal(pthread_self(), s->loop_thread)) s->off_loop++;
    s->steps++;
    double seconds = 0;
    vow_value_get_double(value, &seconds);
    vow_value *ms = vow_value_int((int64_t)(seconds * 1000));
    vow_result_return(out, ms);
    vow_value_release(ms);
}

static void
test_timer_steps(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    chain_state s = {.loop = &tl.loop, .loop_thread = pthread_self()};
    double start = now_seconds();
    vow_promise *first = after_ms(&tl.loop, 20);
    vow_promise *second = vow_then_on(d, first, then_wait_again, NULL, &s, NULL);
    vow_promise *ms = vow_then_on(d, second, to_milliseconds, NULL, &s, NULL);
    CHECK_EQ_INT(vow_promise_state(ms), VOW_PENDING);
    CHECK(run_bounded(&tl)); /* the timers keep the loop alive; the jobs keep it until they ran */
    double total = now_seconds() - start;
    CHECK_EQ_INT(s.steps, 2);
    CHECK_EQ_INT(s.off_loop, 0);
    CHECK(s.first_elapsed >= 0.019);
    CHECK(total >= 0.049);
    CHECK_EQ_INT(vow_promise_state(ms), VOW_FULFILLED);
    vow_value *v = vow_promise_value(ms);
    int64_t second_ms = 0;
    CHECK_EQ_INT(vow_value_get_int(v, &second_ms), VOW_OK);
    CHECK(second_ms >= 29);
    vow_value_release(v);
    vow_promise_release(first);
    vow_promise_release(second);
    vow_promise_release(ms);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

/* vow_timeout against a uv timer: the Vow time-out wins over a slow timer, and the promise
 * of the timer is cancelled; the callback on the loop sees the time-out error and stops the
 * slow timer (no need to wait for it). */
typedef struct timeout_seen {
    track *t;
    timer_step *slow;
} timeout_seen;

static void
slow_step_closed(uv_handle_t *handle)
{
    (void)handle; /* the test releases the step's resolver and frees it */
}

static void
record_error(void *ctx, const vow_error *error, vow_result *out)
{
    timeout_seen *seen = ctx;
    track_hit(seen->t);
    seen->t->data = (void *)(intptr_t)vow_error_code(error);
    uv_timer_stop(&seen->slow->timer);
    uv_close((uv_handle_t *)&seen->slow->timer, slow_step_closed);
    (void)out; /* handled: the next promise fulfils */
}

static void
test_timeout_beats_a_slow_timer(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_promise *slow = after_ms(&tl.loop, 20000); /* far beyond any test run */
    timeout_seen seen = {.t = track_new(), .slow = last_step};
    vow_promise *limited = vow_timeout(slow, 0.03);
    vow_promise *handled = vow_then_on(d, limited, NULL, record_error, &seen, NULL);
    CHECK(run_bounded(&tl)); /* the slow timer keeps the loop alive until record_error closes it */
    CHECK_EQ_INT(track_calls(seen.t), 1);
    CHECK(ran_on(seen.t, pthread_self()));
    CHECK_EQ_INT((intptr_t)seen.t->data, VOW_ERROR_TIMEOUT);
    CHECK_EQ_INT(vow_promise_state(handled), VOW_FULFILLED);
    /* The time-out cancels the timer's promise too (maybe a moment after rejecting). */
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(slow, ts_wait_seconds(), NULL, &e), VOW_REJECTED);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_resolver_release(seen.slow->resolver);
    free(seen.slow);
    track_destroy(seen.t);
    vow_promise_release(slow);
    vow_promise_release(limited);
    vow_promise_release(handled);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

TEST_MAIN_BEGIN("test_uv_timer")
    RUN_TEST(test_timer_steps);
    RUN_TEST(test_timeout_beats_a_slow_timer);
TEST_MAIN_END
