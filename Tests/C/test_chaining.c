/* test_chaining.c: vow_then / vow_catch / vow_finally and the outcome slot. */
#include "test_support.h"

static int
is_vow_error(const vow_error *e, int64_t code)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0 &&
           vow_error_code(e) == code;
}

/* Records the value or error it was given (as data) and counts. */
static void
record_value(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    t->data = (void *)value;
    track_hit(t);
    vow_result_return(out, value);
}

static void
record_error_recover(void *ctx, const vow_error *error, vow_result *out)
{
    track *t = ctx;
    t->data = (void *)error;
    track_hit(t);
    (void)out;
}

/* Records, during the call (the error is borrowed only for its duration), whether the
   error it received is a cancellation: data = 1 for a cancellation, 2 for another error. */
static void
record_cancellation_recover(void *ctx, const vow_error *error, vow_result *out)
{
    track *t = ctx;
    t->data = vow_error_is_cancelled(error) ? (void *)1 : (void *)2;
    track_hit(t);
    (void)out;
}

static void
test_then_null_callbacks_pass_through(void)
{
    vow_value *v = vow_value_string("through");
    vow_promise *p = vow_promise_fulfilled(v);
    vow_promise *d = vow_then(p, NULL, NULL, NULL, NULL);
    REQUIRE(d != NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(d, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_promise_release(d);
    vow_promise_release(p);

    vow_error *e = vow_error_new("test", 1, "through");
    p = vow_promise_rejected(e);
    track *t = track_new();
    /* on_value only: the error passes through. */
    d = vow_then(p, record_value, NULL, t, track_destroy);
    REQUIRE(d != NULL);
    vow_error *ge = NULL;
    CHECK_EQ_INT(wait_promise(d, NULL, &ge), VOW_REJECTED);
    CHECK_EQ_PTR(ge, e);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_error_release(ge);
    vow_promise_release(d);
    vow_promise_release(p);

    /* on_error only: the value passes through. */
    p = vow_promise_fulfilled(v);
    t = track_new();
    d = vow_then(p, NULL, record_error_recover, t, track_destroy);
    got = NULL;
    CHECK_EQ_INT(wait_promise(d, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, v);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_value_release(got);
    vow_promise_release(d);
    vow_promise_release(p);
    vow_value_release(v);
    vow_error_release(e);
}

static void
test_value_identity(void)
{
    vow_value *v = vow_value_int(12345);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    vow_promise *d = vow_then(p, record_value, NULL, t, track_destroy);
    vow_resolver_fulfill(r, v);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(d, &got, NULL), VOW_FULFILLED);
    /* The callback saw the same handle, and returning it keeps it. */
    CHECK_EQ_PTR(t->data, v);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    vow_value_release(v);
    vow_promise_release(d);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_on_error_receives_cancellation(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    vow_promise *d = vow_then(p, record_value, record_cancellation_recover, t, track_destroy);
    vow_cancel(p);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(d, &got, NULL), VOW_FULFILLED); /* recovered */
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_PTR(t->data, (void *)1); /* the callback saw a cancellation */
    CHECK_EQ_INT(vow_value_kind(got), VOW_KIND_NULL);
    vow_value_release(got);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(d);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_catch_skips_cancellation(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *c = track_new(), *f = track_new();
    vow_promise *cp = vow_catch(p, record_error_recover, c, track_destroy);
    vow_promise *fp = vow_finally(cp, track_fn, f, track_destroy);
    REQUIRE(cp != NULL && fp != NULL);
    vow_cancel(p);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(fp, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    e = NULL;
    CHECK_EQ_INT(wait_promise(cp, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(c), 0);
    /* The finally after it always runs. */
    CHECK_EQ_INT(track_calls(f), 1);
    CHECK_DESTROYED_ONCE(c);
    CHECK_DESTROYED_ONCE(f);
    vow_promise_release(fp);
    vow_promise_release(cp);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_catch_runs_for_errors_and_passes_values(void)
{
    vow_error *e = vow_error_new("test", 3, "caught");
    vow_promise *p = vow_promise_rejected(e);
    track *t = track_new();
    vow_promise *cp = vow_catch(p, record_error_recover, t, track_destroy);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(cp, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_PTR(t->data, e);
    CHECK_EQ_INT(vow_value_kind(got), VOW_KIND_NULL);
    vow_value_release(got);
    vow_promise_release(cp);
    vow_promise_release(p);
    vow_error_release(e);

    /* A fulfilled source: the catch fulfils with its value, callback not run. */
    vow_value *v = vow_value_int(8);
    p = vow_promise_fulfilled(v);
    t = track_new();
    cp = vow_catch(p, record_error_recover, t, track_destroy);
    got = NULL;
    CHECK_EQ_INT(wait_promise(cp, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, v);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_value_release(got);
    vow_promise_release(cp);
    vow_promise_release(p);
    vow_value_release(v);
}

static void
test_catch_policy_all_errors(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new(), *s = track_new();
    vow_promise *all = vow_catch_policy(p, VOW_CATCH_ALL_ERRORS, record_cancellation_recover, t, track_destroy);
    vow_promise *skip =
        vow_catch_policy(p, VOW_CATCH_ALL_EXCEPT_CANCELLATION, record_cancellation_recover, s, track_destroy);
    REQUIRE(all != NULL && skip != NULL);
    vow_cancel(p);
    CHECK_EQ_INT(wait_promise(all, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(skip, NULL, NULL), VOW_REJECTED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_PTR(t->data, (void *)1); /* the callback saw a cancellation */
    CHECK_EQ_INT(track_calls(s), 0);
    vow_promise_release(all);
    vow_promise_release(skip);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
throw_new_error(void *ctx, const vow_error *error, vow_result *out)
{
    track *t = ctx;
    track_hit(t);
    (void)error;
    vow_result_throw(out, (const vow_error *)t->data);
}

static void
test_catch_can_rethrow(void)
{
    vow_error *e = vow_error_new("test", 4, "first");
    vow_error *e2 = vow_error_new("test", 5, "second");
    vow_promise *p = vow_promise_rejected(e);
    track *t = track_new();
    t->data = e2;
    vow_promise *cp = vow_catch(p, throw_new_error, t, track_destroy);
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(cp, NULL, &got), VOW_REJECTED);
    CHECK_EQ_PTR(got, e2);
    vow_error_release(got);
    vow_promise_release(cp);
    vow_promise_release(p);
    vow_error_release(e);
    vow_error_release(e2);
}

static void
test_finally_settles_like_source(void)
{
    vow_value *v = vow_value_int(3);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    vow_promise *fp = vow_finally(p, track_fn, t, track_destroy);
    REQUIRE(fp != NULL);
    vow_resolver_fulfill(r, v);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(fp, &got, NULL), VOW_FULFILLED);
    /* fn ran before its promise settled. */
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_PTR(got, v);
    vow_value_release(got);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(fp);
    vow_resolver_release(r);
    vow_promise_release(p);

    vow_error *e = vow_error_new("test", 6, "fin");
    p = vow_promise_rejected(e);
    t = track_new();
    fp = vow_finally(p, track_fn, t, track_destroy);
    vow_error *ge = NULL;
    CHECK_EQ_INT(wait_promise(fp, NULL, &ge), VOW_REJECTED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_PTR(ge, e);
    vow_error_release(ge);
    vow_promise_release(fp);
    vow_promise_release(p);
    vow_error_release(e);
    vow_value_release(v);
}

#define ORDER_N 50

static void
test_handlers_run_in_attach_order(void)
{
    for (int settled_first = 0; settled_first < 2; settled_first++) {
        vow_resolver *r = NULL;
        vow_promise *p;
        vow_value *v = vow_value_int(1);
        if (settled_first) {
            p = vow_promise_fulfilled(v);
        } else {
            p = vow_promise_pending(&r);
        }
        track *t[ORDER_N];
        vow_promise *d[ORDER_N];
        for (int i = 0; i < ORDER_N; i++) {
            t[i] = track_new();
            /* Mix the kinds of handler: they share one order. */
            if (i % 3 == 0)
                d[i] = vow_then(p, track_on_value_pass, NULL, t[i], track_destroy);
            else if (i % 3 == 1)
                d[i] = vow_finally(p, track_fn, t[i], track_destroy);
            else
                d[i] = vow_then(p, track_on_value_nothing, track_on_error_recover, t[i], track_destroy);
        }
        if (!settled_first) vow_resolver_fulfill(r, v);
        for (int i = 0; i < ORDER_N; i++) wait_promise(d[i], NULL, NULL);
        int in_order = 1;
        for (int i = 0; i < ORDER_N; i++) {
            CHECK_EQ_INT(track_calls(t[i]), 1);
            if (i > 0 && atomic_load(&t[i]->order) <= atomic_load(&t[i - 1]->order)) in_order = 0;
        }
        CHECK(in_order);
        for (int i = 0; i < ORDER_N; i++) vow_promise_release(d[i]);
        vow_resolver_release(r);
        vow_promise_release(p);
        vow_value_release(v);
    }
}

/* Set by the main thread around calls that must not run callbacks inline. */
static _Thread_local int inside_library_call;

static void
inline_probe(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    if (inside_library_call) t->data = (void *)1;
    track_hit(t);
    vow_result_return(out, value);
}

static void
test_callbacks_never_inline_on_default(void)
{
    /* Registered on a settled promise: not inside vow_then. */
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    track *t = track_new();
    inside_library_call = 1;
    vow_promise *d = vow_then(p, inline_probe, NULL, t, track_destroy);
    inside_library_call = 0;
    wait_promise(d, NULL, NULL);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_NULL(t->data);
    CHECK_EQ_INT(atomic_load(&t->on_main), 0);
    vow_promise_release(d);
    vow_promise_release(p);

    /* Registered on a pending promise, then settled: not inside the settling call. */
    vow_resolver *r = NULL;
    p = vow_promise_pending(&r);
    t = track_new();
    d = vow_then(p, inline_probe, NULL, t, track_destroy);
    inside_library_call = 1;
    vow_resolver_fulfill(r, v);
    inside_library_call = 0;
    wait_promise(d, NULL, NULL);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_NULL(t->data);
    CHECK_EQ_INT(atomic_load(&t->on_main), 0);
    vow_promise_release(d);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(v);
}

static void
test_releasing_derived_keeps_callback(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new(), *f = track_new();
    vow_promise *d = vow_then(p, track_on_value_pass, NULL, t, track_destroy);
    vow_promise *fp = vow_finally(p, track_fn, f, track_destroy);
    vow_promise_release(d);
    vow_promise_release(fp);
    CHECK_EQ_INT(track_destroyed(t), 0);
    vow_value *v = vow_value_int(2);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    CHECK(wait_counter(&t->calls, 1, ts_wait_seconds()));
    CHECK(wait_counter(&f->calls, 1, ts_wait_seconds()));
    CHECK_DESTROYED_ONCE(t);
    CHECK_DESTROYED_ONCE(f);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_cancelling_derived_unregisters(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *keep = track_new();
    /* Another dependent keeps p alive (so p is not cancelled with d). */
    vow_promise *other = vow_then(p, track_on_value_pass, NULL, keep, track_destroy);
    track *t = track_new();
    vow_promise *d = vow_then(p, track_on_value_pass, track_on_error_recover, t, track_destroy);
    vow_cancel(d);
    CHECK_EQ_INT(vow_promise_state(d), VOW_REJECTED);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    /* Its destroy runs without the callback. */
    CHECK_DESTROYED_ONCE(t);
    vow_value *v = vow_value_int(2);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    wait_promise(other, NULL, NULL);
    flush_default();
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(track_calls(keep), 1);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(d, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_promise_release(other);
    vow_promise_release(d);
    vow_resolver_release(r);
    vow_promise_release(p);
}

/* Outcome-slot behaviours selected by ctx->data as an int. */
enum { SET_NOTHING, SET_TWICE, RETURN_THEN_THROW, THROW_THEN_RETURN, RETURN_NULL, THROW_NULL_AFTER_RETURN };

typedef struct slot_case {
    int mode;
    vow_value *a, *b;
    vow_error *e;
} slot_case;

static void
slot_callback(void *ctx, const vow_value *value, vow_result *out)
{
    slot_case *c = ctx;
    (void)value;
    switch (c->mode) {
    case SET_NOTHING:
        break;
    case SET_TWICE:
        vow_result_return(out, c->a);
        vow_result_return(out, c->b);
        break;
    case RETURN_THEN_THROW:
        vow_result_return(out, c->a);
        vow_result_throw(out, c->e);
        break;
    case THROW_THEN_RETURN:
        vow_result_throw(out, c->e);
        vow_result_return(out, c->b);
        break;
    case RETURN_NULL:
        vow_result_return(out, NULL);
        break;
    case THROW_NULL_AFTER_RETURN:
        vow_result_return(out, c->a);
        vow_result_throw(out, NULL);
        break;
    }
}

static void
test_result_slot(void)
{
    slot_case c;
    c.a = vow_value_int(1);
    c.b = vow_value_int(2);
    c.e = vow_error_new("test", 7, "slot");
    vow_value *seed = vow_value_null();
    vow_promise *p = vow_promise_fulfilled(seed);
    struct {
        int mode;
        vow_state state;
        const void *expected;
        int null_kind;
    } cases[] = {
        {SET_NOTHING, VOW_FULFILLED, NULL, 1},   {SET_TWICE, VOW_FULFILLED, c.b, 0},
        {RETURN_THEN_THROW, VOW_REJECTED, c.e, 0}, {THROW_THEN_RETURN, VOW_FULFILLED, c.b, 0},
        {RETURN_NULL, VOW_FULFILLED, NULL, 1},   {THROW_NULL_AFTER_RETURN, VOW_FULFILLED, c.a, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        c.mode = cases[k].mode;
        vow_promise *d = vow_then(p, slot_callback, NULL, &c, NULL);
        vow_value *v = NULL;
        vow_error *e = NULL;
        vow_state s = wait_promise(d, &v, &e);
        CHECK_EQ_INT(s, cases[k].state);
        if (cases[k].null_kind) {
            CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
        } else if (s == VOW_FULFILLED) {
            CHECK_EQ_PTR(v, cases[k].expected);
        } else {
            CHECK_EQ_PTR(e, cases[k].expected);
        }
        vow_value_release(v);
        vow_error_release(e);
        vow_promise_release(d);
    }
    /* NULL out does nothing (and does not crash). */
    vow_result_return(NULL, c.a);
    vow_result_throw(NULL, c.e);
    vow_promise_release(p);
    vow_value_release(seed);
    vow_value_release(c.a);
    vow_value_release(c.b);
    vow_error_release(c.e);
}

static void
return_promise_value(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    vow_result_return(out, (const vow_value *)ctx);
}

static void
test_callback_returning_promise_adopts(void)
{
    vow_resolver *ri = NULL;
    vow_promise *inner = vow_promise_pending(&ri);
    vow_value *iv = vow_value_promise(inner);
    vow_value *seed = vow_value_null();
    vow_promise *p = vow_promise_fulfilled(seed);
    vow_promise *d = vow_then(p, return_promise_value, NULL, iv, NULL);
    /* d waits for inner. */
    CHECK_EQ_INT(vow_wait(d, 0.05, NULL, NULL), VOW_PENDING);
    vow_value *final = vow_value_string("late");
    vow_resolver_fulfill(ri, final);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(d, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, final);
    vow_value_release(got);
    vow_value_release(final);
    vow_promise_release(d);
    vow_promise_release(p);
    vow_value_release(seed);
    vow_value_release(iv);
    vow_resolver_release(ri);
    vow_promise_release(inner);
}

static void
throw_from_value(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    vow_result_throw(out, (const vow_error *)ctx);
}

static void
test_then_throw_then_recover(void)
{
    vow_value *seed = vow_value_int(1);
    vow_error *e = vow_error_new("test", 9, "from on_value");
    vow_promise *p = vow_promise_fulfilled(seed);
    vow_promise *a = vow_then(p, throw_from_value, NULL, e, NULL);
    track *t = track_new();
    vow_promise *b = vow_then(a, NULL, record_error_recover, t, track_destroy);
    CHECK_EQ_INT(wait_promise(b, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_PTR(t->data, e);
    vow_promise_release(a);
    vow_promise_release(b);
    vow_promise_release(p);
    vow_value_release(seed);
    vow_error_release(e);
}

static void
test_explicit_dispatchers(void)
{
    vow_value *v = vow_value_int(1);
    vow_error *e = vow_error_new("test", 10, "on");
    vow_promise *ok = vow_promise_fulfilled(v);
    vow_promise *bad = vow_promise_rejected(e);
    vow_dispatcher *bg = vow_dispatcher_background();
    REQUIRE(bg != NULL);
    track *t1 = track_new(), *t2 = track_new(), *t3 = track_new(), *t4 = track_new();
    vow_promise *d1 = vow_then_on(bg, ok, track_on_value_pass, NULL, t1, track_destroy);
    vow_promise *d2 = vow_catch_on(bg, bad, track_on_error_recover, t2, track_destroy);
    vow_promise *d3 = vow_catch_policy_on(bg, bad, VOW_CATCH_ALL_ERRORS, track_on_error_recover, t3, track_destroy);
    vow_promise *d4 = vow_finally_on(bg, ok, track_fn, t4, track_destroy);
    REQUIRE(d1 && d2 && d3 && d4);
    CHECK_EQ_INT(wait_promise(d1, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(d2, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(d3, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(d4, NULL, NULL), VOW_FULFILLED);
    track *all[4] = {t1, t2, t3, t4};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(track_calls(all[i]), 1);
        CHECK_EQ_INT(atomic_load(&all[i]->on_main), 0);
    }
    vow_promise_release(d1);
    vow_promise_release(d2);
    vow_promise_release(d3);
    vow_promise_release(d4);

    /* The inline dispatcher runs inside the settling call. */
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t5 = track_new();
    vow_promise *d5 = vow_then_on(vow_dispatcher_inline(), p, track_on_value_pass, NULL, t5, track_destroy);
    CHECK_EQ_INT(track_calls(t5), 0);
    vow_resolver_fulfill(r, v);
    CHECK_EQ_INT(track_calls(t5), 1);
    CHECK_EQ_INT(atomic_load(&t5->on_main), 1);
    CHECK_EQ_INT(vow_promise_state(d5), VOW_FULFILLED);
    vow_promise_release(d5);
    vow_resolver_release(r);
    vow_promise_release(p);

    vow_promise_release(ok);
    vow_promise_release(bad);
    vow_value_release(v);
    vow_error_release(e);
}

/* Checks, while the error is still borrowed, that it is the broken-promise error. */
static void
expect_broken(void *ctx, const vow_error *error, vow_result *out)
{
    track *t = ctx;
    t->data = is_vow_error(error, VOW_ERROR_BROKEN) ? (void *)1 : NULL;
    track_hit(t);
    (void)out;
}

static void
test_broken_source_reaches_callbacks(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    vow_promise *d = vow_then(p, track_on_value_pass, expect_broken, t, track_destroy);
    vow_promise_release(p);
    vow_resolver_release(r);
    CHECK_EQ_INT(wait_promise(d, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_PTR(t->data, (void *)1);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(d);
}

/* Calls back into the library from inside a callback: deadlocks if a library lock is held. */
typedef struct reentry {
    vow_promise *source;
    vow_state seen_state;
    vow_promise *attached;
    track *inner;
    int status;
} reentry;

static void
reenter(void *ctx, const vow_value *value, vow_result *out)
{
    reentry *re = ctx;
    re->seen_state = vow_promise_state(re->source);
    /* Attach to the promise whose handlers are running, read it, make and settle promises. */
    re->attached = vow_then(re->source, track_on_value_pass, NULL, re->inner, track_destroy);
    vow_value *got = vow_promise_value(re->source);
    vow_value_release(got);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    re->status = vow_resolver_fulfill(r, value);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_result_return(out, value);
}

static void
test_callbacks_run_outside_library_locks(void)
{
    vow_dispatcher *ds[2] = {vow_dispatcher_default(), vow_dispatcher_inline()};
    for (int k = 0; k < 2; k++) {
        vow_resolver *r = NULL;
        vow_promise *p = vow_promise_pending(&r);
        reentry re = {p, VOW_STATE_INVALID, NULL, track_new(), -99};
        vow_promise *d = vow_then_on(ds[k], p, reenter, NULL, &re, NULL);
        vow_value *v = vow_value_int(5);
        vow_resolver_fulfill(r, v); /* inline: the callback runs here */
        CHECK_EQ_INT(wait_promise(d, NULL, NULL), VOW_FULFILLED);
        CHECK_EQ_INT(re.seen_state, VOW_FULFILLED);
        CHECK_EQ_INT(re.status, VOW_OK);
        REQUIRE(re.attached != NULL);
        CHECK_EQ_INT(wait_promise(re.attached, NULL, NULL), VOW_FULFILLED);
        CHECK_EQ_INT(track_calls(re.inner), 1);
        vow_promise_release(re.attached);
        vow_promise_release(d);
        vow_value_release(v);
        vow_resolver_release(r);
        vow_promise_release(p);
    }
}

static void
return_own_derived(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    vow_value *self = vow_value_promise(*(vow_promise **)ctx);
    vow_result_return(out, self);
    vow_value_release(self);
}

static void
test_callback_returning_its_own_promise_is_cycle(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *d = NULL;
    d = vow_then(p, return_own_derived, NULL, &d, NULL);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(d, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_error(e, VOW_ERROR_CYCLE));
    vow_error_release(e);
    vow_promise_release(d);
    vow_resolver_release(r);
    vow_promise_release(p);
}

/* destroy that records whether the callback had already run. */
static atomic_int destroy_after_call_ok;
static atomic_int destroy_before_call;

static void
destroy_checks_order(void *ctx)
{
    track *t = ctx;
    if (track_calls(t) == 1) atomic_fetch_add(&destroy_after_call_ok, 1);
    else atomic_fetch_add(&destroy_before_call, 1);
    track_destroy(t);
}

static void
test_destroy_runs_after_the_callback(void)
{
    vow_value *v = vow_value_int(1);
    vow_error *e = vow_error_new("test", 11, "");
    vow_promise *ok = vow_promise_fulfilled(v), *bad = vow_promise_rejected(e);
    vow_promise *ds[4];
    track *ts[4];
    for (int i = 0; i < 4; i++) ts[i] = track_new();
    ds[0] = vow_then(ok, track_on_value_pass, NULL, ts[0], destroy_checks_order);
    ds[1] = vow_catch(bad, track_on_error_recover, ts[1], destroy_checks_order);
    ds[2] = vow_finally(ok, track_fn, ts[2], destroy_checks_order);
    ds[3] = vow_then_on(vow_dispatcher_background(), bad, NULL, track_on_error_recover, ts[3], destroy_checks_order);
    for (int i = 0; i < 4; i++) {
        wait_promise(ds[i], NULL, NULL);
        CHECK_DESTROYED_ONCE(ts[i]);
        vow_promise_release(ds[i]);
    }
    CHECK_EQ_INT(atomic_load(&destroy_after_call_ok), 4);
    CHECK_EQ_INT(atomic_load(&destroy_before_call), 0);
    vow_promise_release(ok);
    vow_promise_release(bad);
    vow_value_release(v);
    vow_error_release(e);
}

static void
test_cancel_after_job_queued(void)
{
    /* The source is settled, so the callback job is already queued on the host loop;
       cancelling the derived promise before the loop runs still stops value and error
       callbacks, while a finally (cleanup) still runs. */
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(1);
    vow_error *e = vow_error_new("test", 12, "");
    vow_promise *ok = vow_promise_fulfilled(v), *bad = vow_promise_rejected(e);
    track *tv = track_new(), *te = track_new(), *tc = track_new(), *tf = track_new();
    vow_promise *dv = vow_then_on(d, ok, track_on_value_pass, NULL, tv, track_destroy);
    vow_promise *de = vow_then_on(d, bad, NULL, track_on_error_recover, te, track_destroy);
    vow_promise *dc = vow_catch_on(d, bad, track_on_error_recover, tc, track_destroy);
    vow_promise *df = vow_finally_on(d, ok, track_fn, tf, track_destroy);
    CHECK(host_pending(q) >= 4);
    vow_cancel(dv);
    vow_cancel(de);
    vow_cancel(dc);
    vow_cancel(df);
    host_drain(q);
    CHECK_EQ_INT(track_calls(tv), 0);
    CHECK_EQ_INT(track_calls(te), 0);
    CHECK_EQ_INT(track_calls(tc), 0);
    CHECK_EQ_INT(track_calls(tf), 1);
    CHECK_DESTROYED_ONCE(tv);
    CHECK_DESTROYED_ONCE(te);
    CHECK_DESTROYED_ONCE(tc);
    CHECK_DESTROYED_ONCE(tf);
    vow_promise *all[4] = {dv, de, dc, df};
    for (int i = 0; i < 4; i++) {
        vow_error *ce = vow_promise_error(all[i]);
        CHECK(vow_error_is_cancelled(ce));
        vow_error_release(ce);
        vow_wait(all[i], 0, NULL, NULL);
        vow_promise_release(all[i]);
    }
    vow_promise_release(ok);
    vow_promise_release(bad);
    vow_value_release(v);
    vow_error_release(e);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
}

TEST_MAIN_BEGIN("test_chaining")
    unhandled_counter_install();
    RUN_TEST(test_then_null_callbacks_pass_through);
    RUN_TEST(test_value_identity);
    RUN_TEST(test_on_error_receives_cancellation);
    RUN_TEST(test_catch_skips_cancellation);
    RUN_TEST(test_catch_runs_for_errors_and_passes_values);
    RUN_TEST(test_catch_policy_all_errors);
    RUN_TEST(test_catch_can_rethrow);
    RUN_TEST(test_finally_settles_like_source);
    RUN_TEST(test_handlers_run_in_attach_order);
    RUN_TEST(test_callbacks_never_inline_on_default);
    RUN_TEST(test_releasing_derived_keeps_callback);
    RUN_TEST(test_cancelling_derived_unregisters);
    RUN_TEST(test_result_slot);
    RUN_TEST(test_callback_returning_promise_adopts);
    RUN_TEST(test_then_throw_then_recover);
    RUN_TEST(test_explicit_dispatchers);
    RUN_TEST(test_broken_source_reaches_callbacks);
    RUN_TEST(test_callbacks_run_outside_library_locks);
    RUN_TEST(test_callback_returning_its_own_promise_is_cycle);
    RUN_TEST(test_destroy_runs_after_the_callback);
    RUN_TEST(test_cancel_after_job_queued);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
