/* test_consume.c: vow_consume walks a chain with one variable, releasing each intermediate. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static void
add_one(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    int64_t i = 0;
    vow_value_get_int(value, &i);
    vow_value *next = vow_value_int(i + 1);
    vow_result_return(out, next);
    vow_value_release(next);
}

static void
fail_on_three(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    int64_t i = 0;
    vow_value_get_int(value, &i);
    if (i != 3) {
        vow_result_return(out, value);
        return;
    }
    vow_error *e = vow_error_new("test.consume", 3, "three is not allowed");
    vow_result_throw(out, e);
    vow_error_release(e);
}

static void
recover_with_code(void *ctx, const vow_error *error, vow_result *out)
{
    track_hit(ctx);
    vow_value *v = vow_value_int(100 + vow_error_code(error));
    vow_result_return(out, v);
    vow_value_release(v);
}

/* The value of an intermediate promise that reports when it is freed. */
static atomic_int freed_values;

static void
value_freed(void *p)
{
    (void)p;
    atomic_fetch_add(&freed_values, 1);
}

static void
test_chain_with_one_variable(void)
{
    unhandled_counter_install();
    atomic_store(&freed_values, 0);
    vow_value *start = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(start);
    vow_value_release(start);
    track *caught = track_new(), *fin = track_new();
    p = vow_consume(p, vow_then(p, add_one, NULL, NULL, NULL));                 /* 2 */
    p = vow_consume(p, vow_then(p, add_one, NULL, NULL, NULL));                 /* 3 */
    p = vow_consume(p, vow_then(p, fail_on_three, NULL, NULL, NULL));           /* rejects */
    p = vow_consume(p, vow_timeout(p, 30.0));
    p = vow_consume(p, vow_catch(p, recover_with_code, caught, track_destroy)); /* 103 */
    p = vow_consume(p, vow_finally(p, track_fn, fin, track_destroy));
    REQUIRE(p != NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(got, &i), VOW_OK);
    CHECK_EQ_INT(i, 103);
    vow_value_release(got);
    CHECK_EQ_INT(track_calls(caught), 1);
    CHECK_EQ_INT(track_calls(fin), 1);
    vow_promise_release(p); /* the only reference the program holds */
    flush_default();
    CHECK_EQ_INT(unhandled_count(), 0); /* the rejection in the middle was handled */
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

/* The intermediates are freed once the chain no longer needs them: nothing leaks (valgrind
   and ASan check the rest), and a value held only by an intermediate is freed with it. */
static void
test_intermediates_are_freed(void)
{
    atomic_store(&freed_values, 0);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_resolver *keep = vow_resolver_retain(r);
    vow_resolver_release(r);
    p = vow_consume(p, vow_then(p, NULL, NULL, NULL, NULL));
    p = vow_consume(p, vow_then(p, NULL, NULL, NULL, NULL));
    vow_value *traced = vow_value_pointer(&freed_values, value_freed);
    CHECK_EQ_INT(vow_resolver_fulfill(keep, traced), VOW_OK);
    vow_value_release(traced);
    vow_resolver_release(keep);
    CHECK_EQ_INT(wait_promise(p, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(atomic_load(&freed_values), 0); /* p still holds the value */
    vow_promise_release(p);
    flush_default();
    CHECK(wait_counter(&freed_values, 1, ts_wait_seconds())); /* the head and the middle went too */
}

static void
test_null_travels_down(void)
{
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    vow_value_release(one);
    track *t = track_new();
    /* vow_catch with no callback fails: NULL, p released; the calls after answer NULL too. */
    p = vow_consume(p, vow_catch(p, NULL, NULL, NULL));
    CHECK_NULL(p);
    p = vow_consume(p, vow_then(p, add_one, NULL, t, track_destroy));
    CHECK_NULL(p);
    CHECK_EQ_INT(track_destroyed(t), 1); /* the failing call ran destroy */
    CHECK_NULL(vow_consume(NULL, NULL));
}

static void
test_bad_input(void)
{
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    /* next of the wrong kind: a misuse line, NULL returned, next left alone (the caller
       still owns it), and prev released all the same, as for a NULL next (the header's
       rule): prev's value goes with prev, its last reference. */
    atomic_store(&freed_values, 0);
    vow_value *traced = vow_value_pointer(&freed_values, value_freed);
    vow_promise *prev = vow_promise_fulfilled(traced);
    vow_value_release(traced);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_promise *got = vow_consume(prev, (vow_promise *)v);
    char *text = capture_stderr_end(&cap);
    CHECK_NULL(got);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_consume: expected a vow_promise, got a vow_value"), 1);
    free(text);
    CHECK(wait_counter(&freed_values, 1, ts_wait_seconds())); /* prev was released */
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_INT); /* still alive: the test's reference */
    /* prev of the wrong kind: vow_promise_release's answer (a line), next returned. */
    capture_stderr_begin(&cap);
    got = vow_consume((vow_promise *)v, p);
    text = capture_stderr_end(&cap);
    CHECK_EQ_PTR(got, p);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_consume: expected a vow_promise, got a vow_value"), 1);
    free(text);
    vow_promise_release(got);
    vow_value_release(v);
}

TEST_MAIN_BEGIN("test_consume")
RUN_TEST(test_chain_with_one_variable);
RUN_TEST(test_intermediates_are_freed);
RUN_TEST(test_null_travels_down);
RUN_TEST(test_bad_input);
TEST_MAIN_END
