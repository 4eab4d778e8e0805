/*
 * test_ffi_contract.c: the NULL / failure / destroy-exactly-once contract of
 * the five libffi functions (their calling behaviour is tested in ffi_*.c).
 * Kept apart from test_destroy.c and test_bad_input.c so that those still
 * link while the libffi layer is missing.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static int64_t
add_ctx_count(int64_t x, void *ctx)
{
    track_hit(ctx);
    return x + 1;
}

static void
test_then_call_failures_destroy_before_returning(void)
{
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_fnptr fn = (vow_fnptr)add_ctx_count;
    vow_dispatcher *bg = vow_dispatcher_background();
    stderr_capture cap;
    capture_stderr_begin(&cap);
    struct {
        vow_dispatcher *d;
        int use_on;
        vow_promise *p;
        const char *sig;
        vow_fnptr fn;
    } cases[] = {
        {NULL, 0, NULL, "q(q)", fn},           {NULL, 0, p, NULL, fn},
        {NULL, 0, p, "q(q)", NULL},            {NULL, 0, p, "q(q", fn},
        {NULL, 0, p, "z(q)", fn},              {NULL, 0, p, "q(v)", fn},
        {NULL, 1, p, "q(q)", fn},              {bg, 1, NULL, "q(q)", fn},
        {bg, 1, p, "((", fn},                  {bg, 1, p, "q(q)", NULL},
        {NULL, 0, (vow_promise *)v, "q(q)", fn}, {(vow_dispatcher *)v, 1, p, "q(q)", fn},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        track *t = track_new();
        vow_promise *d = cases[k].use_on
                             ? vow_then_call_on(cases[k].d, cases[k].p, cases[k].sig, cases[k].fn, t, track_destroy)
                             : vow_then_call(cases[k].p, cases[k].sig, cases[k].fn, t, track_destroy);
        if (!CHECK_NULL(d)) {
            fprintf(stderr, "    case %zu returned a promise\n", k);
            vow_promise_release(d);
        }
        if (!CHECK_EQ_INT(track_destroyed(t), 1)) fprintf(stderr, "    case %zu\n", k);
    }
    /* Too long and too many parameters. */
    char longsig[VOW_FFI_MAX_SIGNATURE + 8];
    memset(longsig, 'q', sizeof longsig - 1);
    longsig[0] = 'v';
    longsig[1] = '(';
    longsig[sizeof longsig - 2] = ')';
    longsig[sizeof longsig - 1] = '\0';
    track *t = track_new();
    CHECK_NULL(vow_then_call(p, longsig, fn, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    char many[VOW_FFI_MAX_PARAMETERS + 8];
    memset(many, 'q', sizeof many);
    many[0] = 'v';
    many[1] = '(';
    many[VOW_FFI_MAX_PARAMETERS + 3] = ')';
    many[VOW_FFI_MAX_PARAMETERS + 4] = '\0';
    t = track_new();
    CHECK_NULL(vow_then_call(p, many, fn, t, track_destroy));
    CHECK_EQ_INT(track_destroyed(t), 1);
    free(capture_stderr_end(&cap));
    vow_promise_release(p);
    vow_value_release(v);
}

static void
test_then_call_paths(void)
{
    vow_value *v = vow_value_int(41);
    vow_fnptr fn = (vow_fnptr)add_ctx_count;

    /* Ran. */
    vow_promise *p = vow_promise_fulfilled(v);
    track *t = track_new();
    vow_promise *d = vow_then_call(p, "q(q)", fn, t, track_destroy);
    REQUIRE(d != NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(d, &got, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(got, &i), VOW_OK);
    CHECK_EQ_INT(i, 42);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(atomic_load(&t->on_main), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_value_release(got);
    vow_promise_release(d);
    vow_promise_release(p);

    /* Derived cancelled: never called, destroyed. */
    vow_resolver *r = NULL;
    p = vow_promise_pending(&r);
    vow_promise *keep = vow_then(p, NULL, NULL, NULL, NULL);
    t = track_new();
    d = vow_then_call_on(vow_dispatcher_background(), p, "q(q)", fn, t, track_destroy);
    REQUIRE(d != NULL);
    vow_cancel(d);
    CHECK(wait_counter(&t->destroyed, 1, ts_wait_seconds()));
    vow_resolver_fulfill(r, v);
    wait_promise(keep, NULL, NULL);
    flush_default();
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(d);
    vow_promise_release(keep);
    vow_resolver_release(r);
    vow_promise_release(p);

    /* Source released unsettled: BROKEN passes through, fn never called. */
    p = vow_promise_pending(&r);
    t = track_new();
    d = vow_then_call(p, "q(q)", fn, t, track_destroy);
    vow_promise_release(p);
    vow_resolver_release(r);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(d, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_BROKEN);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    vow_error_release(e);
    vow_promise_release(d);
    vow_value_release(v);
}

static void
test_trampoline_contract(void)
{
    vow_promise *p = (vow_promise *)1;
    CHECK_NULL(vow_trampoline_new(NULL, &p));
    CHECK_NULL(p);
    CHECK_NULL(vow_trampoline_new("v(q)", NULL));
    p = (vow_promise *)1;
    CHECK_NULL(vow_trampoline_new("q(q)", &p)); /* the return must be v */
    CHECK_NULL(p);
    p = (vow_promise *)1;
    CHECK_NULL(vow_trampoline_new("v(q", &p));
    CHECK_NULL(p);
    CHECK_NULL(vow_trampoline_function(NULL));
    vow_trampoline_release(NULL);

    /* Released before its first call: BROKEN. */
    vow_trampoline *t = vow_trampoline_new("v(q)", &p);
    REQUIRE(t != NULL && p != NULL);
    CHECK_NOT_NULL(vow_trampoline_function(t));
    vow_trampoline_release(t);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_STR(vow_error_domain(e), "vow");
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_BROKEN);
    vow_error_release(e);
    vow_promise_release(p);

    /* Called once: fulfils; later calls do nothing. */
    t = vow_trampoline_new("v(qs)", &p);
    REQUIRE(t != NULL && p != NULL);
    void (*f)(int64_t, const char *) = (void (*)(int64_t, const char *))vow_trampoline_function(t);
    char text[8] = "first";
    f(7, text);
    strcpy(text, "XXXXX"); /* strings are copied */
    f(8, "second");
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(got), 2);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(got, 0), &i), VOW_OK);
    CHECK_EQ_INT(i, 7);
    CHECK_EQ_STR(vow_value_get_string(vow_value_at(got, 1)), "first");
    vow_value_release(got);
    vow_trampoline_release(t);
    vow_promise_release(p);
}

TEST_MAIN_BEGIN("test_ffi_contract")
    unhandled_counter_install();
    RUN_TEST(test_then_call_failures_destroy_before_returning);
    RUN_TEST(test_then_call_paths);
    RUN_TEST(test_trampoline_contract);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
