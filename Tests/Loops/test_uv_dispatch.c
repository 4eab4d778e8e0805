/* test_uv_dispatch.c: vow_uv_dispatcher_new: jobs run on the loop thread, in order, and
 * keep the loop alive only while they are queued. */
#define _GNU_SOURCE
#include "uv_support.h"

#define FIFO_N 100

/* Jobs queued before uv_run run inside it, on this thread, in submission order, and
 * uv_run(UV_RUN_DEFAULT) returns once they ran. */
static void
test_jobs_run_in_order_on_the_loop_thread(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(3);
    vow_promise *p = vow_promise_fulfilled(v);
    track *t[FIFO_N];
    vow_promise *ds[FIFO_N];
    for (int i = 0; i < FIFO_N; i++) {
        t[i] = track_new();
        ds[i] = vow_then_on(d, p, track_on_value_pass, NULL, t[i], track_destroy);
        CHECK_NOT_NULL(ds[i]);
    }
    /* Nothing runs until the loop runs. */
    flush_default();
    int early = 0;
    for (int i = 0; i < FIFO_N; i++) early += track_calls(t[i]);
    CHECK_EQ_INT(early, 0);
    CHECK(uv_loop_alive(&tl.loop)); /* queued jobs keep the loop alive */

    CHECK(run_bounded(&tl));
    int in_order = 1, on_main = 1, once = 1;
    for (int i = 0; i < FIFO_N; i++) {
        if (track_calls(t[i]) != 1) once = 0;
        if (!ran_on(t[i], pthread_self())) on_main = 0;
        if (i > 0 && atomic_load(&t[i]->order) <= atomic_load(&t[i - 1]->order)) in_order = 0;
        CHECK_EQ_INT(vow_promise_state(ds[i]), VOW_FULFILLED);
    }
    CHECK(once);
    CHECK(on_main);
    CHECK(in_order);
    /* Idle again: the dispatcher keeps nothing alive. */
    CHECK(!uv_loop_alive(&tl.loop));

    for (int i = 0; i < FIFO_N; i++) vow_promise_release(ds[i]);
    vow_promise_release(p);
    vow_value_release(v);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    CHECK(run_bounded(&tl));
    close_loop(&tl);
}

/* An idle dispatcher does not keep uv_run(UV_RUN_DEFAULT) from returning. */
static void
test_idle_dispatcher_keeps_nothing_alive(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    CHECK(!uv_loop_alive(&tl.loop));
    double start = now_seconds();
    CHECK_EQ_INT(uv_run(&tl.loop, UV_RUN_DEFAULT), 0);
    CHECK(now_seconds() - start < 1.0);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    CHECK(run_bounded(&tl));
    close_loop(&tl);
}

static void
dispatch_fn(void *ctx, const vow_value *value, vow_result *out)
{
    track_hit(ctx);
    CHECK_NULL(value);
    vow_value *r = vow_value_string("on the loop");
    vow_result_return(out, r);
    vow_value_release(r);
}

/* vow_dispatch on the dispatcher: fn runs inside uv_run and its result settles the promise. */
static void
test_dispatch(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, dispatch_fn, t, track_destroy);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(ran_on(t, pthread_self()));
    CHECK_EQ_INT(track_destroyed(t), 1);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_STR(vow_value_get_string(got), "on the loop");
    vow_value_release(got);
    vow_promise_release(p);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    CHECK(run_bounded(&tl));
    close_loop(&tl);
}

/* A promise settled in the close callback of the loop's last handle: its job is queued in
 * the loop's last phase, and uv_run still runs it before returning. */
typedef struct close_settle {
    vow_resolver *r;
    uv_timer_t timer;
} close_settle;

static void
settle_in_close_cb(uv_handle_t *handle)
{
    close_settle *cs = handle->data;
    vow_value *v = vow_value_int(42);
    CHECK_EQ_INT(vow_resolver_fulfill(cs->r, v), VOW_OK);
    vow_value_release(v);
}

static void
timer_closes_itself(uv_timer_t *timer)
{
    uv_close((uv_handle_t *)timer, settle_in_close_cb);
}

static void
test_job_from_last_close_callback_runs(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    close_settle cs;
    vow_promise *p = vow_promise_pending(&cs.r);
    track *t = track_new();
    vow_promise *dp = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    uv_timer_init(&tl.loop, &cs.timer);
    cs.timer.data = &cs;
    uv_timer_start(&cs.timer, timer_closes_itself, 5, 0);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(ran_on(t, pthread_self()));
    CHECK_EQ_INT(vow_promise_state(dp), VOW_FULFILLED);
    vow_promise_release(dp);
    vow_promise_release(p);
    vow_resolver_release(cs.r);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    CHECK(run_bounded(&tl));
    close_loop(&tl);
}

/* A chain that keeps queueing work does not starve the loop: each wake-up runs the jobs
 * that were queued when it began, so a check handle sees about one turn per step. */
typedef struct relay {
    vow_dispatcher *d;
    int steps, target;
    int turns; /* loop iterations seen by a uv_check_t */
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
    if (++r->steps < r->target) relay_next(r);
}

static void
count_turn(uv_check_t *check)
{
    ((relay *)check->data)->turns++;
}

static void
test_a_busy_chain_does_not_starve_the_loop(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    relay r = {.d = d, .target = 200};
    uv_check_t check;
    uv_check_init(&tl.loop, &check);
    check.data = &r;
    uv_check_start(&check, count_turn);
    uv_unref((uv_handle_t *)&check);
    relay_next(&r);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(r.steps, r.target);
    CHECK(r.turns >= r.target / 2);
    uv_close((uv_handle_t *)&check, NULL);
    vow_promise_release(r.last);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    CHECK(run_bounded(&tl));
    close_loop(&tl);
}

/* The loop on another thread: jobs submitted from this thread run over there. */
typedef struct loop_thread {
    uv_loop_t loop;
    uv_async_t stop;        /* keeps the loop alive until the test sends it */
    vow_dispatcher *d;
    pthread_t thread;
    atomic_int ready;
    int ran_ok;
} loop_thread;

static void
stop_cb(uv_async_t *stop)
{
    uv_close((uv_handle_t *)stop, NULL);
}

static void *
loop_thread_main(void *arg)
{
    loop_thread *lt = arg;
    uv_loop_init(&lt->loop);
    uv_async_init(&lt->loop, &lt->stop, stop_cb);
    lt->d = vow_uv_dispatcher_new(&lt->loop); /* on the loop's thread */
    atomic_store(&lt->ready, 1);
    uv_run(&lt->loop, UV_RUN_DEFAULT);
    vow_uv_dispatcher_close(lt->d);
    uv_run(&lt->loop, UV_RUN_DEFAULT);
    lt->ran_ok = uv_loop_close(&lt->loop) == 0;
    return NULL;
}

static void
test_loop_on_another_thread(void)
{
    loop_thread lt;
    memset(&lt, 0, sizeof lt);
    REQUIRE(pthread_create(&lt.thread, NULL, loop_thread_main, &lt) == 0);
    CHECK(wait_counter(&lt.ready, 1, ts_wait_seconds()));
    REQUIRE(lt.d != NULL);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    enum { N = 20 };
    track *t[N];
    vow_promise *ds[N];
    for (int i = 0; i < N; i++) {
        t[i] = track_new();
        ds[i] = vow_then_on(lt.d, p, track_on_value_pass, NULL, t[i], track_destroy);
    }
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(wait_promise(ds[i], NULL, NULL), VOW_FULFILLED);
        CHECK(ran_on(t[i], lt.thread));
        CHECK(i == 0 || atomic_load(&t[i]->order) > atomic_load(&t[i - 1]->order));
        vow_promise_release(ds[i]);
    }
    uv_async_send(&lt.stop);
    pthread_join(lt.thread, NULL);
    CHECK(lt.ran_ok);
    vow_dispatcher_release(lt.d);
    vow_promise_release(p);
    vow_value_release(v);
}

/* NULL and foreign dispatchers. */
static void
test_bad_arguments(void)
{
    CHECK_NULL(vow_uv_dispatcher_new(NULL));
    CHECK_EQ_INT(vow_uv_dispatcher_close(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(vow_dispatcher_default()), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(vow_dispatcher_background()), VOW_EINVAL);
    host_queue *q = host_queue_new();
    vow_dispatcher *host = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    CHECK_EQ_INT(vow_uv_dispatcher_close(host), VOW_EINVAL);
    vow_dispatcher_release(host);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

TEST_MAIN_BEGIN("test_uv_dispatch")
    RUN_TEST(test_jobs_run_in_order_on_the_loop_thread);
    RUN_TEST(test_idle_dispatcher_keeps_nothing_alive);
    RUN_TEST(test_dispatch);
    RUN_TEST(test_job_from_last_close_callback_runs);
    RUN_TEST(test_a_busy_chain_does_not_starve_the_loop);
    RUN_TEST(test_loop_on_another_thread);
    RUN_TEST(test_bad_arguments);
TEST_MAIN_END
