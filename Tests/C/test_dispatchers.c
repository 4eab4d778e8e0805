/* test_dispatchers.c: host loops (vow_dispatcher_new), the built-in dispatchers, the default. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

#define FIFO_N 100

static vow_dispatcher *
new_host_dispatcher(host_queue **q_out)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    *q_out = q;
    return d;
}

static void
test_host_dispatcher_fifo_on_owner_thread(void)
{
    host_queue *q = NULL;
    vow_dispatcher *d = new_host_dispatcher(&q);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    track *t[FIFO_N];
    vow_promise *ds[FIFO_N];
    for (int i = 0; i < FIFO_N; i++) {
        t[i] = track_new();
        ds[i] = vow_then_on(d, p, track_on_value_pass, NULL, t[i], track_destroy);
        CHECK_NOT_NULL(ds[i]);
    }
    /* Nothing runs until the host runs its loop. */
    flush_default();
    int ran_early = 0;
    for (int i = 0; i < FIFO_N; i++) ran_early += track_calls(t[i]);
    CHECK_EQ_INT(ran_early, 0);
    CHECK(host_pending(q) > 0);
    host_drain(q);
    int in_order = 1, on_main = 1;
    for (int i = 0; i < FIFO_N; i++) {
        CHECK_EQ_INT(track_calls(t[i]), 1);
        if (!atomic_load(&t[i]->on_main)) on_main = 0;
        if (i > 0 && atomic_load(&t[i]->order) <= atomic_load(&t[i - 1]->order)) in_order = 0;
    }
    CHECK(in_order);
    CHECK(on_main);
    for (int i = 0; i < FIFO_N; i++) {
        CHECK_EQ_INT(host_run_until(q, ds[i], ts_wait_seconds()), VOW_FULFILLED);
        vow_promise_release(ds[i]);
    }
    vow_promise_release(p);
    vow_value_release(v);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    CHECK_EQ_INT(atomic_load(&q->submitted), atomic_load(&q->ran));
    host_queue_free(q);
}

typedef struct settle_job {
    vow_resolver *r;
    vow_value *v;
} settle_job;

static void *
settle_on_thread(void *arg)
{
    settle_job *j = arg;
    vow_resolver_fulfill(j->r, j->v);
    return NULL;
}

static void
test_submit_from_other_threads(void)
{
    /* Promises settled on other threads: submit is called there; the jobs still run here. */
    enum { N = 8 };
    host_queue *q = NULL;
    vow_dispatcher *d = new_host_dispatcher(&q);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(5);
    settle_job jobs[N];
    pthread_t threads[N];
    vow_promise *ps[N], *ds[N];
    track *t[N];
    for (int i = 0; i < N; i++) {
        ps[i] = vow_promise_pending(&jobs[i].r);
        jobs[i].v = v;
        t[i] = track_new();
        ds[i] = vow_then_on(d, ps[i], track_on_value_pass, NULL, t[i], track_destroy);
    }
    for (int i = 0; i < N; i++) pthread_create(&threads[i], NULL, settle_on_thread, &jobs[i]);
    for (int i = 0; i < N; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(host_run_until(q, ds[i], ts_wait_seconds()), VOW_FULFILLED);
        CHECK_EQ_INT(track_calls(t[i]), 1);
        CHECK_EQ_INT(atomic_load(&t[i]->on_main), 1);
    }
    for (int i = 0; i < N; i++) {
        vow_promise_release(ds[i]);
        vow_promise_release(ps[i]);
        vow_resolver_release(jobs[i].r);
    }
    vow_value_release(v);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static void
test_library_keeps_dispatcher_alive(void)
{
    host_queue *q = NULL;
    vow_dispatcher *d = new_host_dispatcher(&q);
    REQUIRE(d != NULL);
    CHECK_EQ_PTR(vow_dispatcher_retain(d), d);
    vow_dispatcher_release(d);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    vow_promise *dp = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    /* The registration retained d: releasing ours does not destroy it. */
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    CHECK_EQ_INT(host_run_until(q, dp, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    vow_promise_release(dp);
    vow_resolver_release(r);
    vow_promise_release(p);
    host_drain(q);
    /* The last reference went with the job: destroy runs, once. */
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

static void
test_dispatcher_new_null_submit(void)
{
    track *t = track_new();
    CHECK_NULL(vow_dispatcher_new(NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    CHECK_NULL(vow_dispatcher_new(NULL, NULL, NULL));
}

static void
test_builtin_dispatchers(void)
{
    vow_dispatcher *def = vow_dispatcher_default();
    vow_dispatcher *bg = vow_dispatcher_background();
    vow_dispatcher *in = vow_dispatcher_inline();
    REQUIRE(def && bg && in);
    CHECK(def != bg && def != in && bg != in);
    CHECK_EQ_PTR(vow_dispatcher_default(), def);
    CHECK_EQ_PTR(vow_dispatcher_background(), bg);
    CHECK_EQ_PTR(vow_dispatcher_inline(), in);
    /* Releasing built-ins is ignored; retain returns the argument. */
    for (int i = 0; i < 5; i++) {
        vow_dispatcher_release(def);
        vow_dispatcher_release(bg);
        vow_dispatcher_release(in);
    }
    CHECK_EQ_PTR(vow_dispatcher_retain(bg), bg);
    vow_dispatcher_release(NULL);
    CHECK_NULL(vow_dispatcher_retain(NULL));

    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    track *td = track_new(), *tb = track_new(), *ti = track_new();
    vow_promise *a = vow_then_on(def, p, track_on_value_pass, NULL, td, track_destroy);
    vow_promise *b = vow_then_on(bg, p, track_on_value_pass, NULL, tb, track_destroy);
    /* Inline on a settled promise: runs inside the registering call. */
    vow_promise *c = vow_then_on(in, p, track_on_value_pass, NULL, ti, track_destroy);
    CHECK_EQ_INT(track_calls(ti), 1);
    CHECK_EQ_INT(atomic_load(&ti->on_main), 1);
    CHECK_EQ_INT(vow_promise_state(c), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(a, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(b, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(atomic_load(&td->on_main), 0);
    CHECK_EQ_INT(atomic_load(&tb->on_main), 0);
    vow_promise_release(a);
    vow_promise_release(b);
    vow_promise_release(c);
    vow_promise_release(p);
    vow_value_release(v);
}

typedef struct concurrency_probe {
    atomic_int running;
    atomic_int max_running;
    atomic_int done;
} concurrency_probe;

static void
probe_job(void *ctx, const vow_value *value, vow_result *out)
{
    concurrency_probe *c = ctx;
    (void)value;
    (void)out;
    int now = atomic_fetch_add(&c->running, 1) + 1;
    int seen = atomic_load(&c->max_running);
    while (now > seen && !atomic_compare_exchange_weak(&c->max_running, &seen, now)) {
    }
    sleep_seconds(0.005); /* overlap window for the measurement, not a synchronisation */
    atomic_fetch_sub(&c->running, 1);
    atomic_fetch_add(&c->done, 1);
}

static void
test_default_is_serial(void)
{
    enum { N = 40 };
    concurrency_probe c = {0};
    vow_promise *ps[N];
    for (int i = 0; i < N; i++) ps[i] = vow_dispatch(vow_dispatcher_default(), probe_job, &c, NULL);
    for (int i = 0; i < N; i++) {
        wait_promise(ps[i], NULL, NULL);
        vow_promise_release(ps[i]);
    }
    CHECK_EQ_INT(atomic_load(&c.done), N);
    CHECK_EQ_INT(atomic_load(&c.max_running), 1);
}

static void
dispatch_fn(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    t->data = (void *)value; /* vow_dispatch passes NULL */
    track_hit(t);
    vow_value *r = vow_value_string("dispatched");
    vow_result_return(out, r);
    vow_value_release(r);
}

static void
test_dispatch_on_host(void)
{
    host_queue *q = NULL;
    vow_dispatcher *d = new_host_dispatcher(&q);
    REQUIRE(d != NULL);
    track *t = track_new();
    t->data = (void *)1;
    vow_promise *p = vow_dispatch(d, dispatch_fn, t, track_destroy);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(host_run_until(q, p, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_NULL(t->data);
    CHECK_EQ_INT(atomic_load(&t->on_main), 1);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_STR(vow_value_get_string(got), "dispatched");
    vow_value_release(got);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static void
test_set_default_dispatcher(void)
{
    vow_dispatcher *library_default = vow_dispatcher_default();
    host_queue *q = NULL;
    vow_dispatcher *d = new_host_dispatcher(&q);
    REQUIRE(d != NULL);

    /* Registered before the switch: keeps the library's queue. */
    vow_resolver *r_before = NULL;
    vow_promise *before = vow_promise_pending(&r_before);
    track *t_before = track_new();
    vow_promise *d_before = vow_then(before, track_on_value_pass, NULL, t_before, track_destroy);

    vow_set_default_dispatcher(d);
    CHECK_EQ_PTR(vow_dispatcher_default(), d);
    /* The default holds its own reference. */
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);

    vow_value *v = vow_value_int(3);
    vow_resolver_fulfill(r_before, v);
    CHECK_EQ_INT(wait_promise(d_before, NULL, NULL), VOW_FULFILLED); /* no host draining needed */
    CHECK_EQ_INT(atomic_load(&t_before->on_main), 0);

    /* Registered after: runs on the host loop. */
    vow_promise *p = vow_promise_fulfilled(v);
    track *t_after = track_new(), *t_catch = track_new(), *t_fin = track_new();
    vow_promise *a = vow_then(p, track_on_value_pass, NULL, t_after, track_destroy);
    vow_promise *b = vow_catch(p, track_on_error_recover, t_catch, track_destroy);
    vow_promise *f = vow_finally(p, track_fn, t_fin, track_destroy);
    CHECK_EQ_INT(vow_wait(a, 0.05, NULL, NULL), VOW_PENDING);
    CHECK_EQ_INT(track_calls(t_after), 0);
    CHECK_EQ_INT(host_run_until(q, a, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(host_run_until(q, b, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(host_run_until(q, f, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t_after), 1);
    CHECK_EQ_INT(atomic_load(&t_after->on_main), 1);
    CHECK_EQ_INT(track_calls(t_fin), 1);
    CHECK_EQ_INT(atomic_load(&t_fin->on_main), 1);

    /* NULL restores the library's own queue. */
    vow_set_default_dispatcher(NULL);
    CHECK_EQ_PTR(vow_dispatcher_default(), library_default);
    track *t_restored = track_new();
    vow_promise *c = vow_then(p, track_on_value_pass, NULL, t_restored, track_destroy);
    CHECK_EQ_INT(wait_promise(c, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(atomic_load(&t_restored->on_main), 0);

    vow_promise_release(a);
    vow_promise_release(b);
    vow_promise_release(c);
    vow_promise_release(f);
    vow_promise_release(p);
    vow_promise_release(d_before);
    vow_promise_release(before);
    vow_resolver_release(r_before);
    vow_value_release(v);
    host_drain(q);
    /* Nobody holds d any more. */
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

static void
test_replacing_default_releases_previous(void)
{
    host_queue *q1 = NULL, *q2 = NULL;
    vow_dispatcher *d1 = new_host_dispatcher(&q1);
    vow_dispatcher *d2 = new_host_dispatcher(&q2);
    REQUIRE(d1 && d2);
    vow_set_default_dispatcher(d1);
    vow_dispatcher_release(d1);
    vow_set_default_dispatcher(d2);
    vow_dispatcher_release(d2);
    CHECK(wait_counter(&q1->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&q2->destroyed), 0);
    CHECK_EQ_PTR(vow_dispatcher_default(), d2);
    vow_set_default_dispatcher(NULL);
    CHECK(wait_counter(&q2->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q1);
    host_queue_free(q2);
}

/* A host submit that calls back into the library: deadlocks if submit ran under a library lock. */
typedef struct reentrant_host {
    host_queue *q;
    vow_promise *watched;
    atomic_int states_seen;
} reentrant_host;

static void
reentrant_submit(void *ctx, vow_job run, void *job)
{
    reentrant_host *h = ctx;
    if (h->watched != NULL && vow_promise_state(h->watched) != VOW_STATE_INVALID) atomic_fetch_add(&h->states_seen, 1);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_promise_release(p);
    vow_value_release(v);
    host_submit(h->q, run, job);
}

static void
reentrant_destroy(void *ctx)
{
    reentrant_host *h = ctx;
    host_queue_destroy(h->q);
}

static void
test_submit_runs_outside_library_locks(void)
{
    reentrant_host h;
    memset(&h, 0, sizeof h);
    h.q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(reentrant_submit, &h, reentrant_destroy);
    REQUIRE(d != NULL);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    h.watched = p;
    track *t = track_new();
    vow_promise *dp = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    vow_value *v = vow_value_int(2);
    vow_resolver_fulfill(r, v); /* submits, from inside the settling call */
    vow_value_release(v);
    CHECK_EQ_INT(host_run_until(h.q, dp, ts_wait_seconds()), VOW_FULFILLED);
    CHECK(atomic_load(&h.states_seen) >= 1);
    CHECK_EQ_INT(track_calls(t), 1);
    vow_promise_release(dp);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    host_drain(h.q);
    CHECK(wait_counter(&h.q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(h.q);
}

static void
test_dispatch_inline_runs_in_the_call(void)
{
    track *t = track_new();
    vow_promise *p = vow_dispatch(vow_dispatcher_inline(), dispatch_fn, t, track_destroy);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(atomic_load(&t->on_main), 1);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_promise_release(p);
}

/* vow_job_drop: the host hands a job back instead of running it. The callback never runs,
 * its destroy runs once, the promise it would have settled is cancelled at once (waiters
 * return, finally runs), and the dispatcher stays alive until its jobs are finished. */
static void
test_job_drop_cancels_the_promise(void)
{
    host_queue *q = NULL;
    vow_dispatcher *d = new_host_dispatcher(&q);
    REQUIRE(d != NULL);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    vow_promise *dp = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    track *fin = track_new();
    vow_promise *after = vow_finally(dp, track_fn, fin, track_destroy);
    vow_value *v = vow_value_int(7);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    CHECK(wait_counter(&q->submitted, 1, ts_wait_seconds()));
    /* Our reference goes: the queued job keeps the dispatcher alive. */
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);
    CHECK_EQ_INT(host_drop_all(q), 1);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(dp, ts_wait_seconds(), NULL, &e), VOW_REJECTED);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    CHECK_EQ_INT(vow_wait(after, ts_wait_seconds(), NULL, NULL), VOW_REJECTED);
    CHECK_EQ_INT(track_calls(fin), 1);
    /* The last job is finished: the dispatcher's destroy runs, once. */
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    vow_value_release(v);
    vow_promise_release(after);
    vow_promise_release(dp);
    vow_promise_release(p);
    vow_resolver_release(r);
    host_queue_free(q);
}

/* A dropped vow_dispatch job: fn never runs, destroy runs once, the promise is cancelled
 * and the cancellation reaches a promise that adopted it. */
static void
test_job_drop_of_dispatch(void)
{
    host_queue *q = NULL;
    vow_dispatcher *d = new_host_dispatcher(&q);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, track_on_value_pass, t, track_destroy);
    REQUIRE(p != NULL);
    CHECK(wait_counter(&q->submitted, 1, ts_wait_seconds()));
    CHECK_EQ_INT(host_drop_all(q), 1);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), NULL, &e), VOW_REJECTED);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_job_drop(NULL); /* harmless */
    vow_promise_release(p);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

/* A host that drops every job inside submit (its loop is gone): a long chain on it ends
 * cancelled, in a loop, not a recursion that would overflow the stack. */
static void
drop_at_once(void *ctx, vow_job run, void *job)
{
    (void)ctx;
    (void)run;
    vow_job_drop(job);
}

static void
pass_value(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    vow_result_return(out, value);
}

static void
test_job_drop_inside_submit_long_chain(void)
{
    vow_dispatcher *d = vow_dispatcher_new(drop_at_once, NULL, NULL);
    REQUIRE(d != NULL);
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    vow_promise *p = vow_promise_retain(head);
    long n = ts_small() ? 20000 : 200000;
    for (long i = 0; i < n; i++) {
        vow_promise *q = vow_then_on(d, p, pass_value, NULL, NULL, NULL);
        vow_promise_release(p);
        p = q;
    }
    vow_value *v = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), NULL, &e), VOW_REJECTED);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_value_release(v);
    vow_promise_release(p);
    vow_promise_release(head);
    vow_resolver_release(r);
    vow_dispatcher_release(d);
}

TEST_MAIN_BEGIN("test_dispatchers")
    RUN_TEST(test_host_dispatcher_fifo_on_owner_thread);
    RUN_TEST(test_submit_from_other_threads);
    RUN_TEST(test_library_keeps_dispatcher_alive);
    RUN_TEST(test_dispatcher_new_null_submit);
    RUN_TEST(test_builtin_dispatchers);
    RUN_TEST(test_default_is_serial);
    RUN_TEST(test_dispatch_on_host);
    RUN_TEST(test_set_default_dispatcher);
    RUN_TEST(test_replacing_default_releases_previous);
    RUN_TEST(test_submit_runs_outside_library_locks);
    RUN_TEST(test_dispatch_inline_runs_in_the_call);
    RUN_TEST(test_job_drop_cancels_the_promise);
    RUN_TEST(test_job_drop_of_dispatch);
    RUN_TEST(test_job_drop_inside_submit_long_chain);
TEST_MAIN_END
