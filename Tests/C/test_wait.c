/* test_wait.c: vow_wait: outs, timeouts, deadlock detection, handling. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

typedef struct payload {
    atomic_int destroyed;
} payload;

static void
payload_destroy(void *p)
{
    atomic_fetch_add(&((payload *)p)->destroyed, 1);
}

static void
test_value_out_is_plus_one(void)
{
    payload pl = {0};
    vow_value *v = vow_value_pointer(&pl, payload_destroy);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    vow_value *out = NULL;
    vow_error *err = (vow_error *)&pl; /* must be overwritten with NULL */
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), &out, &err), VOW_FULFILLED);
    CHECK_EQ_PTR(out, v);
    CHECK_NULL(err);
    vow_promise_release(p);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    CHECK_EQ_PTR(vow_value_get_pointer(out), &pl);
    vow_value_release(out);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);
}

static void
test_error_out_is_plus_one(void)
{
    payload pl = {0};
    vow_value *pv = vow_value_pointer(&pl, payload_destroy);
    vow_error *e = vow_error_with_payload("test", 1, "wait", pv);
    vow_value_release(pv);
    vow_promise *p = vow_promise_rejected(e);
    vow_error_release(e);
    vow_value *out = (vow_value *)&pl; /* must be overwritten with NULL */
    vow_error *err = NULL;
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), &out, &err), VOW_REJECTED);
    CHECK_EQ_PTR(err, e);
    CHECK_NULL(out);
    vow_promise_release(p);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    CHECK_EQ_STR(vow_error_domain(err), "test");
    vow_error_release(err);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);
}

static void
test_null_outs(void)
{
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), NULL, NULL), VOW_FULFILLED);
    vow_value *out = NULL;
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), &out, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(out, v);
    vow_value_release(out);
    vow_promise_release(p);
    vow_value_release(v);
    CHECK_EQ_INT(vow_wait(NULL, 1.0, NULL, NULL), VOW_STATE_INVALID);
    out = (vow_value *)1;
    vow_error *err = (vow_error *)1;
    CHECK_EQ_INT(vow_wait(NULL, 1.0, &out, &err), VOW_STATE_INVALID);
}

static void
test_timeout_returns_pending(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *out = (vow_value *)1;
    vow_error *err = (vow_error *)1;
    double start = now_seconds();
    CHECK_EQ_INT(vow_wait(p, 0.1, &out, &err), VOW_PENDING);
    double elapsed = now_seconds() - start;
    CHECK(elapsed >= 0.09);
    CHECK(elapsed < 5.0);
    CHECK_NULL(out);
    CHECK_NULL(err);
    start = now_seconds();
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_PENDING);
    CHECK(now_seconds() - start < 1.0);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_resolver_release(r);
    vow_promise_release(p);
}

typedef struct later {
    vow_resolver *r;
    double delay;
} later;

static void *
fulfil_after(void *arg)
{
    later *l = arg;
    sleep_seconds(l->delay); /* makes the waiter block first; not a synchronisation */
    vow_value *v = vow_value_int(11);
    vow_resolver_fulfill(l->r, v);
    vow_value_release(v);
    return NULL;
}

static void
test_negative_timeout_waits(void)
{
    later l = {NULL, 0.05};
    vow_promise *p = vow_promise_pending(&l.r);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, fulfil_after, &l) == 0);
    vow_value *out = NULL;
    /* No limit: the watchdog ends the program if this never returns. */
    CHECK_EQ_INT(vow_wait(p, -1, &out, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(out, &i), VOW_OK);
    CHECK_EQ_INT(i, 11);
    vow_value_release(out);
    pthread_join(t, NULL);
    vow_resolver_release(l.r);
    vow_promise_release(p);
}

typedef struct waiters {
    vow_promise *p;
    vow_value *seen[4];
    vow_state states[4];
    atomic_int started;
} waiters;

static void *
waiter_thread(void *arg)
{
    waiters *w = arg;
    int i = atomic_fetch_add(&w->started, 1);
    w->states[i] = vow_wait(w->p, ts_wait_seconds(), &w->seen[i], NULL);
    return NULL;
}

static void
test_many_waiters(void)
{
    waiters w;
    memset(&w, 0, sizeof w);
    vow_resolver *r = NULL;
    w.p = vow_promise_pending(&r);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, waiter_thread, &w);
    wait_counter(&w.started, 4, ts_wait_seconds());
    vow_value *v = vow_value_string("all of you");
    vow_resolver_fulfill(r, v);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(w.states[i], VOW_FULFILLED);
        CHECK_EQ_PTR(w.seen[i], v);
        vow_value_release(w.seen[i]);
    }
    vow_value_release(v);
    vow_resolver_release(r);
    vow_promise_release(w.p);
}

/* What the callback on the default dispatcher saw when it waited. */
typedef struct deadlock_probe {
    vow_state state;
    vow_state state_unlimited;
    int deadlock_error;
    int deadlock_error_unlimited;
    double elapsed;
    vow_state settled_state;    /* waiting on a promise already settled */
    vow_state other_thread_state; /* waiting on a promise another thread settles */
} deadlock_probe;

static int
is_deadlock(const vow_error *e)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0 &&
           vow_error_code(e) == VOW_ERROR_DEADLOCK;
}

static void
pass_value(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    vow_result_return(out, value);
}

static void
waits_inside_callback(void *ctx, const vow_value *value, vow_result *out)
{
    deadlock_probe *d = ctx;
    (void)out;
    /* q's callback is queued on this same serial dispatcher, behind this job. */
    vow_promise *q = vow_then(vow_value_get_promise(value), pass_value, NULL, NULL, NULL);
    vow_error *e = NULL;
    vow_value *v = (vow_value *)1;
    double start = now_seconds();
    d->state = vow_wait(q, 5.0, &v, &e);
    d->deadlock_error = is_deadlock(e) && v == NULL;
    vow_error_release(e);
    e = NULL;
    d->state_unlimited = vow_wait(q, -1, NULL, &e);
    d->deadlock_error_unlimited = is_deadlock(e);
    d->elapsed = now_seconds() - start;
    vow_error_release(e);
    vow_promise_release(q);

    /* Not deadlocks: a settled promise, and one another thread settles. */
    d->settled_state = vow_wait(vow_value_get_promise(value), 1.0, NULL, NULL);
    later l = {NULL, 0.02};
    vow_promise *p = vow_promise_pending(&l.r);
    pthread_t t;
    pthread_create(&t, NULL, fulfil_after, &l);
    d->other_thread_state = vow_wait(p, ts_wait_seconds(), NULL, NULL);
    pthread_join(t, NULL);
    vow_resolver_release(l.r);
    vow_promise_release(p);
}

static void
test_deadlock_detected_on_default_dispatcher(void)
{
    deadlock_probe d;
    memset(&d, 0, sizeof d);
    d.state = d.state_unlimited = VOW_STATE_INVALID;
    vow_value *one = vow_value_int(1);
    vow_promise *settled = vow_promise_fulfilled(one);
    vow_value *carrier = vow_value_promise(settled);
    vow_promise *src = vow_promise_fulfilled(carrier);
    vow_promise *job = vow_then(src, waits_inside_callback, NULL, &d, NULL);
    CHECK_EQ_INT(wait_promise(job, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(d.state, VOW_DEADLOCK); /* its own answer: not a time-out */
    CHECK(d.deadlock_error);
    CHECK_EQ_INT(d.state_unlimited, VOW_DEADLOCK);
    CHECK(d.deadlock_error_unlimited);
    CHECK(d.elapsed < 1.0); /* at once, not after the 5 s timeout */
    CHECK_EQ_INT(d.settled_state, VOW_FULFILLED);
    CHECK_EQ_INT(d.other_thread_state, VOW_FULFILLED);
    vow_promise_release(job);
    vow_promise_release(src);
    vow_value_release(carrier);
    vow_promise_release(settled);
    vow_value_release(one);
}

static void
test_deadlock_on_host_default(void)
{
    /* The same rule with a host loop as the (serial) default dispatcher. */
    host_queue *q = host_queue_new();
    vow_dispatcher *hd = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(hd != NULL);
    vow_set_default_dispatcher(hd);
    vow_dispatcher_release(hd);
    deadlock_probe d;
    memset(&d, 0, sizeof d);
    d.state = d.state_unlimited = VOW_STATE_INVALID;
    vow_value *one = vow_value_int(1);
    vow_promise *settled = vow_promise_fulfilled(one);
    vow_value *carrier = vow_value_promise(settled);
    vow_promise *src = vow_promise_fulfilled(carrier);
    vow_promise *job = vow_then(src, waits_inside_callback, NULL, &d, NULL);
    CHECK_EQ_INT(host_run_until(q, job, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(d.state, VOW_DEADLOCK);
    CHECK(d.deadlock_error);
    CHECK(d.deadlock_error_unlimited);
    CHECK(d.elapsed < 1.0);
    vow_promise_release(job);
    vow_promise_release(src);
    vow_value_release(carrier);
    vow_promise_release(settled);
    vow_value_release(one);
    host_drain(q);
    vow_set_default_dispatcher(NULL);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

typedef struct self_wait {
    vow_promise *self; /* the derived promise of the running callback */
    vow_state state;
    int deadlock;
    double elapsed;
} self_wait;

static void
waits_on_itself(void *ctx, const vow_value *value, vow_result *out)
{
    self_wait *w = ctx;
    (void)value;
    (void)out;
    vow_error *e = NULL;
    double start = now_seconds();
    /* This very job settles w->self: waiting for it can never end. */
    w->state = vow_wait(w->self, 5.0, NULL, &e);
    w->elapsed = now_seconds() - start;
    w->deadlock = is_deadlock(e);
    vow_error_release(e);
}

static void
test_waiting_on_own_promise_is_deadlock(void)
{
    self_wait w = {NULL, VOW_STATE_INVALID, 0, 0};
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    w.self = vow_then(p, waits_on_itself, NULL, &w, NULL);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    CHECK_EQ_INT(wait_promise(w.self, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(w.state, VOW_DEADLOCK);
    CHECK(w.deadlock);
    CHECK(w.elapsed < 1.0);
    vow_promise_release(w.self);
    vow_resolver_release(r);
    vow_promise_release(p);
}

typedef struct bg_wait {
    vow_state state;
    int64_t got;
} bg_wait;

static void
background_waits_for_default(void *ctx, const vow_value *value, vow_result *out)
{
    bg_wait *w = ctx;
    (void)out;
    /* Queued on the (free) default dispatcher: a background job may wait for it. */
    vow_promise *q = vow_then(vow_value_get_promise(value), pass_value, NULL, NULL, NULL);
    vow_value *v = NULL;
    w->state = vow_wait(q, ts_wait_seconds(), &v, NULL);
    vow_value_get_int(v, &w->got);
    vow_value_release(v);
    vow_promise_release(q);
}

static void
test_no_false_deadlock_off_the_serial_queue(void)
{
    bg_wait w = {VOW_STATE_INVALID, 0};
    vow_value *one = vow_value_int(31);
    vow_promise *settled = vow_promise_fulfilled(one);
    vow_value *carrier = vow_value_promise(settled);
    vow_promise *src = vow_promise_fulfilled(carrier);
    vow_promise *job = vow_then_on(vow_dispatcher_background(), src, background_waits_for_default, NULL, &w, NULL);
    CHECK_EQ_INT(wait_promise(job, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(w.state, VOW_FULFILLED);
    CHECK_EQ_INT(w.got, 31);
    vow_promise_release(job);
    vow_promise_release(src);
    vow_value_release(carrier);
    vow_promise_release(settled);
    vow_value_release(one);
}

static void
test_wait_marks_handled(void)
{
    unhandled_counter_install();
    vow_error *e = vow_error_new("test.wait", 1, "seen by wait");
    /* Observed by vow_wait with a NULL error_out: handled. */
    vow_promise *p = vow_promise_rejected(e);
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), NULL, NULL), VOW_REJECTED);
    vow_promise_release(p);
    /* Observed with an error_out: handled. */
    p = vow_promise_rejected(e);
    vow_error *got = NULL;
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), NULL, &got), VOW_REJECTED);
    vow_error_release(got);
    vow_promise_release(p);
    /* Control: not observed, so reported. */
    vow_error *e2 = vow_error_new("test.wait", 2, "nobody looked");
    p = vow_promise_rejected(e2);
    vow_promise_release(p);
    CHECK(wait_counter(&ts_unhandled_total, 1, ts_wait_seconds()));
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("test.wait", 1), 0);
    CHECK_EQ_INT(unhandled_count_matching("test.wait", 2), 1);
    CHECK_EQ_INT(unhandled_count(), 1);
    vow_error_release(e);
    vow_error_release(e2);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

TEST_MAIN_BEGIN("test_wait")
    RUN_TEST(test_value_out_is_plus_one);
    RUN_TEST(test_error_out_is_plus_one);
    RUN_TEST(test_null_outs);
    RUN_TEST(test_timeout_returns_pending);
    RUN_TEST(test_negative_timeout_waits);
    RUN_TEST(test_many_waiters);
    RUN_TEST(test_deadlock_detected_on_default_dispatcher);
    RUN_TEST(test_deadlock_on_host_default);
    RUN_TEST(test_waiting_on_own_promise_is_deadlock);
    RUN_TEST(test_no_false_deadlock_off_the_serial_queue);
    RUN_TEST(test_wait_marks_handled);
TEST_MAIN_END
