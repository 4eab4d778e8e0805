/*
 * test_destroy.c: every callback-taking function runs its destroy exactly
 * once, on every path: the callback ran, was skipped, its derived promise
 * was cancelled, its source broke, or the registering call failed (NULL
 * promise or dispatcher, NULL callback, unknown policy, a handle of the
 * wrong kind). track_check_all_once (at exit) checks every ctx made here.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

/* The eight chaining functions, behind one signature. */
enum reg {
    REG_THEN,
    REG_THEN_ON,
    REG_CATCH,
    REG_CATCH_POLICY,
    REG_FINALLY,
    REG_CATCH_ON,
    REG_CATCH_POLICY_ON,
    REG_FINALLY_ON,
    REG_COUNT
};

static const char *reg_names[REG_COUNT] = {"vow_then",  "vow_then_on",  "vow_catch",  "vow_catch_policy",
                                           "vow_finally", "vow_catch_on", "vow_catch_policy_on",
                                           "vow_finally_on"};

static int
reg_is_catch(enum reg r)
{
    return r == REG_CATCH || r == REG_CATCH_POLICY || r == REG_CATCH_ON || r == REG_CATCH_POLICY_ON;
}

static int
reg_is_finally(enum reg r)
{
    return r == REG_FINALLY || r == REG_FINALLY_ON;
}

static vow_promise *
reg_call(enum reg r, vow_dispatcher *d, vow_promise *p, track *t)
{
    switch (r) {
    case REG_THEN:
        return vow_then(p, track_on_value_pass, track_on_error_recover, t, track_destroy);
    case REG_THEN_ON:
        return vow_then_on(d, p, track_on_value_pass, track_on_error_recover, t, track_destroy);
    case REG_CATCH:
        return vow_catch(p, track_on_error_recover, t, track_destroy);
    case REG_CATCH_POLICY:
        return vow_catch_policy(p, VOW_CATCH_ALL_EXCEPT_CANCELLATION, track_on_error_recover, t, track_destroy);
    case REG_FINALLY:
        return vow_finally(p, track_fn, t, track_destroy);
    case REG_CATCH_ON:
        return vow_catch_on(d, p, track_on_error_recover, t, track_destroy);
    case REG_CATCH_POLICY_ON:
        return vow_catch_policy_on(d, p, VOW_CATCH_ALL_EXCEPT_CANCELLATION, track_on_error_recover, t,
                                   track_destroy);
    case REG_FINALLY_ON:
        return vow_finally_on(d, p, track_fn, t, track_destroy);
    default:
        return NULL;
    }
}

/* Reports which function a failed check was about. */
#define CHECK_FOR(reg, cond)                                                                  \
    do {                                                                                      \
        if (!CHECK(cond)) fprintf(stderr, "    (while checking %s)\n", reg_names[(reg)]);   \
    } while (0)

static void
test_callback_ran(void)
{
    vow_value *v = vow_value_int(1);
    vow_error *e = vow_error_new("test", 1, "");
    for (int r = 0; r < REG_COUNT; r++) {
        /* Catches need a rejection to run; the others run on a fulfilment. */
        vow_promise *p = reg_is_catch(r) ? vow_promise_rejected(e) : vow_promise_fulfilled(v);
        track *t = track_new();
        vow_promise *d = reg_call(r, vow_dispatcher_background(), p, t);
        CHECK_FOR(r, d != NULL);
        wait_promise(d, NULL, NULL);
        CHECK_FOR(r, track_calls(t) == 1);
        CHECK_DESTROYED_ONCE(t);
        /* Cancelling afterwards changes nothing. */
        vow_cancel(d);
        vow_promise_release(d);
        vow_promise_release(p);
    }
    vow_value_release(v);
    vow_error_release(e);
}

static void
test_callback_skipped(void)
{
    vow_value *v = vow_value_int(1);
    vow_error *c = vow_error_cancelled();
    for (int r = 0; r < REG_COUNT; r++) {
        if (reg_is_finally(r)) continue; /* a finally always runs */
        /* Catches: skipped for a fulfilment and for a cancellation. */
        if (reg_is_catch(r)) {
            vow_promise *srcs[2] = {vow_promise_fulfilled(v), vow_promise_rejected(c)};
            for (int k = 0; k < 2; k++) {
                track *t = track_new();
                vow_promise *d = reg_call(r, vow_dispatcher_background(), srcs[k], t);
                CHECK_FOR(r, d != NULL);
                wait_promise(d, NULL, NULL);
                CHECK_DESTROYED_ONCE(t);
                CHECK_FOR(r, track_calls(t) == 0);
                vow_promise_release(d);
                vow_promise_release(srcs[k]);
            }
        } else {
            /* vow_then with NULL callbacks: nothing to run, destroy still once. */
            vow_promise *p = vow_promise_fulfilled(v);
            track *t = track_new();
            vow_promise *d = (r == REG_THEN) ? vow_then(p, NULL, NULL, t, track_destroy)
                                             : vow_then_on(vow_dispatcher_background(), p, NULL, NULL, t,
                                                           track_destroy);
            CHECK_FOR(r, d != NULL);
            wait_promise(d, NULL, NULL);
            CHECK_DESTROYED_ONCE(t);
            vow_promise_release(d);
            vow_promise_release(p);
        }
    }
    vow_value_release(v);
    vow_error_release(c);
}

static void
test_derived_cancelled(void)
{
    for (int r = 0; r < REG_COUNT; r++) {
        vow_resolver *res = NULL;
        vow_promise *p = vow_promise_pending(&res);
        /* Keep p wanted by someone else so it stays pending. */
        vow_promise *keep = vow_then(p, NULL, NULL, NULL, NULL);
        track *t = track_new();
        vow_promise *d = reg_call(r, vow_dispatcher_background(), p, t);
        CHECK_FOR(r, d != NULL);
        vow_cancel(d);
        if (!reg_is_finally(r)) {
            /* Value and error callbacks are unregistered: destroy runs now, no call ever. */
            wait_counter(&t->destroyed, 1, ts_wait_seconds());
            CHECK_FOR(r, track_destroyed(t) == 1);
        }
        vow_error *e = vow_error_new("test", 2, "late");
        vow_resolver_reject(res, e);
        vow_error_release(e);
        vow_wait(keep, ts_wait_seconds(), NULL, NULL);
        flush_default();
        if (reg_is_finally(r)) {
            /* A finally is cleanup: it runs once the source settles. */
            CHECK(wait_counter(&t->calls, 1, ts_wait_seconds()));
        } else {
            CHECK_FOR(r, track_calls(t) == 0);
        }
        CHECK_DESTROYED_ONCE(t);
        vow_promise_release(d);
        vow_promise_release(keep);
        vow_resolver_release(res);
        vow_promise_release(p);
    }
}

static void
test_source_released_unsettled(void)
{
    /* The source and its resolver are dropped: BROKEN reaches every callback kind. */
    for (int r = 0; r < REG_COUNT; r++) {
        vow_resolver *res = NULL;
        vow_promise *p = vow_promise_pending(&res);
        track *t = track_new();
        vow_promise *d = reg_call(r, vow_dispatcher_background(), p, t);
        CHECK_FOR(r, d != NULL);
        vow_promise_release(p);
        vow_resolver_release(res);
        wait_promise(d, NULL, NULL);
        CHECK_FOR(r, track_calls(t) == 1); /* BROKEN is an error, not a cancellation */
        CHECK_DESTROYED_ONCE(t);
        vow_promise_release(d);
    }
    /* Both the derived and the source dropped before anything settles. */
    for (int r = 0; r < REG_COUNT; r++) {
        vow_resolver *res = NULL;
        vow_promise *p = vow_promise_pending(&res);
        track *t = track_new();
        vow_promise *d = reg_call(r, vow_dispatcher_background(), p, t);
        vow_promise_release(d);
        vow_promise_release(p);
        vow_resolver_release(res);
        CHECK(wait_counter(&t->destroyed, 1, ts_wait_seconds()));
        CHECK_FOR(r, track_calls(t) == 1);
    }
}

static void
test_failing_calls_destroy_before_returning(void)
{
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_dispatcher *bg = vow_dispatcher_background();
    /* A vow_value passed where a promise or a dispatcher belongs. */
    vow_promise *not_a_promise = (vow_promise *)v;
    vow_dispatcher *not_a_dispatcher = (vow_dispatcher *)v;
    stderr_capture cap;
    capture_stderr_begin(&cap); /* the wrong-kind messages are checked in test_bad_input */
    for (int r = 0; r < REG_COUNT; r++) {
        track *t1 = track_new();
        CHECK_FOR(r, reg_call(r, bg, NULL, t1) == NULL);
        CHECK_FOR(r, track_destroyed(t1) == 1);
        track *t2 = track_new();
        CHECK_FOR(r, reg_call(r, bg, not_a_promise, t2) == NULL);
        CHECK_FOR(r, track_destroyed(t2) == 1);
        int has_dispatcher = r == REG_THEN_ON || r == REG_CATCH_ON || r == REG_CATCH_POLICY_ON ||
                             r == REG_FINALLY_ON;
        if (has_dispatcher) {
            track *t3 = track_new();
            CHECK_FOR(r, reg_call(r, NULL, p, t3) == NULL);
            CHECK_FOR(r, track_destroyed(t3) == 1);
            track *t4 = track_new();
            CHECK_FOR(r, reg_call(r, not_a_dispatcher, p, t4) == NULL);
            CHECK_FOR(r, track_destroyed(t4) == 1);
        }
    }
    /* NULL callbacks where one is required, and unknown policies. */
    track *t = track_new();
    CHECK_NULL(vow_catch(p, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_catch_on(bg, p, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_catch_policy(p, VOW_CATCH_ALL_ERRORS, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_catch_policy_on(bg, p, VOW_CATCH_ALL_ERRORS, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_finally(p, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_finally_on(bg, p, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_catch_policy(p, (vow_policy)7, track_on_error_recover, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_catch_policy_on(bg, p, (vow_policy)-3, track_on_error_recover, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);

    /* vow_dispatch */
    t = track_new();
    CHECK_NULL(vow_dispatch(NULL, track_on_value_nothing, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_dispatch(bg, NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_NULL(vow_dispatch(not_a_dispatcher, track_on_value_nothing, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);

    /* vow_resolver_on_cancel */
    vow_resolver *res = NULL;
    vow_promise *pending = vow_promise_pending(&res);
    t = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(NULL, track_fn, t, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(res, NULL, t, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(track_destroyed(t), 1);
    t = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel((vow_resolver *)pending, track_fn, t, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(track_destroyed(t), 1);

    /* vow_dispatcher_new */
    t = track_new();
    CHECK_NULL(vow_dispatcher_new(NULL, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    free(capture_stderr_end(&cap));

    vow_resolver_fulfill(res, v);
    vow_resolver_release(res);
    vow_promise_release(pending);
    vow_promise_release(p);
    vow_value_release(v);
}

static void
test_on_cancel_paths(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *ran = track_new(), *dropped = track_new();
    vow_resolver_on_cancel(r, track_fn, ran, track_destroy);
    vow_cancel(p);
    CHECK(wait_counter(&ran->calls, 1, ts_wait_seconds()));
    CHECK_DESTROYED_ONCE(ran);
    vow_resolver_release(r);
    vow_promise_release(p);

    p = vow_promise_pending(&r);
    vow_resolver_on_cancel(r, track_fn, dropped, track_destroy);
    vow_value *v = vow_value_null();
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    CHECK_DESTROYED_ONCE(dropped);
    CHECK_EQ_INT(track_calls(dropped), 0);
    vow_resolver_release(r);
    vow_promise_release(p);

    /* The producer is dropped while the handler is registered: BROKEN, handler dropped. */
    p = vow_promise_pending(&r);
    track *orphan = track_new();
    vow_resolver_on_cancel(r, track_fn, orphan, track_destroy);
    vow_promise_release(p);
    vow_resolver_release(r);
    CHECK_DESTROYED_ONCE(orphan);
    CHECK_EQ_INT(track_calls(orphan), 0);
}

static void
test_dispatch_paths(void)
{
    track *ran = track_new();
    vow_promise *p = vow_dispatch(vow_dispatcher_background(), track_on_value_nothing, ran, track_destroy);
    wait_promise(p, NULL, NULL);
    CHECK_EQ_INT(track_calls(ran), 1);
    CHECK_DESTROYED_ONCE(ran);
    vow_promise_release(p);

    /* Cancelled before its job ran (a host loop not yet drained). */
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    track *cancelled = track_new();
    p = vow_dispatch(d, track_on_value_nothing, cancelled, track_destroy);
    vow_cancel(p);
    /* It is certain now that fn never runs: destroy runs at once, before the host gets to
     * the queued job. */
    CHECK_EQ_INT(track_destroyed(cancelled), 1);
    host_drain(q);
    CHECK_DESTROYED_ONCE(cancelled);
    CHECK_EQ_INT(track_calls(cancelled), 0);
    vow_promise_release(p);

    /* Released before its job ran: the callback still runs (like a released derived). */
    track *released = track_new();
    p = vow_dispatch(d, track_on_value_nothing, released, track_destroy);
    vow_promise_release(p);
    host_drain(q);
    CHECK_EQ_INT(track_calls(released), 1);
    CHECK_DESTROYED_ONCE(released);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

static void
test_dispatcher_destroy_paths(void)
{
    track *t = track_new();
    /* The host's ctx is the tracker itself: submit is never called here. */
    vow_dispatcher *d = vow_dispatcher_new(host_submit, t, track_destroy);
    REQUIRE(d != NULL);
    vow_dispatcher *d2 = vow_dispatcher_retain(d);
    vow_dispatcher_release(d);
    CHECK_EQ_INT(track_destroyed(t), 0);
    vow_dispatcher_release(d2);
    CHECK_EQ_INT(track_destroyed(t), 1);

    /* Installed as the default, then replaced. */
    host_queue *q = host_queue_new();
    d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    vow_set_default_dispatcher(d);
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);
    vow_set_default_dispatcher(NULL);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

static void
ignore_unhandled(void *ctx, const vow_error *e)
{
    (void)ctx;
    (void)e;
}

static void
test_unhandled_handler_destroy_paths(void)
{
    track *a = track_new(), *b = track_new(), *c = track_new();
    vow_set_unhandled_error_handler(ignore_unhandled, a, track_destroy);
    vow_set_unhandled_error_handler(ignore_unhandled, b, track_destroy);
    CHECK_DESTROYED_ONCE(a);
    CHECK_EQ_INT(track_destroyed(b), 0);
    vow_set_unhandled_error_handler(NULL, c, track_destroy);
    CHECK_DESTROYED_ONCE(b);
    CHECK_EQ_INT(track_destroyed(c), 1);
    unhandled_counter_install();
}

typedef struct obj {
    atomic_int destroyed;
} obj;

static void
obj_destroy(void *p)
{
    atomic_fetch_add(&((obj *)p)->destroyed, 1);
}

static int
none_get_then(void *o, void **m, vow_error **e)
{
    (void)o;
    (void)m;
    (void)e;
    return VOW_THEN_NONE;
}

static int
none_call_then(void *o, void *m, vow_resolver *r, vow_error **e)
{
    (void)o;
    (void)m;
    (void)r;
    (void)e;
    return VOW_OK;
}

static const vow_thenable_class none_class = {none_get_then, none_call_then, NULL};

static void
test_value_destroy_paths(void)
{
    obj o1 = {0}, o2 = {0}, o3 = {0};
    /* A pointer value kept by a promise: destroyed with the last holder. */
    vow_value *pv = vow_value_pointer(&o1, obj_destroy);
    vow_promise *p = vow_promise_fulfilled(pv);
    vow_value_release(pv);
    CHECK_EQ_INT(atomic_load(&o1.destroyed), 0);
    vow_promise_release(p);
    CHECK(wait_counter(&o1.destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&o1.destroyed), 1);
    /* A thenable value assimilated (NONE) and released. */
    vow_value *tv = vow_value_thenable(&none_class, &o2, obj_destroy);
    vow_resolver *r = NULL;
    p = vow_promise_pending(&r);
    vow_resolver_resolve(r, tv);
    vow_value_release(tv);
    wait_promise(p, NULL, NULL);
    vow_resolver_release(r);
    vow_promise_release(p);
    CHECK(wait_counter(&o2.destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&o2.destroyed), 1);
    /* A failing thenable construction. */
    CHECK_NULL(vow_value_thenable(NULL, &o3, obj_destroy));
    CHECK_EQ_INT(atomic_load(&o3.destroyed), 1);
}

TEST_MAIN_BEGIN("test_destroy")
    unhandled_counter_install();
    RUN_TEST(test_callback_ran);
    RUN_TEST(test_callback_skipped);
    RUN_TEST(test_derived_cancelled);
    RUN_TEST(test_source_released_unsettled);
    RUN_TEST(test_failing_calls_destroy_before_returning);
    RUN_TEST(test_on_cancel_paths);
    RUN_TEST(test_dispatch_paths);
    RUN_TEST(test_dispatcher_destroy_paths);
    RUN_TEST(test_unhandled_handler_destroy_paths);
    RUN_TEST(test_value_destroy_paths);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
