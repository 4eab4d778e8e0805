/* test_observe.c: vow_observe_on watches a promise without joining its chain. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static vow_dispatcher *
host_dispatcher(host_queue **q_out)
{
    host_queue *q = host_queue_new();
    *q_out = q;
    return vow_dispatcher_new(host_submit, q, host_queue_destroy);
}

static void
test_runs_on_d_whatever_the_outcome(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    vow_resolver *r1 = NULL, *r2 = NULL;
    vow_promise *fulfils = vow_promise_pending(&r1), *rejects = vow_promise_pending(&r2);
    track *a = track_new(), *b = track_new();
    CHECK_EQ_INT(vow_observe_on(d, fulfils, track_fn, a, track_destroy), VOW_OK);
    CHECK_EQ_INT(vow_observe_on(d, rejects, track_fn, b, track_destroy), VOW_OK);
    CHECK_EQ_INT(atomic_load(&q->submitted), 0);
    vow_value *v = vow_value_int(1);
    vow_error *e = vow_error_new("test.observe", 1, "rejected");
    CHECK_EQ_INT(vow_resolver_fulfill(r1, v), VOW_OK);
    CHECK_EQ_INT(vow_resolver_reject(r2, e), VOW_OK);
    CHECK_EQ_INT(atomic_load(&q->submitted), 2); /* handed to d inside the settling calls */
    CHECK_EQ_INT(track_calls(a) + track_calls(b), 0);
    CHECK_EQ_INT(host_drain(q), 2);
    CHECK_EQ_INT(track_calls(a), 1);
    CHECK_EQ_INT(track_calls(b), 1);
    CHECK(pthread_equal(a->thread, pthread_self()));
    CHECK_DESTROYED_ONCE(a);
    CHECK_DESTROYED_ONCE(b);
    /* Already settled: submitted at once. */
    track *late = track_new();
    CHECK_EQ_INT(vow_observe_on(d, fulfils, track_fn, late, track_destroy), VOW_OK);
    CHECK_EQ_INT(host_drain(q), 1);
    CHECK_EQ_INT(track_calls(late), 1);
    CHECK_DESTROYED_ONCE(late);
    CHECK_EQ_INT(vow_wait(rejects, 0, NULL, NULL), VOW_REJECTED); /* handled here */
    vow_resolver_release(r1);
    vow_resolver_release(r2);
    vow_promise_release(fulfils);
    vow_promise_release(rejects);
    vow_value_release(v);
    vow_error_release(e);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

/* Not a handler: an unhandled rejection is still reported once, a handled one never. */
static void
test_not_a_handler(void)
{
    unhandled_counter_install();
    vow_dispatcher *inl = vow_dispatcher_inline();
    /* Nobody handles it: reported once, when the promise goes. */
    vow_error *e = vow_error_new("test.watched", 1, "nobody handled me");
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    CHECK_EQ_INT(vow_observe_on(inl, p, track_fn, t, track_destroy), VOW_OK);
    CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_OK);
    CHECK_EQ_INT(track_calls(t), 1); /* inline: ran inside the settling call */
    CHECK_DESTROYED_ONCE(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    CHECK_EQ_INT(unhandled_count_matching("test.watched", 1), 1);

    /* A chain that handles it: never reported, and the watch adds no report of its own. */
    unhandled_counter_reset();
    p = vow_promise_pending(&r);
    track *w = track_new(), *c = track_new();
    CHECK_EQ_INT(vow_observe_on(inl, p, track_fn, w, track_destroy), VOW_OK);
    vow_promise *caught = vow_catch(p, track_on_error_recover, c, track_destroy);
    CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_OK);
    CHECK_EQ_INT(wait_promise(caught, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(c), 1);
    CHECK_EQ_INT(track_calls(w), 1);
    vow_promise_release(caught);
    vow_resolver_release(r);
    vow_promise_release(p);
    flush_default();
    CHECK_EQ_INT(unhandled_count(), 0);
    vow_error_release(e);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

/* It keeps nothing wanted: cancelling the only dependent still reaches the producer. */
static void
test_keeps_nothing_wanted(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *producer = track_new(), *watch = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, vow_dispatcher_inline(), track_fn, producer, track_destroy), VOW_OK);
    CHECK_EQ_INT(vow_observe_on(vow_dispatcher_inline(), p, track_fn, watch, track_destroy), VOW_OK);
    vow_promise *next = vow_then(p, NULL, NULL, NULL, NULL);
    vow_cancel(next);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    CHECK_EQ_INT(track_calls(producer), 1);
    CHECK_EQ_INT(track_calls(watch), 1); /* p settled (cancelled): the watch heard it */
    CHECK(vow_promise_is_cancelled(p));
    vow_promise_release(next);
    vow_resolver_release(r);
    vow_promise_release(p);
}

/* It does not keep p alive: a watched link nobody holds still settles through its chain. */
static void
test_unheld_link(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    vow_promise *link = vow_then(head, NULL, NULL, NULL, NULL);
    track *t = track_new();
    CHECK_EQ_INT(vow_observe_on(d, link, track_fn, t, track_destroy), VOW_OK);
    vow_promise_release(link);
    vow_promise_release(head);
    CHECK_EQ_INT(track_destroyed(t), 0);
    vow_resolver_release(r); /* head rejects BROKEN, the link follows on the default dispatcher */
    CHECK(host_run_until_counter(q, &t->calls, 1, ts_wait_seconds()));
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_DESTROYED_ONCE(t);
    /* A dispatcher that drops the job: fn never runs, destroy once. */
    head = vow_promise_pending(&r);
    track *dropped = track_new();
    CHECK_EQ_INT(vow_observe_on(d, head, track_fn, dropped, track_destroy), VOW_OK);
    vow_cancel(head);
    CHECK_EQ_INT(host_drop_all(q), 1);
    CHECK_EQ_INT(track_calls(dropped), 0);
    CHECK_DESTROYED_ONCE(dropped);
    vow_resolver_release(r);
    vow_promise_release(head);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static vow_resolver *lazy_resolver;

static void
lazy_body(void *ctx, vow_resolver *r)
{
    track_hit(ctx);
    lazy_resolver = vow_resolver_retain(r);
}

static void
test_starts_a_lazy_promise(void)
{
    track *body = track_new(), *t = track_new();
    vow_promise *p = vow_promise_lazy(lazy_body, body, track_destroy);
    flush_default();
    CHECK_EQ_INT(track_calls(body), 0);
    CHECK_EQ_INT(vow_observe_on(vow_dispatcher_inline(), p, track_fn, t, track_destroy), VOW_OK);
    CHECK(wait_counter(&body->calls, 1, ts_wait_seconds()));
    flush_default();
    REQUIRE(lazy_resolver != NULL);
    vow_value *v = vow_value_int(5);
    CHECK_EQ_INT(vow_resolver_fulfill(lazy_resolver, v), VOW_OK);
    CHECK_EQ_INT(track_calls(t), 1);
    vow_resolver_release(lazy_resolver);
    vow_value_release(v);
    vow_promise_release(p);
}

static void
test_failures_run_destroy(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_dispatcher *inl = vow_dispatcher_inline();
    track *a = track_new(), *b = track_new(), *c = track_new(), *e = track_new();
    CHECK_EQ_INT(vow_observe_on(NULL, p, track_fn, a, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_observe_on(inl, NULL, track_fn, b, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_observe_on(inl, p, NULL, c, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(track_destroyed(a) + track_destroyed(b) + track_destroyed(c), 3);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    int rc = vow_observe_on(inl, (vow_promise *)inl, track_fn, e, track_destroy);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(rc, VOW_EINVAL);
    CHECK_EQ_INT(track_destroyed(e), 1);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_observe_on: expected a vow_promise, got a vow_dispatcher"), 1);
    free(text);
    CHECK_EQ_INT(track_calls(a) + track_calls(b) + track_calls(c) + track_calls(e), 0);
    vow_resolver_release(r);
    CHECK_EQ_INT(wait_promise(p, NULL, NULL), VOW_REJECTED); /* BROKEN, handled here */
    vow_promise_release(p);
}

TEST_MAIN_BEGIN("test_observe")
RUN_TEST(test_runs_on_d_whatever_the_outcome);
RUN_TEST(test_not_a_handler);
RUN_TEST(test_keeps_nothing_wanted);
RUN_TEST(test_unheld_link);
RUN_TEST(test_starts_a_lazy_promise);
RUN_TEST(test_failures_run_destroy);
TEST_MAIN_END
