/*
 * test_deep_chain.c: chains of 1,000,000 vow_then links built on a pending
 * promise settle without recursion, and dropping them unresolved frees them
 * without recursion (VOW_TEST_SCALE=small: 10,000 links, for valgrind).
 */
#include "test_support.h"

typedef struct counters {
    atomic_int calls;
    atomic_int error_calls;
    atomic_int destroyed;
} counters;

static void
count_and_pass(void *ctx, const vow_value *value, vow_result *out)
{
    atomic_fetch_add(&((counters *)ctx)->calls, 1);
    vow_result_return(out, value);
}

static void
count_error(void *ctx, const vow_error *error, vow_result *out)
{
    atomic_fetch_add(&((counters *)ctx)->error_calls, 1);
    vow_result_throw(out, error);
}

static void
count_destroy(void *ctx)
{
    atomic_fetch_add(&((counters *)ctx)->destroyed, 1);
}

static int
links(void)
{
    return ts_small() ? 10000 : 1000000;
}

/* Long operations get a longer bound than ordinary waits. */
static double
long_wait(void)
{
    double w = ts_wait_seconds();
    return w < 90 ? 90 : w;
}

/* Builds n links on head, dropping each intermediate promise; returns the tail (+1). */
static vow_promise *
build_chain(vow_promise *head, int n, counters *c, int with_error_callback)
{
    vow_promise *prev = vow_promise_retain(head);
    for (int i = 0; i < n; i++) {
        vow_promise *next =
            vow_then(prev, count_and_pass, with_error_callback ? count_error : NULL, c, count_destroy);
        vow_promise_release(prev);
        if (next == NULL) {
            CHECK(!"vow_then returned NULL while building the chain");
            return NULL;
        }
        prev = next;
    }
    return prev;
}

static void
test_deep_chain_resolves(void)
{
    const int n = links();
    counters c = {0};
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    double t0 = now_seconds();
    vow_promise *tail = build_chain(head, n, &c, 0);
    REQUIRE(tail != NULL);
    double t1 = now_seconds();
    vow_value *v = vow_value_string("bottom");
    CHECK_EQ_INT(vow_resolver_resolve(r, v), VOW_OK);
    vow_value *got = NULL;
    CHECK_EQ_INT(vow_wait(tail, long_wait(), &got, NULL), VOW_FULFILLED);
    double t2 = now_seconds();
    CHECK_EQ_PTR(got, v);
    CHECK_EQ_INT(atomic_load(&c.calls), n);
    CHECK(wait_counter(&c.destroyed, n, long_wait()));
    CHECK_EQ_INT(atomic_load(&c.destroyed), n);
    printf("    %d links: built in %.2f s, settled in %.2f s\n", n, t1 - t0, t2 - t1);
    vow_value_release(got);
    vow_value_release(v);
    vow_promise_release(tail);
    vow_resolver_release(r);
    vow_promise_release(head);
}

static int
is_broken(const vow_error *e)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0 &&
           vow_error_code(e) == VOW_ERROR_BROKEN;
}

static void
test_deep_chain_broken_travels(void)
{
    const int n = links();
    counters c = {0};
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    /* Half the links have an error callback that rethrows. */
    vow_promise *mid = build_chain(head, n / 2, &c, 1);
    REQUIRE(mid != NULL);
    vow_promise *tail = build_chain(mid, n - n / 2, &c, 0);
    REQUIRE(tail != NULL);
    vow_promise_release(mid);
    vow_promise_release(head);
    double t0 = now_seconds();
    vow_resolver_release(r); /* unused: BROKEN */
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(tail, long_wait(), NULL, &e), VOW_REJECTED);
    printf("    %d links: BROKEN reached the tail in %.2f s\n", n, now_seconds() - t0);
    CHECK(is_broken(e));
    CHECK_EQ_INT(atomic_load(&c.calls), 0);
    CHECK_EQ_INT(atomic_load(&c.error_calls), n / 2);
    CHECK(wait_counter(&c.destroyed, n, long_wait()));
    CHECK_EQ_INT(atomic_load(&c.destroyed), n);
    vow_error_release(e);
    vow_promise_release(tail);
}

static void
test_deep_chain_dropped_unresolved(void)
{
    /* Nobody holds any promise of the chain, only the resolver; dropping it frees all. */
    const int n = links();
    counters c = {0};
    unhandled_counter_install();
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    vow_promise *tail = build_chain(head, n, &c, 0);
    REQUIRE(tail != NULL);
    vow_promise_release(tail);
    vow_promise_release(head);
    double t0 = now_seconds();
    vow_resolver_release(r);
    CHECK(wait_counter(&c.destroyed, n, long_wait()));
    printf("    %d links: dropped chain freed in %.2f s\n", n, now_seconds() - t0);
    CHECK_EQ_INT(atomic_load(&c.destroyed), n);
    CHECK_EQ_INT(atomic_load(&c.calls), 0);
    /* Exactly one unhandled rejection: the end of the chain. */
    CHECK(wait_counter(&ts_unhandled_total, 1, long_wait()));
    flush_default();
    CHECK_EQ_INT(unhandled_count(), 1);
    CHECK_EQ_INT(unhandled_count_matching("vow", VOW_ERROR_BROKEN), 1);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

static void
test_deep_chain_cancel_from_tail(void)
{
    /* A cancellation travelling up the whole chain, iteratively. */
    const int n = links();
    counters c = {0};
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    vow_promise *tail = build_chain(head, n, &c, 1);
    REQUIRE(tail != NULL);
    track *t = track_new();
    vow_resolver_on_cancel(r, track_fn, t, track_destroy);
    double t0 = now_seconds();
    vow_cancel(tail);
    CHECK_EQ_INT(vow_promise_state(head), VOW_REJECTED);
    CHECK(wait_counter(&t->calls, 1, long_wait()));
    printf("    %d links: cancellation reached the head in %.2f s\n", n, now_seconds() - t0);
    CHECK(wait_counter(&c.destroyed, n, long_wait()));
    CHECK_EQ_INT(atomic_load(&c.destroyed), n);
    CHECK_EQ_INT(atomic_load(&c.calls), 0);
    CHECK_EQ_INT(atomic_load(&c.error_calls), 0);
    vow_promise_release(tail);
    vow_resolver_release(r);
    vow_promise_release(head);
}

static void
test_deep_adoption_chain(void)
{
    /* p0 adopts p1, which adopts p2, ...: the last one's value reaches p0. */
    const int n = links() / 10;
    vow_resolver *r0 = NULL;
    vow_promise *p0 = vow_promise_pending(&r0);
    vow_resolver *r = vow_resolver_retain(r0);
    int refused = 0;
    double t0 = now_seconds();
    for (int i = 0; i < n; i++) {
        vow_resolver *rn = NULL;
        vow_promise *pn = vow_promise_pending(&rn);
        vow_value *pv = vow_value_promise(pn);
        if (vow_resolver_resolve(r, pv) != VOW_OK) refused++;
        vow_value_release(pv);
        vow_promise_release(pn);
        vow_resolver_release(r);
        r = rn;
    }
    CHECK_EQ_INT(refused, 0);
    vow_value *v = vow_value_int(7);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    vow_value *got = NULL;
    CHECK_EQ_INT(vow_wait(p0, long_wait(), &got, NULL), VOW_FULFILLED);
    printf("    %d nested adoptions settled in %.2f s\n", n, now_seconds() - t0);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_value_release(v);
    vow_resolver_release(r);
    vow_resolver_release(r0);
    vow_promise_release(p0);
}

static void
test_deep_inline_chain(void)
{
    /* On the inline dispatcher every link runs inside the settling call: still no recursion. */
    const int n = links();
    counters c = {0};
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    vow_dispatcher *in = vow_dispatcher_inline();
    vow_promise *prev = vow_promise_retain(head);
    for (int i = 0; i < n; i++) {
        vow_promise *next = vow_then_on(in, prev, count_and_pass, NULL, &c, count_destroy);
        vow_promise_release(prev);
        prev = next;
        if (prev == NULL) break;
    }
    REQUIRE(prev != NULL);
    vow_value *v = vow_value_int(3);
    double t0 = now_seconds();
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    /* Settled by the time fulfill returned. */
    CHECK_EQ_INT(vow_promise_state(prev), VOW_FULFILLED);
    printf("    %d inline links settled in %.2f s\n", n, now_seconds() - t0);
    CHECK_EQ_INT(atomic_load(&c.calls), n);
    vow_value *got = vow_promise_value(prev);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_value_release(v);
    vow_promise_release(prev);
    vow_resolver_release(r);
    vow_promise_release(head);
    CHECK(wait_counter(&c.destroyed, n, long_wait()));
    CHECK_EQ_INT(atomic_load(&c.destroyed), n);
}

TEST_MAIN_BEGIN("test_deep_chain")
    RUN_TEST(test_deep_chain_resolves);
    RUN_TEST(test_deep_chain_broken_travels);
    RUN_TEST(test_deep_chain_dropped_unresolved);
    RUN_TEST(test_deep_chain_cancel_from_tail);
    RUN_TEST(test_deep_adoption_chain);
    RUN_TEST(test_deep_inline_chain);
TEST_MAIN_END
