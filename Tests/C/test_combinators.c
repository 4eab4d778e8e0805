/* test_combinators.c: vow_when, vow_join, vow_race, vow_after, vow_timeout, vow_dispatch.
   vow_after is checked against the real clock; vow_timeout firing runs on a test loop's
   virtual time (vow_testing.h). */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

#include "vow_testing.h"

static int
is_vow_error(const vow_error *e, int64_t code)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0 &&
           vow_error_code(e) == code;
}

static void
test_when_keeps_input_order(void)
{
    vow_resolver *r[3];
    vow_promise *p[3];
    vow_value *v[3];
    for (int i = 0; i < 3; i++) {
        p[i] = vow_promise_pending(&r[i]);
        v[i] = vow_value_int(i * 10);
    }
    vow_promise *all = vow_when(p, 3);
    REQUIRE(all != NULL);
    /* Settled in reverse order. */
    for (int i = 2; i >= 0; i--) {
        CHECK_EQ_INT(vow_promise_state(all), VOW_PENDING);
        vow_resolver_fulfill(r[i], v[i]);
    }
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(all, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 3);
    for (int i = 0; i < 3; i++) CHECK_EQ_PTR(vow_value_at(list, i), v[i]);
    vow_value_release(list);
    vow_promise_release(all);
    for (int i = 0; i < 3; i++) {
        vow_resolver_release(r[i]);
        vow_promise_release(p[i]);
        vow_value_release(v[i]);
    }
}

static void
test_when_first_rejection_wins(void)
{
    vow_resolver *r[3];
    vow_promise *p[3];
    for (int i = 0; i < 3; i++) p[i] = vow_promise_pending(&r[i]);
    vow_promise *all = vow_when(p, 3);
    vow_error *e1 = vow_error_new("test", 1, "first");
    vow_error *e2 = vow_error_new("test", 2, "second");
    vow_resolver_reject(r[1], e1);
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(all, NULL, &got), VOW_REJECTED);
    CHECK_EQ_PTR(got, e1);
    vow_resolver_reject(r[2], e2);
    vow_value *v = vow_value_int(0);
    vow_resolver_fulfill(r[0], v);
    flush_default();
    vow_error *again = vow_promise_error(all);
    CHECK_EQ_PTR(again, e1);
    vow_error_release(again);
    vow_error_release(got);
    vow_promise_release(all);
    for (int i = 0; i < 3; i++) {
        vow_resolver_release(r[i]);
        vow_promise_release(p[i]);
    }
    vow_value_release(v);
    vow_error_release(e1);
    vow_error_release(e2);
}

static void
test_when_empty_and_bad_input(void)
{
    vow_promise *all = vow_when(NULL, 0);
    REQUIRE(all != NULL);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(all, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 0);
    vow_value_release(list);
    vow_promise_release(all);
    CHECK_NULL(vow_when(NULL, 2));
    vow_value *v = vow_value_int(1);
    vow_promise *ok = vow_promise_fulfilled(v);
    vow_promise *with_null[2] = {ok, NULL};
    CHECK_NULL(vow_when(with_null, 2));
    CHECK_NULL(vow_join(with_null, 2));
    CHECK_NULL(vow_race(with_null, 2));
    CHECK_NULL(vow_join(NULL, 1));
    CHECK_NULL(vow_race(NULL, 1));
    vow_promise_release(ok);
    vow_value_release(v);
}

static void
test_join_shape(void)
{
    vow_value *v0 = vow_value_string("zero"), *v2 = vow_value_int(2);
    vow_error *e1 = vow_error_new("test.join", 1, "one");
    vow_resolver *r2 = NULL;
    vow_promise *p[3];
    p[0] = vow_promise_fulfilled(v0);
    p[1] = vow_promise_rejected(e1);
    p[2] = vow_promise_pending(&r2);
    vow_promise *j = vow_join(p, 3);
    REQUIRE(j != NULL);
    CHECK_EQ_INT(vow_wait(j, 0.02, NULL, NULL), VOW_PENDING);
    vow_resolver_fulfill(r2, v2);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(j, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), 3);
    CHECK_EQ_PTR(vow_value_at(list, 0), v0);
    const vow_value *ev = vow_value_at(list, 1);
    CHECK_EQ_INT(vow_value_kind(ev), VOW_KIND_ERROR);
    CHECK_EQ_PTR(vow_value_get_error(ev), e1);
    CHECK_EQ_PTR(vow_value_at(list, 2), v2);
    vow_value_release(list);
    vow_promise_release(j);
    for (int i = 0; i < 3; i++) vow_promise_release(p[i]);
    vow_resolver_release(r2);
    vow_value_release(v0);
    vow_value_release(v2);
    vow_error_release(e1);
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("test.join", -1), 0);

    vow_promise *empty = vow_join(NULL, 0);
    list = NULL;
    CHECK_EQ_INT(wait_promise(empty, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 0);
    vow_value_release(list);
    vow_promise_release(empty);
}

static void
test_race_first_wins_and_losers_cancelled(void)
{
    vow_resolver *r[3];
    vow_promise *p[3];
    for (int i = 0; i < 3; i++) p[i] = vow_promise_pending(&r[i]);
    track *c0 = track_new(), *c2 = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(r[0], track_fn, c0, track_destroy), VOW_OK);
    CHECK_EQ_INT(vow_resolver_on_cancel(r[2], track_fn, c2, track_destroy), VOW_OK);
    /* Something else still waits on p[2]: it is not cancelled. */
    track *other = track_new();
    vow_promise *keeps_p2 = vow_then(p[2], track_on_value_pass, NULL, other, track_destroy);
    vow_promise *race = vow_race(p, 3);
    REQUIRE(race != NULL);
    vow_value *v = vow_value_string("winner");
    vow_resolver_fulfill(r[1], v);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(race, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    /* The unshared loser is cancelled and its producer told. */
    CHECK(wait_counter(&c0->calls, 1, ts_wait_seconds()));
    vow_error *e0 = NULL;
    CHECK_EQ_INT(wait_promise(p[0], NULL, &e0), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e0));
    vow_error_release(e0);
    CHECK(vow_resolver_is_settled(r[0]));
    flush_default();
    CHECK_EQ_INT(vow_promise_state(p[2]), VOW_PENDING);
    CHECK_EQ_INT(track_calls(c2), 0);
    /* p[2] goes on normally; its cancel handler is dropped. */
    CHECK_EQ_INT(vow_resolver_fulfill(r[2], v), VOW_OK);
    CHECK_EQ_INT(wait_promise(keeps_p2, NULL, NULL), VOW_FULFILLED);
    CHECK_DESTROYED_ONCE(c2);
    CHECK_EQ_INT(track_calls(c2), 0);
    CHECK_EQ_INT(track_calls(c0), 1);
    vow_promise_release(keeps_p2);
    vow_promise_release(race);
    for (int i = 0; i < 3; i++) {
        vow_resolver_release(r[i]);
        vow_promise_release(p[i]);
    }
    vow_value_release(v);
}

static void
test_race_first_rejection_and_empty(void)
{
    vow_resolver *r[2];
    vow_promise *p[2];
    for (int i = 0; i < 2; i++) p[i] = vow_promise_pending(&r[i]);
    vow_promise *race = vow_race(p, 2);
    vow_error *e = vow_error_new("test", 3, "lost");
    vow_resolver_reject(r[0], e);
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(race, NULL, &got), VOW_REJECTED);
    CHECK_EQ_PTR(got, e);
    vow_error_release(got);
    vow_promise_release(race);
    for (int i = 0; i < 2; i++) {
        vow_resolver_release(r[i]);
        vow_promise_release(p[i]);
    }

    /* Inputs already settled when vow_race is called: the first of them in array order
       wins, whatever kind of settling it was (the header's rule). */
    vow_value *v = vow_value_int(5);
    vow_resolver *pending_r = NULL;
    vow_promise *settled[3] = {vow_promise_pending(&pending_r), vow_promise_rejected(e), vow_promise_fulfilled(v)};
    race = vow_race(settled, 3);
    got = NULL;
    CHECK_EQ_INT(wait_promise(race, NULL, &got), VOW_REJECTED);
    CHECK_EQ_PTR(got, e);
    vow_error_release(got);
    vow_promise_release(race);
    vow_promise *reversed[2] = {settled[2], settled[1]};
    race = vow_race(reversed, 2);
    vow_value *won = NULL;
    CHECK_EQ_INT(wait_promise(race, &won, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(won, v);
    vow_value_release(won);
    vow_promise_release(race);
    for (int i = 0; i < 3; i++) vow_promise_release(settled[i]);
    vow_resolver_release(pending_r);
    vow_value_release(v);
    vow_error_release(e);

    vow_promise *empty = vow_race(NULL, 0);
    REQUIRE(empty != NULL);
    got = NULL;
    CHECK_EQ_INT(wait_promise(empty, NULL, &got), VOW_REJECTED);
    CHECK(is_vow_error(got, VOW_ERROR_EMPTY));
    vow_error_release(got);
    vow_promise_release(empty);
}

static void
test_after(void)
{
    double start = now_seconds();
    vow_promise *a = vow_after(0.1);
    REQUIRE(a != NULL);
    vow_value *v = NULL;
    CHECK_EQ_INT(wait_promise(a, &v, NULL), VOW_FULFILLED);
    double elapsed = now_seconds() - start;
    CHECK(elapsed >= 0.09);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
    vow_value_release(v);
    vow_promise_release(a);

    /* <= 0 and NaN: without waiting. */
    double odd[] = {0.0, -1.0, NAN};
    for (int i = 0; i < 3; i++) {
        start = now_seconds();
        a = vow_after(odd[i]);
        REQUIRE(a != NULL);
        CHECK_EQ_INT(wait_promise(a, NULL, NULL), VOW_FULFILLED);
        CHECK(now_seconds() - start < 1.0);
        vow_promise_release(a);
    }

    /* Cancelling stops it: rejected at once with the cancellation. */
    a = vow_after(30);
    vow_cancel(a);
    CHECK_EQ_INT(vow_promise_state(a), VOW_REJECTED);
    vow_error *e = vow_promise_error(a);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_promise_release(a);
}

static void
test_timeout_rejects_and_cancels(void)
{
    /* On a test loop's virtual time (vow_testing.h): exact, and no sleep. */
    vow_test_loop *l = vow_test_loop_new(0);
    REQUIRE(vow_test_loop_install(l) == VOW_OK);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(r, track_fn, c, track_destroy), VOW_OK);
    vow_promise *t = vow_timeout(p, 0.1);
    REQUIRE(t != NULL);
    vow_test_loop_advance(l, 0.099);
    CHECK_EQ_INT(vow_promise_state(t), VOW_PENDING);
    vow_test_loop_advance(l, 0.001);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(t, 0, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_error(e, VOW_ERROR_TIMEOUT));
    CHECK(!vow_error_is_cancelled(e));
    vow_error_release(e);
    e = NULL;
    CHECK_EQ_INT(vow_wait(p, 0, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    /* The cancel handler ran on the loop, during the advance. */
    CHECK_EQ_INT(track_calls(c), 1);
    CHECK_DESTROYED_ONCE(c);
    vow_promise_release(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_test_loop_release(l);
}

static void
test_timeout_source_wins(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *t = vow_timeout(p, 30);
    vow_value *v = vow_value_int(4);
    vow_resolver_fulfill(r, v);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(t, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_promise_release(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(v);

    /* Rejection passes through too. */
    vow_error *e = vow_error_new("test", 5, "early");
    p = vow_promise_rejected(e);
    t = vow_timeout(p, 30);
    vow_error *ge = NULL;
    CHECK_EQ_INT(wait_promise(t, NULL, &ge), VOW_REJECTED);
    CHECK_EQ_PTR(ge, e);
    vow_error_release(ge);
    vow_promise_release(t);
    vow_promise_release(p);
    vow_error_release(e);
    CHECK_NULL(vow_timeout(NULL, 1));
}

static void
test_timeout_spares_shared_source(void)
{
    vow_test_loop *l = vow_test_loop_new(0);
    REQUIRE(vow_test_loop_install(l) == VOW_OK);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c = track_new(), *other = track_new();
    vow_resolver_on_cancel(r, track_fn, c, track_destroy);
    vow_promise *keeps = vow_then(p, track_on_value_pass, NULL, other, track_destroy);
    vow_promise *t = vow_timeout(p, 0.05);
    vow_test_loop_advance(l, 0.05);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(t, 0, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_error(e, VOW_ERROR_TIMEOUT));
    vow_error_release(e);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_EQ_INT(track_calls(c), 0);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_test_loop_run_until_idle(l);
    CHECK_EQ_INT(vow_promise_state(keeps), VOW_FULFILLED);
    CHECK_DESTROYED_ONCE(c);
    CHECK_EQ_INT(track_calls(c), 0);
    vow_promise_release(keeps);
    vow_promise_release(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_test_loop_release(l);
}

static void
dispatch_returns_thread_flag(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    track_hit(t);
    t->data = (void *)value;
    vow_value *v = vow_value_bool(pthread_equal(pthread_self(), ts_main_thread));
    vow_result_return(out, v);
    vow_value_release(v);
}

static void
test_dispatch(void)
{
    track *t = track_new();
    t->data = (void *)1;
    vow_promise *p = vow_dispatch(vow_dispatcher_background(), dispatch_returns_thread_flag, t, track_destroy);
    REQUIRE(p != NULL);
    vow_value *v = NULL;
    CHECK_EQ_INT(wait_promise(p, &v, NULL), VOW_FULFILLED);
    bool on_main = true;
    CHECK_EQ_INT(vow_value_get_bool(v, &on_main), VOW_OK);
    CHECK(!on_main);
    CHECK_NULL(t->data);
    CHECK_DESTROYED_ONCE(t);
    vow_value_release(v);
    vow_promise_release(p);
}

static void
test_dispatch_cancelled_before_it_runs(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, dispatch_returns_thread_flag, t, track_destroy);
    REQUIRE(p != NULL);
    vow_cancel(p);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    host_drain(q);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static void
test_combinators_retain_inputs(void)
{
    /* The arrays are borrowed, the promises retained: release ours right away. */
    vow_resolver *r[2];
    vow_promise *p[2];
    for (int i = 0; i < 2; i++) p[i] = vow_promise_pending(&r[i]);
    vow_promise *all = vow_when(p, 2);
    vow_promise *j = vow_join(p, 2);
    for (int i = 0; i < 2; i++) {
        vow_promise_release(p[i]);
        p[i] = NULL;
    }
    vow_value *v = vow_value_int(6);
    for (int i = 0; i < 2; i++) vow_resolver_fulfill(r[i], v);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(all, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), 2);
    vow_value_release(list);
    list = NULL;
    CHECK_EQ_INT(wait_promise(j, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), 2);
    vow_value_release(list);
    vow_promise_release(all);
    vow_promise_release(j);
    for (int i = 0; i < 2; i++) vow_resolver_release(r[i]);
    vow_value_release(v);
}

TEST_MAIN_BEGIN("test_combinators")
    unhandled_counter_install();
    RUN_TEST(test_when_keeps_input_order);
    RUN_TEST(test_when_first_rejection_wins);
    RUN_TEST(test_when_empty_and_bad_input);
    RUN_TEST(test_join_shape);
    RUN_TEST(test_race_first_wins_and_losers_cancelled);
    RUN_TEST(test_race_first_rejection_and_empty);
    RUN_TEST(test_after);
    RUN_TEST(test_timeout_rejects_and_cancels);
    RUN_TEST(test_timeout_source_wins);
    RUN_TEST(test_timeout_spares_shared_source);
    RUN_TEST(test_dispatch);
    RUN_TEST(test_dispatch_cancelled_before_it_runs);
    RUN_TEST(test_combinators_retain_inputs);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
