/* test_glib_dispatch.c: vow_glib_dispatcher_new: jobs run in the context's thread, in
 * submission order, only when the context is iterated, and leave its other sources room. */
#define _GNU_SOURCE
#include "glib_support.h"

#define FIFO_N 100

/* A loop on its own thread and context: callbacks registered here run over there, in order. */
static void
test_jobs_run_in_order_in_the_loop_thread(void)
{
    loop_thread lt;
    REQUIRE(loop_thread_start(&lt));
    vow_dispatcher *d = vow_glib_dispatcher_new(lt.ctx);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(5);
    vow_promise *p = vow_promise_fulfilled(v);
    track *t[FIFO_N];
    vow_promise *ds[FIFO_N];
    for (int i = 0; i < FIFO_N; i++) {
        t[i] = track_new();
        ds[i] = vow_then_on(d, p, track_on_value_pass, NULL, t[i], track_destroy);
        CHECK_NOT_NULL(ds[i]);
    }
    int in_order = 1, there = 1;
    for (int i = 0; i < FIFO_N; i++) {
        CHECK_EQ_INT(wait_promise(ds[i], NULL, NULL), VOW_FULFILLED);
        CHECK_EQ_INT(track_calls(t[i]), 1);
        if (!ran_on(t[i], lt.thread)) there = 0;
        if (i > 0 && atomic_load(&t[i]->order) <= atomic_load(&t[i - 1]->order)) in_order = 0;
    }
    CHECK(there);
    CHECK(in_order);
    for (int i = 0; i < FIFO_N; i++) vow_promise_release(ds[i]);
    vow_promise_release(p);
    vow_value_release(v);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    loop_thread_stop(&lt);
    loop_thread_free(&lt);
}

/* NULL is the default context: nothing runs until this thread iterates it. */
static void
test_default_context_runs_when_iterated(void)
{
    vow_dispatcher *d = vow_glib_dispatcher_new(NULL);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_promise *dp = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    flush_default();
    sleep_seconds(0.01);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK(g_main_context_pending(NULL)); /* the source is ready */
    CHECK(iterate_until(NULL, &t->calls, 1));
    CHECK(ran_on(t, pthread_self()));
    CHECK_EQ_INT(vow_promise_state(dp), VOW_FULFILLED);
    drain_context(NULL);
    CHECK(!g_main_context_pending(NULL)); /* idle again: the source is not ready */
    vow_promise_release(dp);
    vow_promise_release(p);
    vow_value_release(v);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
}

static void
dispatch_fn(void *ctx, const vow_value *value, vow_result *out)
{
    track_hit(ctx);
    CHECK_NULL(value);
    vow_value *r = vow_value_string("in the context");
    vow_result_return(out, r);
    vow_value_release(r);
}

static void
test_dispatch(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, dispatch_fn, t, track_destroy);
    REQUIRE(p != NULL);
    CHECK(iterate_until(ctx, &t->calls, 1));
    CHECK(ran_on(t, pthread_self()));
    CHECK_DESTROYED_ONCE(t);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_STR(vow_value_get_string(got), "in the context");
    vow_value_release(got);
    vow_promise_release(p);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
}

/* A chain that keeps queueing work leaves an idle source of the same priority its turns. */
typedef struct relay {
    vow_dispatcher *d;
    atomic_int steps;
    int target;
    int turns;
    vow_promise *last;
} relay;

static void relay_step(void *ctx, const vow_value *value, vow_result *out);

static void
relay_next(relay *r)
{
    vow_promise_release(r->last);
    r->last = vow_dispatch(r->d, relay_step, r, NULL);
}

static void
relay_step(void *ctx, const vow_value *value, vow_result *out)
{
    relay *r = ctx;
    (void)value;
    (void)out;
    if (atomic_fetch_add(&r->steps, 1) + 1 < r->target) relay_next(r);
}

static gboolean
count_turn(gpointer data)
{
    ((relay *)data)->turns++;
    return G_SOURCE_CONTINUE;
}

static void
test_a_busy_chain_does_not_starve_the_context(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    relay r = {.d = d, .target = 200};
    GSource *idle = g_idle_source_new();
    g_source_set_priority(idle, G_PRIORITY_DEFAULT);
    g_source_set_callback(idle, count_turn, &r, NULL);
    g_source_attach(idle, ctx);
    relay_next(&r);
    CHECK(iterate_until(ctx, &r.steps, r.target));
    CHECK(r.turns >= r.target / 2);
    g_source_destroy(idle);
    g_source_unref(idle);
    vow_promise_release(r.last);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
}

static void
test_bad_arguments(void)
{
    CHECK_EQ_INT(vow_glib_dispatcher_close(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_dispatcher_close(vow_dispatcher_default()), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_dispatcher_close(vow_dispatcher_inline()), VOW_EINVAL);
    host_queue *q = host_queue_new();
    vow_dispatcher *host = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    CHECK_EQ_INT(vow_glib_dispatcher_close(host), VOW_EINVAL);
    vow_dispatcher_release(host);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

TEST_MAIN_BEGIN("test_glib_dispatch")
    RUN_TEST(test_jobs_run_in_order_in_the_loop_thread);
    RUN_TEST(test_default_context_runs_when_iterated);
    RUN_TEST(test_dispatch);
    RUN_TEST(test_a_busy_chain_does_not_starve_the_context);
    RUN_TEST(test_bad_arguments);
TEST_MAIN_END
