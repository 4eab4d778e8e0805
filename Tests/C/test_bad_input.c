/*
 * test_bad_input.c: NULL for every handle parameter of every function (the
 * documented NULL / VOW_EINVAL / *_INVALID / false / 0, never a crash), a
 * handle of the wrong kind (a vow_value passed as a promise, ...) refused
 * with a message naming the function on stderr, and settling twice.
 * The libffi functions are covered in test_ffi_contract.c.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static void
ignore_fn(void *ctx)
{
    (void)ctx;
}

static void
ignore_submit(void *ctx, vow_job run, void *job)
{
    (void)ctx;
    (void)run;
    (void)job;
}

static void
test_null_everywhere(void)
{
    bool b = true;
    int64_t i = 5;
    double d = 1.5;
    size_t n = 9;
    const vow_thenable_class *cls = (const vow_thenable_class *)&n;

    /* Values */
    CHECK_NULL(vow_value_string(NULL));
    CHECK_NULL(vow_value_bytes(NULL, 1));
    CHECK_NULL(vow_value_list(NULL, 1));
    CHECK_NULL(vow_value_promise(NULL));
    CHECK_NULL(vow_value_error(NULL));
    CHECK_NULL(vow_value_thenable(NULL, NULL, NULL));
    CHECK_NULL(vow_value_retain(NULL));
    vow_value_release(NULL);
    CHECK_EQ_INT(vow_value_kind(NULL), VOW_KIND_INVALID);
    CHECK_EQ_INT(vow_value_get_bool(NULL, &b), VOW_EINVAL);
    CHECK_EQ_INT(vow_value_get_int(NULL, &i), VOW_EINVAL);
    CHECK_EQ_INT(vow_value_get_double(NULL, &d), VOW_EINVAL);
    CHECK(b == true && i == 5 && d == 1.5);
    CHECK_NULL(vow_value_get_string(NULL));
    CHECK_NULL(vow_value_get_bytes(NULL, &n));
    CHECK_EQ_INT(n, 0);
    CHECK_NULL(vow_value_get_bytes(NULL, NULL));
    CHECK_NULL(vow_value_get_pointer(NULL));
    CHECK_EQ_INT(vow_value_count(NULL), 0);
    CHECK_NULL(vow_value_at(NULL, 0));
    CHECK_NULL(vow_value_get_promise(NULL));
    CHECK_NULL(vow_value_get_thenable(NULL, &cls));
    CHECK_NULL(cls);
    CHECK_NULL(vow_value_get_thenable(NULL, NULL));
    CHECK_NULL(vow_value_get_error(NULL));
    /* NULL out-pointers of the getters. */
    vow_value *iv = vow_value_int(1), *bv = vow_value_bool(true), *dv = vow_value_double(1);
    CHECK_EQ_INT(vow_value_get_int(iv, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_value_get_bool(bv, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_value_get_double(dv, NULL), VOW_EINVAL);
    vow_value_release(iv);
    vow_value_release(bv);
    vow_value_release(dv);

    /* Errors */
    CHECK_NULL(vow_error_new(NULL, 1, "m"));
    CHECK_NULL(vow_error_with_payload(NULL, 1, "m", NULL));
    CHECK_NULL(vow_error_retain(NULL));
    vow_error_release(NULL);
    CHECK_NULL(vow_error_domain(NULL));
    CHECK_EQ_INT(vow_error_code(NULL), 0);
    CHECK_NULL(vow_error_message(NULL));
    CHECK_NULL(vow_error_payload(NULL));
    CHECK(!vow_error_is_cancelled(NULL));
    CHECK_EQ_INT(vow_register_cancellation(NULL, 1), VOW_EINVAL);

    /* Promises and resolvers */
    CHECK_NULL(vow_promise_pending(NULL));
    CHECK_NULL(vow_promise_fulfilled(NULL));
    CHECK_NULL(vow_promise_rejected(NULL));
    CHECK_NULL(vow_promise_retain(NULL));
    vow_promise_release(NULL);
    CHECK_EQ_INT(vow_promise_state(NULL), VOW_STATE_INVALID);
    CHECK_NULL(vow_promise_value(NULL));
    CHECK_NULL(vow_promise_error(NULL));
    vow_value *x = vow_value_int(1);
    vow_error *e = vow_error_new("test", 1, "");
    CHECK_EQ_INT(vow_resolver_resolve(NULL, x), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_fulfill(NULL, x), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_reject(NULL, e), VOW_EINVAL);
    CHECK(!vow_resolver_is_settled(NULL));
    CHECK_EQ_INT(vow_resolver_on_cancel(NULL, ignore_fn, NULL, NULL), VOW_EINVAL);
    CHECK_NULL(vow_resolver_retain(NULL));
    vow_resolver_release(NULL);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_resolver_resolve(r, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_fulfill(r, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_reject(r, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_on_cancel(r, NULL, NULL, NULL), VOW_EINVAL);
    /* None of those used the resolver. */
    CHECK(!vow_resolver_is_settled(r));
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);

    /* Chaining */
    vow_result_return(NULL, x);
    vow_result_throw(NULL, e);
    vow_dispatcher *bg = vow_dispatcher_background();
    CHECK_NULL(vow_then(NULL, NULL, NULL, NULL, NULL));
    CHECK_NULL(vow_then_on(NULL, p, NULL, NULL, NULL, NULL));
    CHECK_NULL(vow_then_on(bg, NULL, NULL, NULL, NULL, NULL));
    CHECK_NULL(vow_catch(NULL, NULL, NULL, NULL));
    CHECK_NULL(vow_catch_policy(NULL, VOW_CATCH_ALL_ERRORS, NULL, NULL, NULL));
    CHECK_NULL(vow_finally(NULL, ignore_fn, NULL, NULL));
    CHECK_NULL(vow_catch_on(NULL, p, NULL, NULL, NULL));
    CHECK_NULL(vow_catch_on(bg, NULL, NULL, NULL, NULL));
    CHECK_NULL(vow_catch_policy_on(NULL, p, VOW_CATCH_ALL_ERRORS, NULL, NULL, NULL));
    CHECK_NULL(vow_finally_on(NULL, p, ignore_fn, NULL, NULL));
    CHECK_NULL(vow_finally_on(bg, NULL, ignore_fn, NULL, NULL));

    /* Dispatchers */
    CHECK_NULL(vow_dispatcher_new(NULL, NULL, NULL));
    CHECK_NULL(vow_dispatcher_retain(NULL));
    vow_dispatcher_release(NULL);
    vow_dispatcher *def = vow_dispatcher_default();
    vow_set_default_dispatcher(NULL); /* restores the library's own: a no-op here */
    CHECK_EQ_PTR(vow_dispatcher_default(), def);

    /* Waiting, combinators, cancellation */
    vow_value *vo = (vow_value *)1;
    vow_error *eo = (vow_error *)1;
    CHECK_EQ_INT(vow_wait(NULL, 0.1, &vo, &eo), VOW_STATE_INVALID);
    CHECK_NULL(vow_when(NULL, 1));
    CHECK_NULL(vow_join(NULL, 1));
    CHECK_NULL(vow_race(NULL, 1));
    CHECK_NULL(vow_timeout(NULL, 1));
    CHECK_NULL(vow_dispatch(NULL, ts_noop_on_value, NULL, NULL));
    CHECK_NULL(vow_dispatch(bg, NULL, NULL, NULL));
    vow_cancel(NULL);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);

    /* Nothing above touched p. */
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_EQ_INT(vow_resolver_fulfill(r, x), VOW_OK);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(x);
    vow_error_release(e);
    /* NULL ctx and destroy are fine for a dispatcher. */
    vow_dispatcher *hd = vow_dispatcher_new(ignore_submit, NULL, NULL);
    CHECK_NOT_NULL(hd);
    vow_dispatcher_release(hd);
}

/* True if text names fname as a whole word (not as the prefix of a longer name). */
static int
names_function(const char *text, const char *fname)
{
    size_t len = strlen(fname);
    for (const char *s = strstr(text, fname); s != NULL; s = strstr(s + 1, fname)) {
        char after = s[len];
        if (!(after == '_' || (after >= 'a' && after <= 'z') || (after >= '0' && after <= '9'))) return 1;
    }
    return 0;
}

static char *ts_captured;
static stderr_capture ts_cap;

static void
capture_begin(void)
{
    capture_stderr_begin(&ts_cap);
}

/* Ends the capture; checks the refusal was named. */
#define CHECK_REFUSED(fname)                                                                     \
    do {                                                                                         \
        ts_captured = capture_stderr_end(&ts_cap);                                               \
        if (!CHECK(names_function(ts_captured, fname)))                                          \
            fprintf(stderr, "    stderr for %s was: <<%s>>\n", fname, ts_captured);              \
        free(ts_captured);                                                                       \
    } while (0)

typedef struct payload {
    atomic_int destroyed;
} payload;

static void
payload_destroy(void *p)
{
    atomic_fetch_add(&((payload *)p)->destroyed, 1);
}

static void
test_wrong_kind_refused_and_named(void)
{
    payload pl = {0}, epl = {0};
    vow_value *v = vow_value_pointer(&pl, payload_destroy);
    vow_value *epv = vow_value_pointer(&epl, payload_destroy);
    vow_error *e = vow_error_with_payload("test", 1, "an error", epv);
    vow_value_release(epv);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_dispatcher *bg = vow_dispatcher_background();
    REQUIRE(v && e && p && r);
    /* Spare references: a refused call that wrongly released would show up below
       as a destroy before the last release, instead of a use after free. */
    enum { SPARE = 16 };
    for (int k = 0; k < SPARE; k++) {
        vow_value_retain(v);
        vow_error_retain(e);
        vow_promise_retain(p);
    }
    vow_promise *vp = (vow_promise *)v;  /* a value as a promise */
    vow_resolver *pr = (vow_resolver *)p; /* a promise as a resolver */
    vow_value *ev = (vow_value *)e;       /* an error as a value */
    vow_error *ve = (vow_error *)v;       /* a value as an error */
    vow_dispatcher *vd = (vow_dispatcher *)v;
    bool b = false;
    int64_t i = 3;
    double d = 0;
    size_t n = 5;

    /* Values */
    capture_begin();
    CHECK_EQ_INT(vow_value_kind(ev), VOW_KIND_INVALID);
    CHECK_REFUSED("vow_value_kind");
    capture_begin();
    CHECK_EQ_INT(vow_value_get_int(ev, &i), VOW_EINVAL);
    CHECK_EQ_INT(i, 3);
    CHECK_REFUSED("vow_value_get_int");
    capture_begin();
    CHECK_EQ_INT(vow_value_get_bool(ev, &b), VOW_EINVAL);
    CHECK_REFUSED("vow_value_get_bool");
    capture_begin();
    CHECK_EQ_INT(vow_value_get_double(ev, &d), VOW_EINVAL);
    CHECK_REFUSED("vow_value_get_double");
    capture_begin();
    CHECK_NULL(vow_value_get_string(ev));
    CHECK_REFUSED("vow_value_get_string");
    capture_begin();
    CHECK_NULL(vow_value_get_bytes(ev, &n));
    CHECK_EQ_INT(n, 0);
    CHECK_REFUSED("vow_value_get_bytes");
    capture_begin();
    CHECK_NULL(vow_value_get_pointer(ev));
    CHECK_REFUSED("vow_value_get_pointer");
    capture_begin();
    CHECK_EQ_INT(vow_value_count(ev), 0);
    CHECK_REFUSED("vow_value_count");
    capture_begin();
    CHECK_NULL(vow_value_at(ev, 0));
    CHECK_REFUSED("vow_value_at");
    capture_begin();
    CHECK_NULL(vow_value_get_promise(ev));
    CHECK_REFUSED("vow_value_get_promise");
    capture_begin();
    CHECK_NULL(vow_value_get_error(ev));
    CHECK_REFUSED("vow_value_get_error");
    capture_begin();
    CHECK_NULL(vow_value_get_thenable(ev, NULL));
    CHECK_REFUSED("vow_value_get_thenable");
    capture_begin();
    CHECK_NULL(vow_value_promise(vp));
    CHECK_REFUSED("vow_value_promise");
    capture_begin();
    CHECK_NULL(vow_value_error(ve));
    CHECK_REFUSED("vow_value_error");
    capture_begin();
    const vow_value *items[2] = {v, ev};
    CHECK_NULL(vow_value_list(items, 2));
    CHECK_REFUSED("vow_value_list");
    capture_begin();
    CHECK_NULL(vow_value_retain(ev));
    CHECK_REFUSED("vow_value_retain");
    capture_begin();
    vow_value_release(ev);
    CHECK_REFUSED("vow_value_release");

    /* Errors */
    capture_begin();
    CHECK_NULL(vow_error_domain(ve));
    CHECK_REFUSED("vow_error_domain");
    capture_begin();
    CHECK_EQ_INT(vow_error_code(ve), 0);
    CHECK_REFUSED("vow_error_code");
    capture_begin();
    CHECK_NULL(vow_error_message(ve));
    CHECK_REFUSED("vow_error_message");
    capture_begin();
    CHECK_NULL(vow_error_payload(ve));
    CHECK_REFUSED("vow_error_payload");
    capture_begin();
    CHECK(!vow_error_is_cancelled(ve));
    CHECK_REFUSED("vow_error_is_cancelled");
    capture_begin();
    CHECK_NULL(vow_error_with_payload("d", 1, "m", ev));
    CHECK_REFUSED("vow_error_with_payload");
    capture_begin();
    CHECK_NULL(vow_error_retain(ve));
    CHECK_REFUSED("vow_error_retain");
    capture_begin();
    vow_error_release(ve);
    CHECK_REFUSED("vow_error_release");

    /* Promises and resolvers */
    capture_begin();
    CHECK_NULL(vow_promise_fulfilled(ev));
    CHECK_REFUSED("vow_promise_fulfilled");
    capture_begin();
    CHECK_NULL(vow_promise_rejected(ve));
    CHECK_REFUSED("vow_promise_rejected");
    capture_begin();
    CHECK_EQ_INT(vow_promise_state(vp), VOW_STATE_INVALID);
    CHECK_REFUSED("vow_promise_state");
    capture_begin();
    CHECK_NULL(vow_promise_value(vp));
    CHECK_REFUSED("vow_promise_value");
    capture_begin();
    CHECK_NULL(vow_promise_error(vp));
    CHECK_REFUSED("vow_promise_error");
    capture_begin();
    CHECK_NULL(vow_promise_retain(vp));
    CHECK_REFUSED("vow_promise_retain");
    capture_begin();
    vow_promise_release(vp);
    CHECK_REFUSED("vow_promise_release");
    capture_begin();
    CHECK_EQ_INT(vow_resolver_fulfill(pr, v), VOW_EINVAL);
    CHECK_REFUSED("vow_resolver_fulfill");
    capture_begin();
    CHECK_EQ_INT(vow_resolver_reject(pr, e), VOW_EINVAL);
    CHECK_REFUSED("vow_resolver_reject");
    capture_begin();
    CHECK_EQ_INT(vow_resolver_resolve(pr, v), VOW_EINVAL);
    CHECK_REFUSED("vow_resolver_resolve");
    capture_begin();
    CHECK_EQ_INT(vow_resolver_fulfill(r, ev), VOW_EINVAL);
    CHECK_REFUSED("vow_resolver_fulfill");
    capture_begin();
    CHECK_EQ_INT(vow_resolver_reject(r, ve), VOW_EINVAL);
    CHECK_REFUSED("vow_resolver_reject");
    capture_begin();
    CHECK_EQ_INT(vow_resolver_resolve(r, ev), VOW_EINVAL);
    CHECK_REFUSED("vow_resolver_resolve");
    capture_begin();
    CHECK(!vow_resolver_is_settled(pr));
    CHECK_REFUSED("vow_resolver_is_settled");
    capture_begin();
    CHECK_EQ_INT(vow_resolver_on_cancel(pr, ignore_fn, NULL, NULL), VOW_EINVAL);
    CHECK_REFUSED("vow_resolver_on_cancel");
    capture_begin();
    CHECK_NULL(vow_resolver_retain(pr));
    CHECK_REFUSED("vow_resolver_retain");
    capture_begin();
    vow_resolver_release(pr);
    CHECK_REFUSED("vow_resolver_release");
    /* The real resolver was not used by the refused calls. */
    CHECK(!vow_resolver_is_settled(r));
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);

    /* Chaining */
    capture_begin();
    CHECK_NULL(vow_then(vp, NULL, NULL, NULL, NULL));
    CHECK_REFUSED("vow_then");
    capture_begin();
    CHECK_NULL(vow_then_on(vd, p, NULL, NULL, NULL, NULL));
    CHECK_REFUSED("vow_then_on");
    capture_begin();
    CHECK_NULL(vow_then_on(bg, vp, NULL, NULL, NULL, NULL));
    CHECK_REFUSED("vow_then_on");
    capture_begin();
    CHECK_NULL(vow_catch(vp, track_on_error_recover, NULL, NULL));
    CHECK_REFUSED("vow_catch");
    capture_begin();
    CHECK_NULL(vow_catch_policy(vp, VOW_CATCH_ALL_ERRORS, track_on_error_recover, NULL, NULL));
    CHECK_REFUSED("vow_catch_policy");
    capture_begin();
    CHECK_NULL(vow_finally(vp, ignore_fn, NULL, NULL));
    CHECK_REFUSED("vow_finally");
    capture_begin();
    CHECK_NULL(vow_catch_on(vd, p, track_on_error_recover, NULL, NULL));
    CHECK_REFUSED("vow_catch_on");
    capture_begin();
    CHECK_NULL(vow_catch_policy_on(vd, p, VOW_CATCH_ALL_ERRORS, track_on_error_recover, NULL, NULL));
    CHECK_REFUSED("vow_catch_policy_on");
    capture_begin();
    CHECK_NULL(vow_finally_on(vd, p, ignore_fn, NULL, NULL));
    CHECK_REFUSED("vow_finally_on");

    /* Dispatchers */
    capture_begin();
    CHECK_NULL(vow_dispatcher_retain(vd));
    CHECK_REFUSED("vow_dispatcher_retain");
    capture_begin();
    vow_dispatcher_release(vd);
    CHECK_REFUSED("vow_dispatcher_release");
    vow_dispatcher *def = vow_dispatcher_default();
    capture_begin();
    vow_set_default_dispatcher(vd);
    CHECK_REFUSED("vow_set_default_dispatcher");
    CHECK_EQ_PTR(vow_dispatcher_default(), def);

    /* Waiting, combinators, cancellation */
    capture_begin();
    CHECK_EQ_INT(vow_wait(vp, 0.01, NULL, NULL), VOW_STATE_INVALID);
    CHECK_REFUSED("vow_wait");
    vow_promise *ps[2] = {p, vp};
    capture_begin();
    CHECK_NULL(vow_when(ps, 2));
    CHECK_REFUSED("vow_when");
    capture_begin();
    CHECK_NULL(vow_join(ps, 2));
    CHECK_REFUSED("vow_join");
    capture_begin();
    CHECK_NULL(vow_race(ps, 2));
    CHECK_REFUSED("vow_race");
    capture_begin();
    CHECK_NULL(vow_timeout(vp, 1));
    CHECK_REFUSED("vow_timeout");
    capture_begin();
    CHECK_NULL(vow_dispatch(vd, ts_noop_on_value, NULL, NULL));
    CHECK_REFUSED("vow_dispatch");
    capture_begin();
    vow_cancel(vp);
    CHECK_REFUSED("vow_cancel");

    /* None of the refused calls changed a reference count: v, e and p are intact. */
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    CHECK_EQ_INT(atomic_load(&epl.destroyed), 0);
    CHECK_EQ_PTR(vow_value_get_pointer(v), &pl);
    CHECK_EQ_STR(vow_error_message(e), "an error");
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    for (int k = 0; k < SPARE; k++) {
        vow_value_release(v);
        vow_error_release(e);
        vow_promise_release(p);
    }
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    CHECK_EQ_INT(atomic_load(&epl.destroyed), 0);
    vow_value_release(v);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);
    vow_error_release(e);
    CHECK_EQ_INT(atomic_load(&epl.destroyed), 1);
    vow_resolver_release(r); /* BROKEN: nobody looks */
    vow_promise_release(p);
}

static void
test_settle_twice(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *v = vow_value_int(1);
    vow_error *e = vow_error_new("test", 1, "");
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_EALREADY);
    CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_EALREADY);
    CHECK_EQ_INT(vow_resolver_resolve(r, v), VOW_EALREADY);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(v);
    vow_error_release(e);
}

TEST_MAIN_BEGIN("test_bad_input")
    unhandled_counter_install();
    RUN_TEST(test_null_everywhere);
    RUN_TEST(test_wrong_kind_refused_and_named);
    RUN_TEST(test_settle_twice);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
