/* test_helpers.c: vow_promise_lazy, vow_delay, vow_retry, a timed-out vow_wait and
 * unhandled reports, and the time rule (NaN, infinities, negative) of every call that
 * takes seconds. vow_delay and vow_wait are checked against the real clock; retry's pauses
 * and "never" (+infinity) run on a test loop's virtual time (vow_testing.h), where "it has
 * not fired after all timers ran" is exact instead of a bounded sleep. */
#include "test_support.h"

#include <math.h>

#include "vow_testing.h"

/* A test loop installed on this thread (release it with vow_test_loop_release). */
static vow_test_loop *
installed_loop(void)
{
    vow_test_loop *l = vow_test_loop_new(0);
    if (l == NULL || vow_test_loop_install(l) != VOW_OK) abort();
    return l;
}

/* ---- lazy promises ---- */

typedef struct lazy_ctx {
    track *t;
    int64_t value;
} lazy_ctx;

static void
lazy_fulfil(void *ctx, vow_resolver *r)
{
    lazy_ctx *c = ctx;
    track_hit(c->t);
    vow_value *v = vow_value_int(c->value);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    vow_value_release(v);
}

static void
lazy_drop_resolver(void *ctx, vow_resolver *r)
{
    (void)r;
    track_hit(ctx);
}

static void
lazy_ctx_destroy(void *ctx)
{
    lazy_ctx *c = ctx;
    track_destroy(c->t);
    free(c);
}

static lazy_ctx *
lazy_ctx_new(int64_t value)
{
    lazy_ctx *c = malloc(sizeof *c);
    c->t = track_new();
    c->value = value;
    return c;
}

static int64_t
int_of(vow_value *v)
{
    int64_t i = -1;
    vow_value_get_int(v, &i);
    return i;
}

static void
test_lazy_starts_on_first_handler(void)
{
    lazy_ctx *c = lazy_ctx_new(7);
    track *t = c->t;
    vow_promise *p = vow_promise_lazy(lazy_fulfil, c, lazy_ctx_destroy);
    REQUIRE(p != NULL);
    flush_default();
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(track_destroyed(t), 0);
    track *pass = track_new();
    vow_promise *q = vow_then(p, track_on_value_pass, NULL, pass, track_destroy);
    vow_value *v = NULL;
    CHECK_EQ_INT(wait_promise(q, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(int_of(v), 7);
    vow_value_release(v);
    /* A second handler does not run the body again. */
    vow_promise *q2 = vow_then(p, track_on_value_pass, NULL, track_new(), track_destroy);
    CHECK_EQ_INT(wait_promise(q2, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(track_destroyed(t), 1);
    vow_promise_release(q2);
    vow_promise_release(q);
    vow_promise_release(p);
}

static void
test_lazy_starts_on_wait(void)
{
    lazy_ctx *c = lazy_ctx_new(8);
    track *t = c->t;
    vow_promise *p = vow_promise_lazy(lazy_fulfil, c, lazy_ctx_destroy);
    vow_value *v = NULL;
    CHECK_EQ_INT(wait_promise(p, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(int_of(v), 8);
    CHECK_EQ_INT(track_calls(t), 1);
    vow_value_release(v);
    vow_promise_release(p);
    /* A wait that times out still starts it. */
    c = lazy_ctx_new(9);
    t = c->t;
    p = vow_promise_lazy_on(vow_dispatcher_background(), lazy_fulfil, c, lazy_ctx_destroy);
    (void)vow_wait(p, 0, NULL, NULL);
    CHECK(wait_counter(&t->calls, 1, ts_wait_seconds()));
    CHECK_EQ_INT(wait_promise(p, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(p);
}

static void
test_lazy_cancelled_never_runs(void)
{
    lazy_ctx *c = lazy_ctx_new(1);
    track *t = c->t;
    vow_promise *p = vow_promise_lazy(lazy_fulfil, c, lazy_ctx_destroy);
    vow_cancel(p);
    CHECK(wait_counter(&t->destroyed, 1, ts_wait_seconds()));
    vow_promise *q = vow_then(p, track_on_value_pass, NULL, track_new(), track_destroy);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(q, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_CANCELLED);
    vow_error_release(e);
    flush_default();
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(track_destroyed(t), 1);
    vow_promise_release(q);
    vow_promise_release(p);
    /* Released unstarted: destroy runs at once, the body never. */
    c = lazy_ctx_new(2);
    t = c->t;
    vow_promise_release(vow_promise_lazy(lazy_fulfil, c, lazy_ctx_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    CHECK_EQ_INT(track_calls(t), 0);
}

static void
test_lazy_bad_input_and_broken(void)
{
    track *t = track_new();
    CHECK_NULL(vow_promise_lazy(NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_promise_lazy_on(NULL, lazy_drop_resolver, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    /* A body that drops its resolver unused breaks the promise. */
    t = track_new();
    vow_promise *p = vow_promise_lazy(lazy_drop_resolver, t, track_destroy);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_BROKEN);
    CHECK_EQ_INT(track_calls(t), 1);
    vow_error_release(e);
    vow_promise_release(p);
}

/* ---- vow_delay ---- */

static void
test_delay(void)
{
    vow_value *v = vow_value_int(5);
    vow_promise *p = vow_promise_fulfilled(v);
    double start = now_seconds();
    vow_promise *d = vow_delay(p, 0.05);
    vow_value *out = NULL;
    CHECK_EQ_INT(wait_promise(d, &out, NULL), VOW_FULFILLED);
    CHECK(now_seconds() - start >= 0.049);
    CHECK_EQ_PTR(out, v);
    vow_value_release(out);
    vow_promise_release(d);
    vow_promise_release(p);
    /* A rejection passes at once. */
    vow_error *e = vow_error_new("t.delay", 1, "");
    p = vow_promise_rejected(e);
    start = now_seconds();
    d = vow_delay(p, 30);
    vow_error *seen = NULL;
    CHECK_EQ_INT(wait_promise(d, NULL, &seen), VOW_REJECTED);
    CHECK_EQ_PTR(seen, e);
    CHECK(now_seconds() - start < 20);
    vow_error_release(seen);
    vow_promise_release(d);
    vow_promise_release(p);
    vow_error_release(e);
    /* Cancelled during the pause: cancelled at once. */
    p = vow_promise_fulfilled(v);
    d = vow_delay(p, 30);
    vow_cancel(d);
    CHECK_EQ_INT(vow_wait(d, 1, NULL, &seen), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(seen), VOW_ERROR_CANCELLED);
    vow_error_release(seen);
    vow_promise_release(d);
    vow_promise_release(p);
    vow_value_release(v);
    CHECK_NULL(vow_delay(NULL, 1));
}

/* ---- vow_retry ---- */

typedef struct retry_ctx {
    track *t;
    atomic_int made;
    atomic_int asked;
    int succeed_on;       /* attempt that fulfils (0: never) */
    int64_t refuse_code;  /* should_retry refuses this code */
    int make_null;        /* make returns NULL */
} retry_ctx;

static vow_promise *
retry_make(void *ctx)
{
    retry_ctx *c = ctx;
    int n = atomic_fetch_add(&c->made, 1) + 1;
    if (c->make_null) return NULL;
    if (n == c->succeed_on) {
        vow_value *v = vow_value_int(n);
        vow_promise *p = vow_promise_fulfilled(v);
        vow_value_release(v);
        return p;
    }
    vow_error *e = vow_error_new("t.retry", n, "attempt failed");
    vow_promise *p = vow_promise_rejected(e);
    vow_error_release(e);
    return p;
}

static bool
retry_if(void *ctx, const vow_error *error)
{
    retry_ctx *c = ctx;
    atomic_fetch_add(&c->asked, 1);
    return vow_error_code(error) != c->refuse_code;
}

static void
retry_ctx_destroy(void *ctx)
{
    retry_ctx *c = ctx;
    track_destroy(c->t);
}

static retry_ctx *
retry_ctx_new(int succeed_on, int64_t refuse_code)
{
    retry_ctx *c = calloc(1, sizeof *c);
    c->t = track_new();
    c->succeed_on = succeed_on;
    c->refuse_code = refuse_code;
    return c;
}

static void
test_retry(void)
{
    /* Succeeds on the 3rd attempt; make never runs inside the call. */
    retry_ctx *c = retry_ctx_new(3, -1);
    vow_promise *p = vow_retry(5, 0, retry_make, NULL, c, retry_ctx_destroy);
    REQUIRE(p != NULL);
    vow_value *v = NULL;
    CHECK_EQ_INT(wait_promise(p, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(int_of(v), 3);
    CHECK_EQ_INT(atomic_load(&c->made), 3);
    vow_value_release(v);
    vow_promise_release(p);
    CHECK(wait_counter(&c->t->destroyed, 1, ts_wait_seconds()));
    free(c);
    /* Gives up after times attempts, with the last error; waits the delay between (on a
       test loop: exactly). */
    vow_test_loop *l = installed_loop();
    c = retry_ctx_new(0, -1);
    p = vow_retry(3, 0.02, retry_make, retry_if, c, retry_ctx_destroy);
    vow_test_loop_run_until_idle(l);
    CHECK_EQ_INT(atomic_load(&c->made), 1);
    vow_test_loop_advance(l, 0.019);
    CHECK_EQ_INT(atomic_load(&c->made), 1);
    vow_test_loop_advance(l, 0.001);
    CHECK_EQ_INT(atomic_load(&c->made), 2);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    vow_test_loop_advance(l, 0.02);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(p, 0, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), 3);
    CHECK_EQ_INT(atomic_load(&c->asked), 2);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK_EQ_INT(track_destroyed(c->t), 1);
    free(c);
    vow_test_loop_release(l);
    /* The predicate refuses attempt 2's error: no 3rd attempt. */
    c = retry_ctx_new(0, 2);
    p = vow_retry(5, 0, retry_make, retry_if, c, retry_ctx_destroy);
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), 2);
    CHECK_EQ_INT(atomic_load(&c->made), 2);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&c->t->destroyed, 1, ts_wait_seconds()));
    free(c);
    /* make returning NULL fails the attempt with a type error. */
    c = retry_ctx_new(0, -1);
    c->make_null = 1;
    p = vow_retry(2, 0, retry_make, NULL, c, retry_ctx_destroy);
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_TYPE);
    CHECK_EQ_INT(atomic_load(&c->made), 2);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&c->t->destroyed, 1, ts_wait_seconds()));
    free(c);
    /* NULL make: NULL, destroy ran. */
    track *t = track_new();
    CHECK_NULL(vow_retry(3, 0, NULL, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
}

static vow_promise *
retry_make_pending(void *ctx)
{
    retry_ctx *c = ctx;
    atomic_fetch_add(&c->made, 1);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    c->t->data = r; /* kept so the attempt stays pending; released by the test */
    return p;
}

static void
test_retry_cancelled(void)
{
    retry_ctx *c = retry_ctx_new(0, -1);
    vow_promise *p = vow_retry(5, 0, retry_make_pending, NULL, c, retry_ctx_destroy);
    CHECK(wait_counter(&c->made, 1, ts_wait_seconds()));
    vow_cancel(p);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_CANCELLED);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&c->t->destroyed, 1, ts_wait_seconds()));
    flush_default();
    CHECK_EQ_INT(atomic_load(&c->made), 1);
    vow_resolver_release(c->t->data);
    free(c);
}

/* ---- a wait that timed out does not handle the rejection ---- */

static void
test_timed_out_wait_does_not_handle(void)
{
    unhandled_counter_reset();
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_wait(p, 0.01, NULL, NULL), VOW_PENDING);
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_PENDING);
    vow_error *e = vow_error_new("t.timedout", 1, "after the wait");
    vow_resolver_reject(r, e);
    vow_resolver_release(r);
    vow_promise_release(p);
    double end = now_seconds() + ts_wait_seconds();
    while (unhandled_count_matching("t.timedout", 1) < 1 && now_seconds() < end) sleep_seconds(0.001);
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("t.timedout", 1), 1);
    /* A wait that saw the rejection handles it. */
    p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_PENDING);
    vow_resolver_reject(r, e);
    vow_resolver_release(r);
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_REJECTED);
    vow_promise_release(p);
    flush_default();
    sleep_seconds(0.02);
    CHECK_EQ_INT(unhandled_count_matching("t.timedout", 1), 1);
    vow_error_release(e);
}

/* ---- the time rule ---- */

static stderr_capture cap;

/* Ends the capture; checks that exactly one misuse line names fname. */
static void
check_misuse_line(const char *fname)
{
    char *text = capture_stderr_end(&cap);
    char needle[96];
    snprintf(needle, sizeof needle, "vow: %s: NaN seconds", fname);
    if (!CHECK_EQ_INT(count_lines_containing(text, needle), 1)) fprintf(stderr, "    stderr was: <<%s>>\n", text);
    free(text);
}

static void
release_resolver_later(vow_resolver *r)
{
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_resolver_release(r);
}

static void *
fulfil_after_pause(void *r)
{
    sleep_seconds(0.05);
    release_resolver_later(r);
    return NULL;
}

static void
test_wait_time_rule(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    /* NaN: a misuse line, no wait. */
    capture_stderr_begin(&cap);
    double start = now_seconds();
    CHECK_EQ_INT(vow_wait(p, NAN, NULL, NULL), VOW_PENDING);
    CHECK(now_seconds() - start < 2);
    check_misuse_line("vow_wait");
    /* 0: no wait. */
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_PENDING);
    /* +INFINITY, -INFINITY and negative: no limit (waits until settled). */
    double limits[] = { INFINITY, -INFINITY, -1 };
    for (int i = 0; i < 3; i++) {
        pthread_t th;
        REQUIRE(pthread_create(&th, NULL, fulfil_after_pause, r) == 0);
        CHECK_EQ_INT(vow_wait(p, limits[i], NULL, NULL), VOW_FULFILLED);
        pthread_join(th, NULL);
        vow_promise_release(p);
        if (i < 2) p = vow_promise_pending(&r);
    }
}

static void
test_after_time_rule(void)
{
    /* Zero, negative, -INFINITY: at once. */
    double now_cases[] = { 0, -1, -INFINITY };
    for (int i = 0; i < 3; i++) {
        vow_promise *p = vow_after(now_cases[i]);
        CHECK_EQ_INT(vow_wait(p, 5, NULL, NULL), VOW_FULFILLED);
        vow_promise_release(p);
    }
    /* NaN: at once, with a misuse line. */
    capture_stderr_begin(&cap);
    vow_promise *p = vow_after(NAN);
    check_misuse_line("vow_after");
    CHECK_EQ_INT(vow_wait(p, 5, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(p);
    /* +INFINITY: never (until cancelled): not after every timer of a test loop ran. */
    vow_test_loop *l = installed_loop();
    p = vow_after(INFINITY);
    vow_test_loop_advance(l, INFINITY);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    vow_cancel(p);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    vow_promise_release(p);
    vow_test_loop_release(l);
}

static void
test_timeout_time_rule(void)
{
    double now_cases[] = { 0, -1, -INFINITY, NAN };
    for (int i = 0; i < 4; i++) {
        vow_resolver *r = NULL;
        vow_promise *slow = vow_promise_pending(&r);
        if (isnan(now_cases[i])) capture_stderr_begin(&cap);
        vow_promise *t = vow_timeout(slow, now_cases[i]);
        if (isnan(now_cases[i])) check_misuse_line("vow_timeout");
        vow_error *e = NULL;
        CHECK_EQ_INT(vow_wait(t, 5, NULL, &e), VOW_REJECTED);
        CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_TIMEOUT);
        vow_error_release(e);
        vow_promise_release(t);
        vow_promise_release(slow);
        vow_resolver_release(r);
    }
    /* +INFINITY: never times out (not after every timer of a test loop ran). */
    vow_test_loop *l = installed_loop();
    vow_resolver *r = NULL;
    vow_promise *slow = vow_promise_pending(&r);
    vow_promise *t = vow_timeout(slow, INFINITY);
    vow_test_loop_advance(l, INFINITY);
    CHECK_EQ_INT(vow_promise_state(t), VOW_PENDING);
    release_resolver_later(r);
    CHECK_EQ_INT(vow_promise_state(t), VOW_FULFILLED);
    vow_promise_release(t);
    vow_promise_release(slow);
    vow_test_loop_release(l);
}

static void
test_delay_time_rule(void)
{
    vow_value *v = vow_value_int(2);
    vow_promise *p = vow_promise_fulfilled(v);
    double now_cases[] = { 0, -1, -INFINITY, NAN };
    for (int i = 0; i < 4; i++) {
        if (isnan(now_cases[i])) capture_stderr_begin(&cap);
        vow_promise *d = vow_delay(p, now_cases[i]);
        if (isnan(now_cases[i])) check_misuse_line("vow_delay");
        CHECK_EQ_INT(vow_wait(d, 5, NULL, NULL), VOW_FULFILLED);
        vow_promise_release(d);
    }
    /* +INFINITY: the value never passes (not after every timer of a test loop ran). */
    vow_test_loop *l = installed_loop();
    vow_promise *d = vow_delay(p, INFINITY);
    vow_test_loop_advance(l, INFINITY);
    CHECK_EQ_INT(vow_promise_state(d), VOW_PENDING);
    vow_cancel(d);
    vow_promise_release(d);
    vow_promise_release(p);
    vow_value_release(v);
    vow_test_loop_release(l);
}

static void
test_retry_time_rule(void)
{
    double now_cases[] = { -1, -INFINITY, NAN };
    for (int i = 0; i < 3; i++) {
        retry_ctx *c = retry_ctx_new(0, -1);
        if (isnan(now_cases[i])) capture_stderr_begin(&cap);
        vow_promise *p = vow_retry(3, now_cases[i], retry_make, NULL, c, retry_ctx_destroy);
        if (isnan(now_cases[i])) check_misuse_line("vow_retry");
        vow_error *e = NULL;
        CHECK_EQ_INT(vow_wait(p, 5, NULL, &e), VOW_REJECTED);
        CHECK_EQ_INT(vow_error_code(e), 3);
        vow_error_release(e);
        vow_promise_release(p);
        CHECK(wait_counter(&c->t->destroyed, 1, ts_wait_seconds()));
        free(c);
    }
    /* +INFINITY: the next attempt never comes, so the first failure is final. */
    retry_ctx *c = retry_ctx_new(0, -1);
    vow_promise *p = vow_retry(3, INFINITY, retry_make, NULL, c, retry_ctx_destroy);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(p, 5, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), 1);
    CHECK_EQ_INT(atomic_load(&c->made), 1);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&c->t->destroyed, 1, ts_wait_seconds()));
    free(c);
}

TEST_MAIN_BEGIN("test_helpers")
    unhandled_counter_install();
    RUN_TEST(test_lazy_starts_on_first_handler);
    RUN_TEST(test_lazy_starts_on_wait);
    RUN_TEST(test_lazy_cancelled_never_runs);
    RUN_TEST(test_lazy_bad_input_and_broken);
    RUN_TEST(test_delay);
    RUN_TEST(test_retry);
    RUN_TEST(test_retry_cancelled);
    RUN_TEST(test_timed_out_wait_does_not_handle);
    RUN_TEST(test_wait_time_rule);
    RUN_TEST(test_after_time_rule);
    RUN_TEST(test_timeout_time_rule);
    RUN_TEST(test_delay_time_rule);
    RUN_TEST(test_retry_time_rule);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
