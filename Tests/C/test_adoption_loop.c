/*
 * test_adoption_loop.c: a loop whose every step is a vow_then callback that
 * returns the next step's promise through vow_result_return. The library
 * collapses the adoption chain: the loop settles after 1,000,000 steps
 * (VOW_TEST_SCALE=small: 10,000) without recursion, cancelling the outermost
 * promise reaches the step that is pending now (its producer's
 * vow_resolver_on_cancel handler runs), and a rejection at the end reaches
 * the outermost promise. The bytes per step are measured by
 * scripts/check-allocations.sh (Tests/Alloc/loop_bytes.c).
 */
#include "test_support.h"

/* How step 0 ends the loop: 0 fulfilled with 7, 1 pending (a producer that
   records its cancellation), 2 rejected. */
static int end_kind;
static atomic_int end_started;
static atomic_int end_cancelled;
static atomic_int end_destroyed;
static vow_resolver *end_resolver;

static void
on_end_cancel(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&end_cancelled, 1);
}

static void
on_end_destroy(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&end_destroyed, 1);
}

static vow_promise *
loop_end(void)
{
    atomic_fetch_add(&end_started, 1);
    if (end_kind == 1) {
        vow_promise *p = vow_promise_pending(&end_resolver);
        CHECK_EQ_INT(vow_resolver_on_cancel(end_resolver, on_end_cancel, NULL, on_end_destroy), VOW_OK);
        return p;
    }
    if (end_kind == 2) {
        vow_error *e = vow_error_new("loop", 42, "the end");
        vow_promise *p = vow_promise_rejected(e);
        vow_error_release(e);
        return p;
    }
    vow_value *v = vow_value_int(7);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    return p;
}

static vow_promise *step(int64_t k);

/* The step's callback: returns the next step's promise (adopted by this one). */
static void
on_step(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    int64_t k = 0;
    CHECK_EQ_INT(vow_value_get_int(value, &k), VOW_OK);
    vow_promise *next = step(k - 1);
    vow_value *carried = vow_value_promise(next);
    vow_result_return(out, carried);
    vow_value_release(carried);
    vow_promise_release(next);
}

/* step(k): k == 0 ? the end : fulfilled(k) then on_step. Returns +1. */
static vow_promise *
step(int64_t k)
{
    if (k == 0) return loop_end();
    vow_value *v = vow_value_int(k);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    vow_promise *q = vow_then(p, on_step, NULL, NULL, NULL);
    vow_promise_release(p);
    return q;
}

static int64_t
steps(void)
{
    return ts_small() ? 10000 : 1000000;
}

static double
long_wait(void)
{
    double w = ts_wait_seconds();
    return w < 120 ? 120 : w;
}

static void
reset(int kind)
{
    end_kind = kind;
    atomic_store(&end_started, 0);
    atomic_store(&end_cancelled, 0);
    atomic_store(&end_destroyed, 0);
    end_resolver = NULL;
}

static void
test_loop_settles(void)
{
    reset(0);
    const int64_t n = steps();
    double t0 = now_seconds();
    vow_promise *outer = step(n);
    vow_value *got = NULL;
    CHECK_EQ_INT(vow_wait(outer, long_wait(), &got, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(got, &i), VOW_OK);
    CHECK_EQ_INT(i, 7);
    printf("    %lld steps settled in %.2f s\n", (long long)n, now_seconds() - t0);
    vow_value_release(got);
    vow_promise_release(outer);
}

static void
test_cancel_reaches_running_step(void)
{
    reset(1);
    const int64_t n = steps();
    vow_promise *outer = step(n);
    REQUIRE(wait_counter(&end_started, 1, long_wait()));
    CHECK_EQ_INT(vow_promise_state(outer), VOW_PENDING);
    vow_cancel(outer);
    CHECK_EQ_INT(vow_promise_state(outer), VOW_REJECTED);
    vow_error *e = vow_promise_error(outer);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    /* The pending end was the only thing the outermost promise waited on. */
    CHECK(wait_counter(&end_cancelled, 1, ts_wait_seconds()));
    CHECK(vow_resolver_is_settled(end_resolver));
    vow_resolver_release(end_resolver);
    vow_promise_release(outer);
    CHECK(wait_counter(&end_destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&end_cancelled), 1);
}

static void
test_pending_end_then_fulfilled(void)
{
    reset(1);
    vow_promise *outer = step(1000);
    REQUIRE(wait_counter(&end_started, 1, long_wait()));
    vow_value *v = vow_value_int(5);
    CHECK_EQ_INT(vow_resolver_fulfill(end_resolver, v), VOW_OK);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(outer, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_value_release(v);
    vow_resolver_release(end_resolver);
    vow_promise_release(outer);
    CHECK(wait_counter(&end_destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&end_cancelled), 0);
}

static void
test_rejection_reaches_outer(void)
{
    reset(2);
    vow_promise *outer = step(1000);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(outer, NULL, &e), VOW_REJECTED);
    CHECK_EQ_STR(vow_error_domain(e), "loop");
    CHECK_EQ_INT(vow_error_code(e), 42);
    vow_error_release(e);
    vow_promise_release(outer);
}

TEST_MAIN_BEGIN("test_adoption_loop")
    RUN_TEST(test_loop_settles);
    RUN_TEST(test_cancel_reaches_running_step);
    RUN_TEST(test_pending_end_then_fulfilled);
    RUN_TEST(test_rejection_reaches_outer);
TEST_MAIN_END
