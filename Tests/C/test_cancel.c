/* test_cancel.c: vow_cancel, the upstream rule and vow_resolver_on_cancel. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static void
test_cancel_rejects_at_once(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_cancel(p);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    vow_error *e = vow_promise_error(p);
    CHECK(vow_error_is_cancelled(e));
    CHECK_EQ_STR(vow_error_domain(e), "vow");
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_CANCELLED);
    vow_error_release(e);
    /* Twice is harmless. */
    vow_cancel(p);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_cancel(NULL);
}

static void
test_cancel_settled_is_left_alone(void)
{
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_cancel(p);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_promise_release(p);
    vow_error *e = vow_error_new("test", 1, "");
    p = vow_promise_rejected(e);
    vow_cancel(p);
    vow_error *ge = vow_promise_error(p);
    CHECK_EQ_PTR(ge, e);
    CHECK(!vow_error_is_cancelled(ge));
    vow_error_release(ge);
    CHECK_EQ_INT(vow_wait(p, 1, NULL, NULL), VOW_REJECTED);
    vow_promise_release(p);
    vow_error_release(e);
    vow_value_release(v);
}

static void
test_upstream_rule_shared_upstream(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(r, track_fn, c, track_destroy), VOW_OK);
    track *ta = track_new(), *tb = track_new();
    vow_promise *a = vow_then(p, track_on_value_pass, track_on_error_recover, ta, track_destroy);
    vow_promise *b = vow_then(p, track_on_value_pass, track_on_error_recover, tb, track_destroy);
    vow_cancel(a);
    CHECK_EQ_INT(vow_promise_state(a), VOW_REJECTED);
    flush_default();
    /* b still wants p. */
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_EQ_INT(track_calls(c), 0);
    CHECK(!vow_resolver_is_settled(r));
    vow_cancel(b);
    /* Now nobody does: p is cancelled and its producer told, once. */
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    CHECK(wait_counter(&c->calls, 1, ts_wait_seconds()));
    CHECK_DESTROYED_ONCE(c);
    CHECK_EQ_INT(atomic_load(&c->on_main), 0); /* on the default dispatcher */
    flush_default();
    CHECK_EQ_INT(track_calls(c), 1);
    /* Neither derived callback ran. */
    CHECK_EQ_INT(track_calls(ta), 0);
    CHECK_EQ_INT(track_calls(tb), 0);
    CHECK_DESTROYED_ONCE(ta);
    CHECK_DESTROYED_ONCE(tb);
    CHECK_EQ_INT(vow_resolver_reject(r, NULL), VOW_EINVAL);
    vow_value *v = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_EALREADY);
    vow_value_release(v);
    vow_promise_release(a);
    vow_promise_release(b);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_cancel_travels_up_a_chain(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c = track_new();
    vow_resolver_on_cancel(r, track_fn, c, track_destroy);
    vow_promise *links[10];
    track *t[10];
    vow_promise *prev = p;
    for (int i = 0; i < 10; i++) {
        t[i] = track_new();
        links[i] = vow_then(prev, track_on_value_pass, track_on_error_recover, t[i], track_destroy);
        prev = links[i];
    }
    vow_cancel(links[9]);
    for (int i = 0; i < 10; i++) CHECK_EQ_INT(vow_promise_state(links[i]), VOW_REJECTED);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    CHECK(wait_counter(&c->calls, 1, ts_wait_seconds()));
    flush_default();
    for (int i = 0; i < 10; i++) {
        CHECK_EQ_INT(track_calls(t[i]), 0);
        CHECK_DESTROYED_ONCE(t[i]);
        vow_promise_release(links[i]);
    }
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_cancel_through_adoption_and_when(void)
{
    /* p adopted inner: cancelling p reaches inner's producer. */
    vow_resolver *r = NULL, *ri = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *inner = vow_promise_pending(&ri);
    track *c = track_new();
    vow_resolver_on_cancel(ri, track_fn, c, track_destroy);
    vow_value *iv = vow_value_promise(inner);
    vow_resolver_resolve(r, iv);
    vow_value_release(iv);
    vow_cancel(p);
    CHECK_EQ_INT(vow_promise_state(inner), VOW_REJECTED);
    CHECK(wait_counter(&c->calls, 1, ts_wait_seconds()));
    vow_resolver_release(r);
    vow_resolver_release(ri);
    vow_promise_release(p);
    vow_promise_release(inner);

    /* Cancelling a vow_when cancels each input nothing else waits on. */
    vow_resolver *rs[2];
    vow_promise *ps[2];
    track *cs[2];
    for (int i = 0; i < 2; i++) {
        ps[i] = vow_promise_pending(&rs[i]);
        cs[i] = track_new();
        vow_resolver_on_cancel(rs[i], track_fn, cs[i], track_destroy);
    }
    vow_promise *all = vow_when(ps, 2);
    vow_cancel(all);
    for (int i = 0; i < 2; i++) {
        CHECK(wait_counter(&cs[i]->calls, 1, ts_wait_seconds()));
        CHECK_EQ_INT(vow_promise_state(ps[i]), VOW_REJECTED);
        vow_resolver_release(rs[i]);
        vow_promise_release(ps[i]);
    }
    vow_promise_release(all);
}

static void
test_on_cancel_after_cancellation_is_queued(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_cancel(p);
    track *c = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(r, track_fn, c, track_destroy), VOW_OK);
    CHECK(wait_counter(&c->calls, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&c->on_main), 0); /* queued, not run inside the call */
    CHECK_DESTROYED_ONCE(c);
    flush_default();
    CHECK_EQ_INT(track_calls(c), 1);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_on_cancel_dropped_on_normal_settle(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c1 = track_new(), *c2 = track_new();
    vow_resolver_on_cancel(r, track_fn, c1, track_destroy);
    vow_resolver_on_cancel(r, track_fn, c2, track_destroy);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    CHECK_DESTROYED_ONCE(c1);
    CHECK_DESTROYED_ONCE(c2);
    /* Cancelling afterwards does nothing. */
    vow_cancel(p);
    flush_default();
    CHECK_EQ_INT(track_calls(c1), 0);
    CHECK_EQ_INT(track_calls(c2), 0);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    /* Registered after a normal settle: dropped too. */
    track *c3 = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(r, track_fn, c3, track_destroy), VOW_OK);
    CHECK_DESTROYED_ONCE(c3);
    flush_default();
    CHECK_EQ_INT(track_calls(c3), 0);
    vow_value_release(v);
    vow_resolver_release(r);
    vow_promise_release(p);

    /* Broken (resolver released unused): not a cancellation either. */
    p = vow_promise_pending(&r);
    track *c4 = track_new();
    vow_resolver_on_cancel(r, track_fn, c4, track_destroy);
    vow_resolver_release(r);
    CHECK_DESTROYED_ONCE(c4);
    CHECK_EQ_INT(track_calls(c4), 0);
    CHECK_EQ_INT(vow_wait(p, 1, NULL, NULL), VOW_REJECTED);
    vow_promise_release(p);
}

static void
test_several_on_cancel_handlers_run_once(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c[5];
    for (int i = 0; i < 5; i++) {
        c[i] = track_new();
        vow_resolver_on_cancel(r, track_fn, c[i], track_destroy);
    }
    vow_cancel(p);
    vow_cancel(p);
    for (int i = 0; i < 5; i++) CHECK(wait_counter(&c[i]->calls, 1, ts_wait_seconds()));
    flush_default();
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(track_calls(c[i]), 1);
        CHECK_DESTROYED_ONCE(c[i]);
    }
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_finally_still_runs_when_cancelled(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c = track_new(), *f = track_new();
    vow_resolver_on_cancel(r, track_fn, c, track_destroy);
    vow_promise *fp = vow_finally(p, track_fn, f, track_destroy);
    vow_cancel(fp);
    CHECK_EQ_INT(vow_promise_state(fp), VOW_REJECTED);
    /* The cancellation travelled up, p rejected, and the cleanup ran. */
    CHECK(wait_counter(&f->calls, 1, ts_wait_seconds()));
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    CHECK(wait_counter(&c->calls, 1, ts_wait_seconds()));
    CHECK_DESTROYED_ONCE(f);
    vow_promise_release(fp);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_cancelled_source_runs_finally_not_value_callbacks(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *tv = track_new(), *tf = track_new();
    vow_promise *a = vow_then(p, track_on_value_pass, NULL, tv, track_destroy);
    vow_promise *f = vow_finally(p, track_fn, tf, track_destroy);
    vow_cancel(p);
    CHECK_EQ_INT(wait_promise(a, NULL, NULL), VOW_REJECTED);
    CHECK_EQ_INT(wait_promise(f, NULL, NULL), VOW_REJECTED);
    CHECK_EQ_INT(track_calls(tv), 0);
    CHECK_EQ_INT(track_calls(tf), 1);
    vow_promise_release(a);
    vow_promise_release(f);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_on_cancel_runs_on_the_default_dispatcher(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    vow_dispatcher_release(d);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c = track_new();
    vow_resolver_on_cancel(r, track_fn, c, track_destroy);
    vow_cancel(p);
    /* Queued on the host loop, not run inside vow_cancel. */
    CHECK_EQ_INT(track_calls(c), 0);
    CHECK(host_run_until_counter(q, &c->calls, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&c->on_main), 1);
    host_drain(q);
    CHECK_DESTROYED_ONCE(c);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_set_default_dispatcher(NULL);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

TEST_MAIN_BEGIN("test_cancel")
    unhandled_counter_install();
    RUN_TEST(test_cancel_rejects_at_once);
    RUN_TEST(test_cancel_settled_is_left_alone);
    RUN_TEST(test_upstream_rule_shared_upstream);
    RUN_TEST(test_cancel_travels_up_a_chain);
    RUN_TEST(test_cancel_through_adoption_and_when);
    RUN_TEST(test_on_cancel_after_cancellation_is_queued);
    RUN_TEST(test_on_cancel_dropped_on_normal_settle);
    RUN_TEST(test_several_on_cancel_handlers_run_once);
    RUN_TEST(test_finally_still_runs_when_cancelled);
    RUN_TEST(test_cancelled_source_runs_finally_not_value_callbacks);
    RUN_TEST(test_on_cancel_runs_on_the_default_dispatcher);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
