/* test_on_cancel_on.c: vow_resolver_on_cancel_on, and when vow_resolver_on_cancel reads "default". */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static atomic_int plain_calls;

static void
count_plain(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&plain_calls, 1);
}

static vow_dispatcher *
host_dispatcher(host_queue **q_out)
{
    host_queue *q = host_queue_new();
    *q_out = q;
    return vow_dispatcher_new(host_submit, q, host_queue_destroy);
}

static void
test_runs_on_its_dispatcher(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, track_fn, t, track_destroy), VOW_OK);
    vow_dispatcher_release(d); /* the registration holds its own reference */
    flush_default();
    CHECK_EQ_INT(atomic_load(&q->submitted), 0);
    vow_cancel(p);
    /* Nothing on the default dispatcher: the handler waits in the host's queue. */
    flush_default();
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(atomic_load(&q->submitted), 1);
    CHECK_EQ_INT(host_drain(q), 1);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(pthread_equal(t->thread, pthread_self())); /* the thread that ran the host's loop */
    CHECK_DESTROYED_ONCE(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static void
test_registered_after_cancellation(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_cancel(p);
    track *t = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, track_fn, t, track_destroy), VOW_OK);
    CHECK_EQ_INT(atomic_load(&q->submitted), 1); /* submitted at once */
    CHECK_EQ_INT(host_drain(q), 1);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_DESTROYED_ONCE(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static void
test_settled_otherwise_or_dropped(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    /* Fulfilled: the handler is dropped, destroy runs, nothing reaches the host. */
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, track_fn, t, track_destroy), VOW_OK);
    vow_value *v = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    CHECK_DESTROYED_ONCE(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    /* Already fulfilled when registering: dropped at once. */
    p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    track *late = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, track_fn, late, track_destroy), VOW_OK);
    CHECK_EQ_INT(track_destroyed(late), 1);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(v);
    CHECK_EQ_INT(atomic_load(&q->submitted), 0);
    CHECK_EQ_INT(track_calls(t) + track_calls(late), 0);

    /* Cancelled, but the host drops the job (a loop shutting down): never runs, destroyed once. */
    p = vow_promise_pending(&r);
    track *dropped = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, track_fn, dropped, track_destroy), VOW_OK);
    vow_cancel(p);
    CHECK_EQ_INT(host_drop_all(q), 1);
    CHECK_EQ_INT(track_calls(dropped), 0);
    CHECK_DESTROYED_ONCE(dropped);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static void
test_failures_run_destroy(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *a = track_new(), *b = track_new(), *c = track_new(), *e = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(NULL, d, track_fn, a, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, NULL, track_fn, b, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, NULL, c, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(track_destroyed(a), 1);
    CHECK_EQ_INT(track_destroyed(b), 1);
    CHECK_EQ_INT(track_destroyed(c), 1);
    /* A promise where the dispatcher belongs: EINVAL, a misuse line, destroy ran. */
    stderr_capture cap;
    capture_stderr_begin(&cap);
    int rc = vow_resolver_on_cancel_on(r, (vow_dispatcher *)p, track_fn, e, track_destroy);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(rc, VOW_EINVAL);
    CHECK_EQ_INT(track_destroyed(e), 1);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_resolver_on_cancel_on: expected a vow_dispatcher, got a vow_promise"), 1);
    free(text);
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, count_plain, NULL, NULL), VOW_OK); /* no destroy: fine */
    vow_cancel(p);
    CHECK_EQ_INT(host_drain(q), 1);
    CHECK_EQ_INT(atomic_load(&plain_calls), 1);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

/* The plain form reads "the default dispatcher" when the cancellation arrives. */
static void
test_plain_form_reads_default_at_cancellation(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(r, track_fn, t, track_destroy), VOW_OK); /* library queue now */
    vow_set_default_dispatcher(d);                                                /* the host's, later */
    vow_cancel(p);
    vow_set_default_dispatcher(NULL);
    CHECK_EQ_INT(atomic_load(&q->submitted), 1);
    CHECK_EQ_INT(host_drain(q), 1);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(pthread_equal(t->thread, pthread_self()));
    CHECK_DESTROYED_ONCE(t);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

/* Cancellation reaching the producer through a chain: the handler runs on d, once. */
static void
test_through_a_chain(void)
{
    host_queue *q;
    vow_dispatcher *d = host_dispatcher(&q);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new(), *link = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, track_fn, t, track_destroy), VOW_OK);
    vow_promise *next = vow_then(p, track_on_value_pass, NULL, link, track_destroy);
    vow_cancel(next);
    CHECK(host_run_until_counter(q, &t->calls, 1, ts_wait_seconds()));
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(track_calls(link), 0);
    CHECK_DESTROYED_ONCE(link);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(next);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

TEST_MAIN_BEGIN("test_on_cancel_on")
RUN_TEST(test_runs_on_its_dispatcher);
RUN_TEST(test_registered_after_cancellation);
RUN_TEST(test_settled_otherwise_or_dropped);
RUN_TEST(test_failures_run_destroy);
RUN_TEST(test_plain_form_reads_default_at_cancellation);
RUN_TEST(test_through_a_chain);
TEST_MAIN_END
