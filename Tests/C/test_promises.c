/* test_promises.c: pending / fulfilled / rejected promises and resolvers. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static int
is_vow_error(const vow_error *e, int64_t code)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0 &&
           vow_error_code(e) == code;
}

static void
test_pending(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    REQUIRE(p != NULL);
    REQUIRE(r != NULL);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_NULL(vow_promise_value(p));
    CHECK_NULL(vow_promise_error(p));
    CHECK(!vow_resolver_is_settled(r));
    /* Waiting on a pending promise times out with VOW_PENDING. */
    vow_value *v = (vow_value *)1;
    vow_error *e = (vow_error *)1;
    CHECK_EQ_INT(vow_wait(p, 0.01, &v, &e), VOW_PENDING);
    CHECK_NULL(v);
    CHECK_NULL(e);
    vow_value *one = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
    vow_value_release(one);
    vow_resolver_release(r);
    vow_promise_release(p);

    CHECK_NULL(vow_promise_pending(NULL));
}

static void
test_fulfilled(void)
{
    vow_value *v = vow_value_string("done");
    vow_promise *p = vow_promise_fulfilled(v);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_value_release(v);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, v); /* same handle */
    CHECK_EQ_STR(vow_value_get_string(got), "done");
    CHECK_NULL(vow_promise_error(p));
    vow_promise_release(p);
    /* got is +1: still valid after the promise went. */
    CHECK_EQ_STR(vow_value_get_string(got), "done");
    vow_value_release(got);
    CHECK_NULL(vow_promise_fulfilled(NULL));
}

static void
test_fulfilled_with_promise_value_is_not_adopted(void)
{
    vow_resolver *r = NULL;
    vow_promise *inner = vow_promise_pending(&r);
    vow_value *pv = vow_value_promise(inner);
    vow_promise *p = vow_promise_fulfilled(pv);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, pv);
    CHECK_EQ_INT(vow_value_kind(got), VOW_KIND_PROMISE);
    CHECK_EQ_PTR(vow_value_get_promise(got), inner);
    vow_value_release(got);
    vow_promise_release(p);
    vow_value_release(pv);
    vow_value *n = vow_value_null();
    vow_resolver_fulfill(r, n);
    vow_value_release(n);
    vow_resolver_release(r);
    vow_promise_release(inner);
}

static void
test_rejected(void)
{
    vow_error *e = vow_error_new("test.rejected", 1, "no");
    vow_promise *p = vow_promise_rejected(e);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    CHECK_NULL(vow_promise_value(p));
    vow_error *got = vow_promise_error(p);
    CHECK_EQ_PTR(got, e);
    vow_error_release(got);
    vow_error_release(e);
    /* Reading the error does not handle the rejection. */
    int before = unhandled_count();
    vow_promise_release(p);
    CHECK(wait_counter(&ts_unhandled_total, before + 1, ts_wait_seconds()));
    CHECK_EQ_INT(unhandled_count_matching("test.rejected", 1), 1);
    CHECK_NULL(vow_promise_rejected(NULL));
}

static void
test_settle_changes_state_before_return(void)
{
    for (int k = 0; k < 100; k++) {
        vow_resolver *r = NULL;
        vow_promise *p = vow_promise_pending(&r);
        track *t = track_new();
        /* A callback is registered: it is only queued, the state changes at once. */
        vow_promise *d = vow_then(p, track_on_value_pass, track_on_error_recover, t, track_destroy);
        if (k % 2 == 0) {
            vow_value *v = vow_value_int(k);
            CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
            CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
            vow_value *got = vow_promise_value(p);
            CHECK_EQ_PTR(got, v);
            vow_value_release(got);
            vow_value_release(v);
        } else {
            vow_error *e = vow_error_new("test", k, "");
            CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_OK);
            CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
            vow_error *got = vow_promise_error(p);
            CHECK_EQ_PTR(got, e);
            vow_error_release(got);
            vow_error_release(e);
        }
        CHECK(vow_resolver_is_settled(r));
        wait_promise(d, NULL, NULL);
        CHECK_EQ_INT(track_calls(t), 1);
        vow_promise_release(d);
        vow_resolver_release(r);
        vow_promise_release(p);
    }
}

static void
test_second_settle_is_ealready(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *a = vow_value_int(1), *b = vow_value_int(2);
    vow_error *e = vow_error_new("test", 2, "");
    CHECK_EQ_INT(vow_resolver_fulfill(r, a), VOW_OK);
    CHECK_EQ_INT(vow_resolver_fulfill(r, b), VOW_EALREADY);
    CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_EALREADY);
    CHECK_EQ_INT(vow_resolver_resolve(r, b), VOW_EALREADY);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, a);
    vow_value_release(got);
    vow_resolver_release(r);
    vow_promise_release(p);

    p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_OK);
    CHECK_EQ_INT(vow_resolver_fulfill(r, a), VOW_EALREADY);
    CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_EALREADY);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    CHECK_EQ_INT(wait_promise(p, NULL, NULL), VOW_REJECTED); /* handles it */
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(a);
    vow_value_release(b);
    vow_error_release(e);
}

static void
test_resolver_release_breaks(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    REQUIRE(p != NULL);
    vow_resolver *r2 = vow_resolver_retain(r);
    CHECK_EQ_PTR(r2, r);
    vow_resolver_release(r);
    /* Another reference still lives: not broken yet. */
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    vow_resolver_release(r2);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_error(e, VOW_ERROR_BROKEN));
    CHECK(!vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_promise_release(p);

    /* A settled resolver's release changes nothing. */
    p = vow_promise_pending(&r);
    vow_value *v = vow_value_int(5);
    vow_resolver_fulfill(r, v);
    vow_resolver_release(r);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_value_release(v);
    vow_promise_release(p);
}

static void
test_resolve_adopts_promise(void)
{
    /* Adopting a pending promise: the resolver is used up though p is pending. */
    vow_resolver *r = NULL, *ri = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *inner = vow_promise_pending(&ri);
    vow_value *iv = vow_value_promise(inner);
    CHECK_EQ_INT(vow_resolver_resolve(r, iv), VOW_OK);
    CHECK(vow_resolver_is_settled(r));
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    vow_value *x = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, x), VOW_EALREADY);
    CHECK_EQ_INT(vow_resolver_resolve(r, x), VOW_EALREADY);
    /* May be released freely: no BROKEN. */
    vow_resolver_release(r);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    vow_value *final = vow_value_string("adopted");
    CHECK_EQ_INT(vow_resolver_fulfill(ri, final), VOW_OK);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, final);
    vow_value_release(got);
    vow_value_release(final);
    vow_value_release(x);
    vow_value_release(iv);
    vow_resolver_release(ri);
    vow_promise_release(inner);
    vow_promise_release(p);

    /* Adopting a settled (rejected) promise: the same error handle. */
    vow_error *e = vow_error_new("test", 9, "inner");
    vow_promise *rej = vow_promise_rejected(e);
    vow_value *rv = vow_value_promise(rej);
    p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_resolver_resolve(r, rv), VOW_OK);
    CHECK(vow_resolver_is_settled(r));
    vow_error *ge = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &ge), VOW_REJECTED);
    CHECK_EQ_PTR(ge, e);
    vow_error_release(ge);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(rv);
    vow_promise_release(rej);
    vow_error_release(e);
}

static void
test_resolve_plain_value_fulfils(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *v = vow_value_double(2.5);
    CHECK_EQ_INT(vow_resolver_resolve(r, v), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_value_release(v);
    vow_resolver_release(r);
    vow_promise_release(p);

    /* fulfill does not adopt: the PROMISE value is the value. */
    vow_resolver *ri = NULL;
    vow_promise *inner = vow_promise_pending(&ri);
    vow_value *iv = vow_value_promise(inner);
    p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_resolver_fulfill(r, iv), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    got = vow_promise_value(p);
    CHECK_EQ_PTR(got, iv);
    vow_value_release(got);
    vow_value_release(iv);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value *n = vow_value_null();
    vow_resolver_fulfill(ri, n);
    vow_value_release(n);
    vow_resolver_release(ri);
    vow_promise_release(inner);
}

static void
test_resolve_with_itself_is_cycle(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *self = vow_value_promise(p);
    CHECK_EQ_INT(vow_resolver_resolve(r, self), VOW_OK);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_error(e, VOW_ERROR_CYCLE));
    vow_error_release(e);
    CHECK(vow_resolver_is_settled(r));
    vow_value_release(self);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_resolve_with_chain_back_is_cycle(void)
{
    /* a <- b = then(a) <- c = then(b); resolving a with c is a cycle. */
    vow_resolver *r = NULL;
    vow_promise *a = vow_promise_pending(&r);
    vow_promise *b = vow_then(a, NULL, NULL, NULL, NULL);
    vow_promise *c = vow_then(b, NULL, NULL, NULL, NULL);
    REQUIRE(b != NULL && c != NULL);
    vow_value *cv = vow_value_promise(c);
    CHECK_EQ_INT(vow_resolver_resolve(r, cv), VOW_OK);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(a, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_error(e, VOW_ERROR_CYCLE));
    vow_error_release(e);
    /* The rejection travels down the chain too. */
    e = NULL;
    CHECK_EQ_INT(wait_promise(c, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_error(e, VOW_ERROR_CYCLE));
    vow_error_release(e);
    vow_value_release(cv);
    vow_resolver_release(r);
    vow_promise_release(a);
    vow_promise_release(b);
    vow_promise_release(c);
}

static void
test_cancelled_resolver_is_settled(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_cancel(p);
    CHECK(vow_resolver_is_settled(r));
    vow_value *v = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_EALREADY);
    vow_value_release(v);
    vow_error *e = vow_promise_error(p);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void *
fulfil_later(void *arg)
{
    vow_resolver *r = arg;
    sleep_seconds(0.02); /* give the main thread time to block in vow_wait (not a synchronisation) */
    vow_value *v = vow_value_int(77);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_resolver_release(r);
    return NULL;
}

static void
test_settle_from_another_thread(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, fulfil_later, r) == 0);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(got, &i), VOW_OK);
    CHECK_EQ_INT(i, 77);
    vow_value_release(got);
    pthread_join(t, NULL);
    vow_promise_release(p);
}

static void
test_retain_and_null(void)
{
    vow_value *v = vow_value_null();
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    CHECK_EQ_PTR(vow_promise_retain(p), p);
    vow_promise_release(p);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_promise_release(p);
    CHECK_NULL(vow_promise_retain(NULL));
    vow_promise_release(NULL);
    CHECK_EQ_INT(vow_promise_state(NULL), VOW_STATE_INVALID);
    CHECK_NULL(vow_promise_value(NULL));
    CHECK_NULL(vow_promise_error(NULL));
    CHECK_NULL(vow_resolver_retain(NULL));
    vow_resolver_release(NULL);
    CHECK(!vow_resolver_is_settled(NULL));
}

TEST_MAIN_BEGIN("test_promises")
    unhandled_counter_install();
    RUN_TEST(test_pending);
    RUN_TEST(test_fulfilled);
    RUN_TEST(test_fulfilled_with_promise_value_is_not_adopted);
    RUN_TEST(test_rejected);
    RUN_TEST(test_settle_changes_state_before_return);
    RUN_TEST(test_second_settle_is_ealready);
    RUN_TEST(test_resolver_release_breaks);
    RUN_TEST(test_resolve_adopts_promise);
    RUN_TEST(test_resolve_plain_value_fulfils);
    RUN_TEST(test_resolve_with_itself_is_cycle);
    RUN_TEST(test_resolve_with_chain_back_is_cycle);
    RUN_TEST(test_cancelled_resolver_is_settled);
    RUN_TEST(test_settle_from_another_thread);
    RUN_TEST(test_retain_and_null);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
