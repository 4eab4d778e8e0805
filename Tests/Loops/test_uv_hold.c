/* test_uv_hold.c: vow_uv_hold keeps uv_run(UV_RUN_DEFAULT) going until a promise settles,
 * whatever settles it (a Vow timer, another thread), and no longer. */
#define _GNU_SOURCE
#include "uv_support.h"

/* The last step of the work: records where it ran and passes the value on. */
static void
record_and_pass(void *ctx, const vow_value *value, vow_result *out)
{
    track_hit(ctx);
    vow_result_return(out, value);
}

/* Without a hold, uv_run returns while a Vow timer still runs (the reason for holds). */
static void
test_without_a_hold_uv_run_returns_early(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_promise *later = vow_after(0.05);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(later), VOW_PENDING);
    CHECK_EQ_INT(wait_promise(later, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(later);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

/* With a hold on the end of the chain, uv_run returns exactly when it is done. */
static void
test_hold_until_a_vow_timer(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    track *t = track_new();
    double start = now_seconds();
    vow_promise *later = vow_after(0.05);
    vow_promise *end = vow_then_on(d, later, record_and_pass, NULL, t, track_destroy);
    CHECK_EQ_INT(vow_uv_hold(d, end), VOW_OK);
    CHECK(run_bounded(&tl));
    CHECK(now_seconds() - start >= 0.045);
    CHECK_EQ_INT(vow_promise_state(end), VOW_FULFILLED); /* done when uv_run returned */
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(ran_on(t, pthread_self())); /* the callback ran inside uv_run */
    /* The hold ended: another uv_run has nothing to do and returns at once. */
    start = now_seconds();
    CHECK(run_bounded(&tl));
    CHECK(now_seconds() - start < 1.0);
    vow_promise_release(later);
    vow_promise_release(end);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

typedef struct late_settler {
    vow_resolver *r;
    double delay;
    vow_promise *hold_this; /* held from the thread, if set */
    vow_dispatcher *d;
    int hold_rc;
} late_settler;

static void *
settle_later(void *arg)
{
    late_settler *s = arg;
    if (s->hold_this != NULL) {
        sleep_seconds(0.01);
        s->hold_rc = vow_uv_hold(s->d, s->hold_this);
    }
    sleep_seconds(s->delay);
    vow_value *v = vow_value_int(7);
    vow_resolver_fulfill(s->r, v);
    vow_value_release(v);
    return NULL;
}

/* Settled from another thread; two holds: the loop runs until both ended. */
static void
test_two_holds_and_another_thread(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    late_settler a = {.delay = 0.03}, b = {.delay = 0.12};
    vow_promise *pa = vow_promise_pending(&a.r), *pb = vow_promise_pending(&b.r);
    CHECK_EQ_INT(vow_uv_hold(d, pa), VOW_OK);
    CHECK_EQ_INT(vow_uv_hold(d, pb), VOW_OK);
    CHECK_EQ_INT(vow_uv_hold(d, pb), VOW_OK); /* the same promise twice: two holds */
    pthread_t ta, tb;
    double start = now_seconds();
    pthread_create(&ta, NULL, settle_later, &a);
    pthread_create(&tb, NULL, settle_later, &b);
    CHECK(run_bounded(&tl));
    CHECK(now_seconds() - start >= 0.11);
    CHECK_EQ_INT(vow_promise_state(pa), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(pb), VOW_FULFILLED);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    vow_resolver_release(a.r);
    vow_resolver_release(b.r);
    vow_promise_release(pa);
    vow_promise_release(pb);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

static void
timer_done(uv_timer_t *timer)
{
    (void)timer;
}

/* A hold made from another thread while a handle keeps the loop running takes hold. */
static void
test_hold_from_another_thread(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    uv_timer_t keep;
    uv_timer_init(&tl.loop, &keep);
    uv_timer_start(&keep, timer_done, 300, 0); /* the loop runs at least this long */
    late_settler s = {.delay = 0.5, .d = d};
    vow_promise *p = vow_promise_pending(&s.r);
    s.hold_this = p;
    pthread_t t;
    double start = now_seconds();
    pthread_create(&t, NULL, settle_later, &s);
    CHECK(run_bounded(&tl));
    CHECK(now_seconds() - start >= 0.49);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    pthread_join(t, NULL);
    CHECK_EQ_INT(s.hold_rc, VOW_OK);
    uv_close((uv_handle_t *)&keep, NULL);
    vow_resolver_release(s.r);
    vow_promise_release(p);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

/* A settled promise: held for one turn only. */
static void
test_settled_promise(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    CHECK_EQ_INT(vow_uv_hold(d, p), VOW_OK);
    double start = now_seconds();
    CHECK(run_bounded(&tl));
    CHECK(now_seconds() - start < 1.0);
    vow_promise_release(p);
    vow_value_release(v);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

/* A hold is not a handler: an unhandled rejection is reported once, a handled one never. */
static void
test_unhandled_reported_once(void)
{
    unhandled_counter_install();
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_error *e = vow_error_new("test.hold", 9, "nobody handled this");
    vow_promise *rejected = vow_promise_rejected(e);
    vow_promise *late = vow_then(rejected, NULL, NULL, NULL, NULL); /* settles on Vow's queue */
    CHECK_EQ_INT(vow_uv_hold(d, late), VOW_OK);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(late), VOW_REJECTED);
    vow_promise_release(late);
    vow_promise_release(rejected);
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("test.hold", 9), 1);
    /* Handled by a catch: no report. */
    unhandled_counter_reset();
    vow_promise *q = vow_promise_rejected(e);
    vow_promise *caught = vow_catch_on(d, q, track_on_error_recover, track_new(), track_destroy);
    CHECK_EQ_INT(vow_uv_hold(d, q), VOW_OK);
    CHECK_EQ_INT(vow_uv_hold(d, caught), VOW_OK);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(caught), VOW_FULFILLED);
    vow_promise_release(caught);
    vow_promise_release(q);
    flush_default();
    CHECK_EQ_INT(unhandled_count(), 0);
    vow_error_release(e);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

/* Closing the dispatcher ends every hold: uv_run returns although p is still pending. */
static void
close_from_timer(uv_timer_t *timer)
{
    vow_dispatcher *d = timer->data;
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    uv_close((uv_handle_t *)timer, NULL);
}

static void
test_close_ends_holds(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_resolver *r = NULL;
    vow_promise *never = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_uv_hold(d, never), VOW_OK);
    uv_timer_t closer;
    uv_timer_init(&tl.loop, &closer);
    closer.data = d;
    uv_timer_start(&closer, close_from_timer, 20, 0);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(never), VOW_PENDING);
    CHECK_EQ_INT(vow_uv_hold(d, never), VOW_EALREADY); /* nothing held by a closed dispatcher */
    /* Settling later reaches a closed dispatcher: dropped, nothing touches the loop. */
    vow_value *v = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    vow_value_release(v);
    vow_resolver_release(r);
    vow_promise_release(never);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

static void
test_bad_input(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    CHECK_EQ_INT(vow_uv_hold(NULL, p), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_hold(d, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_hold(vow_dispatcher_default(), p), VOW_EINVAL); /* not a libuv dispatcher */
    stderr_capture cap;
    capture_stderr_begin(&cap);
    int rc = vow_uv_hold(d, (vow_promise *)v);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(rc, VOW_EINVAL);
    CHECK_EQ_INT(count_lines_containing(text, "expected a vow_promise, got a vow_value"), 1);
    free(text);
    /* The refused hold holds nothing: uv_run returns at once. */
    double start = now_seconds();
    CHECK(run_bounded(&tl));
    CHECK(now_seconds() - start < 1.0);
    vow_promise_release(p);
    vow_value_release(v);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

TEST_MAIN_BEGIN("test_uv_hold")
    RUN_TEST(test_without_a_hold_uv_run_returns_early);
    RUN_TEST(test_hold_until_a_vow_timer);
    RUN_TEST(test_two_holds_and_another_thread);
    RUN_TEST(test_hold_from_another_thread);
    RUN_TEST(test_settled_promise);
    RUN_TEST(test_unhandled_reported_once);
    RUN_TEST(test_close_ends_holds);
    RUN_TEST(test_bad_input);
TEST_MAIN_END
