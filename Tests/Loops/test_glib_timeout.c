/* test_glib_timeout.c: g_timeout_add as a promise step: after_ms(ms) fulfils from the
 * timeout's callback; callbacks chained on it with the dispatcher run in the loop, in time. */
#define _GNU_SOURCE
#include "glib_support.h"

typedef struct timeout_step {
    vow_resolver *resolver;
    double started;
} timeout_step;

static gboolean
timeout_fired(gpointer data)
{
    timeout_step *step = data;
    vow_value *elapsed = vow_value_double(now_seconds() - step->started);
    vow_resolver_fulfill(step->resolver, elapsed); /* in the loop's thread */
    vow_value_release(elapsed);
    vow_resolver_release(step->resolver);
    free(step);
    return G_SOURCE_REMOVE;
}

static guint last_id;             /* the source after_ms added last */
static timeout_step *last_step;

/* Returns (+1) a promise fulfilled (with the seconds it took) by g_timeout_add(ms). */
static vow_promise *
after_ms(guint ms)
{
    timeout_step *step = calloc(1, sizeof *step);
    if (step == NULL) return NULL;
    vow_promise *p = vow_promise_pending(&step->resolver);
    step->started = now_seconds();
    last_id = g_timeout_add(ms, timeout_fired, step);
    last_step = step;
    return p;
}

typedef struct chain_state {
    GMainLoop *loop;
    pthread_t loop_thread;
    int steps;
    int off_loop;
    double first_elapsed;
} chain_state;

static void
then_wait_again(void *ctx, const vow_value *value, vow_result *out)
{
    chain_state *s = ctx;
    if (!pthread_equal(pthread_self(), s->loop_thread)) s->off_loop++;
    s->steps++;
    vow_value_get_double(value, &s->first_elapsed);
    vow_promise *second = after_ms(30);
    vow_value *adopt = vow_value_promise(second); /* the next promise follows the second timeout */
    vow_result_return(out, adopt);
    vow_value_release(adopt);
    vow_promise_release(second);
}

static void
to_milliseconds_and_quit(void *ctx, const vow_value *value, vow_result *out)
{
    chain_state *s = ctx;
    if (!pthread_equal(pthread_self(), s->loop_thread)) s->off_loop++;
    s->steps++;
    double seconds = 0;
    vow_value_get_double(value, &seconds);
    vow_value *ms = vow_value_int((int64_t)(seconds * 1000));
    vow_result_return(out, ms);
    vow_value_release(ms);
    g_main_loop_quit(s->loop);
}

static gboolean
give_up(gpointer data)
{
    g_main_loop_quit(data);
    return G_SOURCE_REMOVE;
}

static void
test_timeout_steps(void)
{
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    vow_dispatcher *d = vow_glib_dispatcher_new(NULL);
    REQUIRE(d != NULL);
    chain_state s = {.loop = loop, .loop_thread = pthread_self()};
    double start = now_seconds();
    vow_promise *first = after_ms(20);
    vow_promise *second = vow_then_on(d, first, then_wait_again, NULL, &s, NULL);
    vow_promise *ms = vow_then_on(d, second, to_milliseconds_and_quit, NULL, &s, NULL);
    guint bound = g_timeout_add((guint)(ts_wait_seconds() * 1000), give_up, loop);
    g_main_loop_run(loop);
    g_source_remove(bound);
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
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_loop_unref(loop);
}

/* vow_timeout against a slow g_timeout_add: the time-out wins, the callback in the loop sees
 * VOW_ERROR_TIMEOUT and removes the slow timeout, whose promise was cancelled. */
typedef struct timeout_seen {
    GMainLoop *loop;
    track *t;
    guint slow_id;
    timeout_step *slow;
} timeout_seen;

static void
record_error_and_quit(void *ctx, const vow_error *error, vow_result *out)
{
    timeout_seen *ts = ctx;
    (void)out;
    track_hit(ts->t);
    ts->t->data = (void *)(intptr_t)vow_error_code(error);
    g_source_remove(ts->slow_id); /* no need to wait for it; the test releases its resolver */
    g_main_loop_quit(ts->loop);
}

static void
test_vow_timeout_beats_a_slow_timeout(void)
{
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    vow_dispatcher *d = vow_glib_dispatcher_new(NULL);
    REQUIRE(d != NULL);
    vow_promise *slow = after_ms(20000); /* far beyond any test run */
    timeout_seen ts = {.loop = loop, .t = track_new(), .slow_id = last_id, .slow = last_step};
    vow_promise *limited = vow_timeout(slow, 0.03);
    vow_promise *seen = vow_then_on(d, limited, NULL, record_error_and_quit, &ts, NULL);
    guint bound = g_timeout_add((guint)(ts_wait_seconds() * 1000), give_up, loop);
    g_main_loop_run(loop);
    g_source_remove(bound);
    CHECK_EQ_INT(track_calls(ts.t), 1);
    CHECK(ran_on(ts.t, pthread_self()));
    CHECK_EQ_INT((intptr_t)ts.t->data, VOW_ERROR_TIMEOUT);
    CHECK_EQ_INT(vow_promise_state(seen), VOW_FULFILLED);
    /* The time-out cancels the slow promise too (maybe a moment after rejecting). */
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(slow, ts_wait_seconds(), NULL, &e), VOW_REJECTED);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_resolver_release(ts.slow->resolver);
    free(ts.slow);
    track_destroy(ts.t);
    vow_promise_release(slow);
    vow_promise_release(limited);
    vow_promise_release(seen);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_loop_unref(loop);
}

TEST_MAIN_BEGIN("test_glib_timeout")
    RUN_TEST(test_timeout_steps);
    RUN_TEST(test_vow_timeout_beats_a_slow_timeout);
TEST_MAIN_END
