/*
 * ffi_then_call.c: vow_then_call and vow_then_call_on, from C.
 *
 * A promise's value (a LIST, or one value taken as a list of one) is spread into a real
 * C function's parameters through libffi, with ctx appended; the return value fulfils
 * the next promise. Every parameter and return type, arities 0 to 12 and 32, UTF-8
 * strings, count and kind mismatches (VOW_ERROR_TYPE naming the position), rejections
 * passing through, malformed signatures (NULL + destroy + a stderr line), the
 * destroy-exactly-once paths, and a host dispatcher.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

#include <stdarg.h>

/* ---------------------------------------------------------------------- helpers */

/* A LIST made of the n values given (the list retains them; they are released here). */
static vow_value *
list_take(size_t n, ...)
{
    vow_value *items[40];
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) items[i] = va_arg(ap, vow_value *);
    va_end(ap);
    vow_value *list = vow_value_list((const vow_value *const *)items, n);
    for (size_t i = 0; i < n; i++) vow_value_release(items[i]);
    return list;
}

/* A promise fulfilled with v (v is released here). */
static vow_promise *
fulfilled_take(vow_value *v)
{
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    return p;
}

/* Runs vow_then_call on a promise fulfilled with value (taken), waits, and returns the
 * state; *value_out / *error_out as vow_wait. The tracker t is the ctx. */
static vow_state
call_with(vow_value *value, const char *signature, vow_fnptr fn, track *t, vow_value **value_out,
          vow_error **error_out)
{
    vow_promise *p = fulfilled_take(value);
    vow_promise *q = vow_then_call(p, signature, fn, t, track_destroy);
    vow_promise_release(p);
    if (q == NULL) {
        CHECK(!"vow_then_call returned NULL");
        if (value_out) *value_out = NULL;
        if (error_out) *error_out = NULL;
        return VOW_STATE_INVALID;
    }
    vow_state s = wait_promise(q, value_out, error_out);
    vow_promise_release(q);
    return s;
}

/* Checks that e is a vow TYPE error whose message contains needle. */
#define CHECK_TYPE_ERROR(e, needle)                                          \
    do {                                                                     \
        CHECK_NOT_NULL(e);                                                   \
        if ((e) != NULL) {                                                   \
            CHECK_EQ_STR(vow_error_domain(e), "vow");                        \
            CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_TYPE);                 \
            CHECK(strstr(vow_error_message(e), (needle)) != NULL);           \
            if (strstr(vow_error_message(e), (needle)) == NULL)              \
                fprintf(stderr, "  message was: %s\n", vow_error_message(e)); \
        }                                                                    \
    } while (0)

/* ---------------------------------------------------------------------- functions called */

static void ret_void(void *ctx) { track_hit(ctx); }
static bool ret_bool(bool b, void *ctx) { track_hit(ctx); return !b; }
static int32_t ret_int32(int32_t i, void *ctx) { track_hit(ctx); return i - 1; }
static int64_t ret_int64(int64_t q, void *ctx) { track_hit(ctx); return q * 2; }
static double ret_double(double d, void *ctx) { track_hit(ctx); return d / 4; }
static float ret_float(float f, void *ctx) { track_hit(ctx); return f * 2; }
static const char hello_text[] = "héllo ✓";
static const char *ret_string(void *ctx) { track_hit(ctx); return hello_text; }
static const char *ret_same_string(const char *s, void *ctx) { track_hit(ctx); return s; }
static bool is_null(const void *p, void *ctx) { track_hit(ctx); return p == NULL; }
static const char *ret_null_string(void *ctx) { track_hit(ctx); return NULL; }
static void *ret_pointer(void *p, void *ctx) { track_hit(ctx); return (char *)p + 1; }
static vow_value *ret_value_new(int64_t q, void *ctx) { track_hit(ctx); return vow_value_int(q + 100); }
static vow_value *ret_value_same(const vow_value *v, void *ctx) { track_hit(ctx); return vow_value_retain(v); }
static vow_value *ret_value_null(void *ctx) { track_hit(ctx); return NULL; }

/* Every parameter type at once; returns 1.0 if each one arrived as sent. */
static char every_buffer[8];
static const vow_value *every_value;
static double
every_param(bool b, int32_t i, int64_t q, double d, float f, const char *s, void *p, const vow_value *v,
            void *ctx)
{
    track_hit(ctx);
    int ok = b == true && i == -42 && q == INT64_MIN && d == 0.125 && f == 2.5f && s != NULL &&
             strcmp(s, "héllo ✓") == 0 && p == every_buffer && v == every_value;
    return ok ? 1.0 : 0.0;
}

/* Arities 0..12: argument k (1-based) weighted by k, so a misplaced argument shows. */
typedef int64_t Q;
static Q a0(void *c) { track_hit(c); return 0; }
static Q a1(Q x1, void *c) { track_hit(c); return x1; }
static Q a2(Q x1, Q x2, void *c) { track_hit(c); return x1 + 2 * x2; }
static Q a3(Q x1, Q x2, Q x3, void *c) { track_hit(c); return x1 + 2 * x2 + 3 * x3; }
static Q a4(Q x1, Q x2, Q x3, Q x4, void *c) { track_hit(c); return x1 + 2 * x2 + 3 * x3 + 4 * x4; }
static Q a5(Q x1, Q x2, Q x3, Q x4, Q x5, void *c)
{ track_hit(c); return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5; }
static Q a6(Q x1, Q x2, Q x3, Q x4, Q x5, Q x6, void *c)
{ track_hit(c); return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5 + 6 * x6; }
static Q a7(Q x1, Q x2, Q x3, Q x4, Q x5, Q x6, Q x7, void *c)
{ track_hit(c); return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5 + 6 * x6 + 7 * x7; }
static Q a8(Q x1, Q x2, Q x3, Q x4, Q x5, Q x6, Q x7, Q x8, void *c)
{ track_hit(c); return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5 + 6 * x6 + 7 * x7 + 8 * x8; }
static Q a9(Q x1, Q x2, Q x3, Q x4, Q x5, Q x6, Q x7, Q x8, Q x9, void *c)
{ track_hit(c); return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5 + 6 * x6 + 7 * x7 + 8 * x8 + 9 * x9; }
static Q a10(Q x1, Q x2, Q x3, Q x4, Q x5, Q x6, Q x7, Q x8, Q x9, Q x10, void *c)
{ track_hit(c); return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5 + 6 * x6 + 7 * x7 + 8 * x8 + 9 * x9 + 10 * x10; }
static Q a11(Q x1, Q x2, Q x3, Q x4, Q x5, Q x6, Q x7, Q x8, Q x9, Q x10, Q x11, void *c)
{
    track_hit(c);
    return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5 + 6 * x6 + 7 * x7 + 8 * x8 + 9 * x9 + 10 * x10 + 11 * x11;
}
static Q a12(Q x1, Q x2, Q x3, Q x4, Q x5, Q x6, Q x7, Q x8, Q x9, Q x10, Q x11, Q x12, void *c)
{
    track_hit(c);
    return x1 + 2 * x2 + 3 * x3 + 4 * x4 + 5 * x5 + 6 * x6 + 7 * x7 + 8 * x8 + 9 * x9 + 10 * x10 + 11 * x11 +
           12 * x12;
}

/* 32 parameters of mixed types (doubles and ints alternate), and ctx. */
static double
a32(double d1, Q q2, double d3, Q q4, double d5, Q q6, double d7, Q q8, double d9, Q q10, double d11, Q q12,
    double d13, Q q14, double d15, Q q16, double d17, Q q18, double d19, Q q20, double d21, Q q22, double d23,
    Q q24, double d25, Q q26, double d27, Q q28, double d29, Q q30, double d31, Q q32, void *c)
{
    track_hit(c);
    double doubles[16] = {d1, d3, d5, d7, d9, d11, d13, d15, d17, d19, d21, d23, d25, d27, d29, d31};
    Q ints[16] = {q2, q4, q6, q8, q10, q12, q14, q16, q18, q20, q22, q24, q26, q28, q30, q32};
    double sum = 0;
    for (int k = 0; k < 16; k++) {
        sum += (double)(2 * k + 1) * doubles[k];
        sum += (double)(2 * k + 2) * (double)ints[k];
    }
    return sum;
}

static void must_not_run(void *ctx) { (void)ctx; abort(); }

/* Returns its ctx, to check that ctx comes last. */
static void *ret_ctx(int64_t a, int64_t b, void *ctx) { (void)a; (void)b; track_hit(ctx); return ctx; }

/* ---------------------------------------------------------------------- tests */

static void
test_every_return_type(void)
{
    vow_value *v = NULL;
    vow_error *e = NULL;
    track *t;
    bool b = true;
    int64_t n = 0;
    double d = 0;

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_list(NULL, 0), "v()", (vow_fnptr)ret_void, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
    vow_value_release(v);
    CHECK_EQ_INT(track_calls(t), 1);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_bool(true), "b(b)", (vow_fnptr)ret_bool, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_get_bool(v, &b), VOW_OK);
    CHECK(b == false);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_int(INT32_MIN + 1), "i(i)", (vow_fnptr)ret_int32, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_INT);
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, INT32_MIN);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_int(INT64_C(1) << 40), "q(q)", (vow_fnptr)ret_int64, t, &v, &e),
                 VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, INT64_C(1) << 41);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_double(3.0), "d(d)", (vow_fnptr)ret_double, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_DOUBLE);
    CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 0.75);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_double(1.25), "f(f)", (vow_fnptr)ret_float, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_DOUBLE);
    CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 2.5);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_list(NULL, 0), "s()", (vow_fnptr)ret_string, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_STRING);
    CHECK_EQ_STR(vow_value_get_string(v), "héllo ✓");
    /* Copied: the value does not point at the function's static string. */
    CHECK(vow_value_get_string(v) != hello_text);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_list(NULL, 0), "s()", (vow_fnptr)ret_null_string, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
    vow_value_release(v);

    static char buffer[4];
    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_pointer(buffer, NULL), "p(p)", (vow_fnptr)ret_pointer, t, &v, &e),
                 VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_POINTER);
    CHECK_EQ_PTR(vow_value_get_pointer(v), buffer + 1);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_int(5), "V(q)", (vow_fnptr)ret_value_new, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, 105);
    vow_value_release(v);

    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_list(NULL, 0), "V()", (vow_fnptr)ret_value_null, t, &v, &e), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
    vow_value_release(v);

    flush_default();
}

static void
test_value_parameter_and_return_keep_identity(void)
{
    /* A V parameter is the list's own item (borrowed), and a V return passes its +1 on:
     * the next promise holds that same handle. */
    vow_value *item = vow_value_string("same");
    vow_value *list = vow_value_list((const vow_value *const *)&item, 1);
    track *t = track_new();
    vow_value *v = NULL;
    CHECK_EQ_INT(call_with(list, "V(V)", (vow_fnptr)ret_value_same, t, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(v, item);
    vow_value_release(v);
    vow_value_release(item);
}

static void
test_every_parameter_type(void)
{
    every_value = vow_value_bytes("xyz", 3);
    track *t = track_new();
    vow_value *v = NULL;
    vow_value *list = list_take(8, vow_value_bool(true), vow_value_int(-42), vow_value_int(INT64_MIN),
                                vow_value_double(0.125), vow_value_double(2.5), vow_value_string("héllo ✓"),
                                vow_value_pointer(every_buffer, NULL), vow_value_retain(every_value));
    CHECK_EQ_INT(call_with(list, "d(biqdfspV)", (vow_fnptr)every_param, t, &v, NULL), VOW_FULFILLED);
    double d = 0;
    CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 1.0);
    CHECK_EQ_INT(track_calls(t), 1);
    vow_value_release(v);
    vow_value_release(every_value);
}

static void
test_int_widens_to_double_and_float(void)
{
    vow_value *v = NULL;
    double d = 0;
    CHECK_EQ_INT(call_with(vow_value_int(6), "d(d)", (vow_fnptr)ret_double, track_new(), &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 1.5);
    vow_value_release(v);
    CHECK_EQ_INT(call_with(vow_value_int(3), "f(f)", (vow_fnptr)ret_float, track_new(), &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 6.0);
    vow_value_release(v);
}

static void
test_null_for_pointer_and_string(void)
{
    static const char *signatures[] = {"b(p)", "b(s)"};
    for (int i = 0; i < 2; i++) {
        vow_value *v = NULL;
        bool b = false;
        CHECK_EQ_INT(call_with(vow_value_null(), signatures[i], (vow_fnptr)is_null, track_new(), &v, NULL),
                     VOW_FULFILLED);
        CHECK_EQ_INT(vow_value_get_bool(v, &b), VOW_OK);
        CHECK(b);
        vow_value_release(v);
    }
}

static void
test_arities_0_to_12(void)
{
    vow_fnptr fns[13] = {(vow_fnptr)a0, (vow_fnptr)a1, (vow_fnptr)a2, (vow_fnptr)a3, (vow_fnptr)a4,
                         (vow_fnptr)a5, (vow_fnptr)a6, (vow_fnptr)a7, (vow_fnptr)a8, (vow_fnptr)a9,
                         (vow_fnptr)a10, (vow_fnptr)a11, (vow_fnptr)a12};
    for (int arity = 0; arity <= 12; arity++) {
        char signature[20] = "q(";
        vow_value *items[12];
        int64_t expected = 0;
        for (int k = 0; k < arity; k++) {
            signature[2 + k] = 'q';
            items[k] = vow_value_int(1000 + k + 1);
            expected += (int64_t)(k + 1) * (1000 + k + 1);
        }
        signature[2 + arity] = ')';
        signature[3 + arity] = '\0';
        vow_value *list = vow_value_list((const vow_value *const *)items, (size_t)arity);
        for (int k = 0; k < arity; k++) vow_value_release(items[k]);
        track *t = track_new();
        vow_value *v = NULL;
        CHECK_EQ_INT(call_with(list, signature, fns[arity], t, &v, NULL), VOW_FULFILLED);
        int64_t n = -1;
        CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
        if (n != expected) fprintf(stderr, "  arity %d\n", arity);
        CHECK_EQ_INT(n, expected);
        CHECK_EQ_INT(track_calls(t), 1);
        vow_value_release(v);
    }
}

static void
test_thirty_two_parameters(void)
{
    char signature[40] = "d(";
    vow_value *items[32];
    double expected = 0;
    for (int k = 0; k < 32; k++) {
        int position = k + 1;
        if (k % 2 == 0) {
            signature[2 + k] = 'd';
            items[k] = vow_value_double(position + 0.5);
            expected += position * (position + 0.5);
        } else {
            signature[2 + k] = 'q';
            items[k] = vow_value_int(position * 10);
            expected += position * (position * 10.0);
        }
    }
    signature[34] = ')';
    signature[35] = '\0';
    vow_value *list = vow_value_list((const vow_value *const *)items, 32);
    for (int k = 0; k < 32; k++) vow_value_release(items[k]);
    vow_value *v = NULL;
    track *t = track_new();
    CHECK_EQ_INT(call_with(list, signature, (vow_fnptr)a32, t, &v, NULL), VOW_FULFILLED);
    double d = 0;
    CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, expected);
    vow_value_release(v);
}

static void
test_context_is_the_last_argument(void)
{
    track *t = track_new();
    vow_value *v = NULL;
    CHECK_EQ_INT(call_with(list_take(2, vow_value_int(1), vow_value_int(2)), "p(qq)", (vow_fnptr)ret_ctx, t, &v,
                           NULL),
                 VOW_FULFILLED);
    CHECK_EQ_PTR(vow_value_get_pointer(v), t);
    vow_value_release(v);
}

static void
test_single_value_is_a_list_of_one(void)
{
    vow_value *v = NULL;
    int64_t n = 0;
    CHECK_EQ_INT(call_with(vow_value_int(21), "q(q)", (vow_fnptr)ret_int64, track_new(), &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, 42);
    vow_value_release(v);
    /* A list of one is the same. */
    CHECK_EQ_INT(call_with(list_take(1, vow_value_int(21)), "q(q)", (vow_fnptr)ret_int64, track_new(), &v, NULL),
                 VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, 42);
    vow_value_release(v);
}

static void
test_null_value_and_no_parameters(void)
{
    /* A promise that fulfils with nothing (vow_after) feeds a function without parameters. */
    vow_promise *p = vow_after(0);
    track *t = track_new();
    vow_promise *q = vow_then_call(p, "v()", (vow_fnptr)ret_void, t, track_destroy);
    vow_promise_release(p);
    REQUIRE(q != NULL);
    CHECK_EQ_INT(wait_promise(q, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    vow_promise_release(q);
}

static void
test_utf8_strings_round_trip(void)
{
    static const char *texts[] = {"", "héllo ✓", "日本語のテキスト", "emoji 🎉 and NUL-free \x7f"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        vow_value *v = NULL;
        CHECK_EQ_INT(call_with(vow_value_string(texts[i]), "s(s)", (vow_fnptr)ret_same_string, track_new(), &v,
                               NULL),
                     VOW_FULFILLED);
        /* The function returns the argument's own buffer; the result is a copy, and
         * outlives the argument value. */
        CHECK_EQ_STR(vow_value_get_string(v), texts[i]);
        vow_value_release(v);
    }
}

static void
test_count_mismatch(void)
{
    vow_error *e = NULL;
    track *t = track_new();
    CHECK_EQ_INT(call_with(list_take(1, vow_value_int(1)), "q(qq)", (vow_fnptr)a2, t, NULL, &e), VOW_REJECTED);
    CHECK_TYPE_ERROR(e, "argument 2 missing");
    CHECK_TYPE_ERROR(e, "q(qq) takes 2 arguments, found 1 value");
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0);

    t = track_new();
    CHECK_EQ_INT(call_with(list_take(3, vow_value_int(1), vow_value_int(2), vow_value_int(3)), "q(qq)",
                           (vow_fnptr)a2, t, NULL, &e),
                 VOW_REJECTED);
    CHECK_TYPE_ERROR(e, "argument 3 unexpected");
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0);

    /* No parameters: a value is ignored, as PromiseKit's block without arguments does
     * (the manifold rule; ffi_manifolds.c has the rest of it). */
    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_int(1), "q()", (vow_fnptr)a0, t, NULL, &e), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
}

static void
test_kind_mismatch(void)
{
    struct {
        vow_value *arg;
        const char *signature;
        vow_fnptr fn;
        const char *message;
    } cases[] = {
        {list_take(2, vow_value_int(1), vow_value_string("x")), "q(qi)", (vow_fnptr)a2,
         "argument 2: expected an INT for 'i', found STRING"},
        {vow_value_double(1.5), "q(q)", (vow_fnptr)a1, "argument 1: expected an INT for 'q', found DOUBLE"},
        {vow_value_int(1), "b(b)", (vow_fnptr)ret_bool, "argument 1: expected a BOOL for 'b', found INT"},
        {vow_value_string("1"), "d(d)", (vow_fnptr)ret_double, "expected an INT or DOUBLE for 'd', found STRING"},
        {vow_value_bool(true), "f(f)", (vow_fnptr)ret_float, "expected an INT or DOUBLE for 'f', found BOOL"},
        {vow_value_int(7), "s(s)", (vow_fnptr)ret_pointer, "expected a STRING or NULL for 's', found INT"},
        {vow_value_bytes("ab", 2), "s(s)", (vow_fnptr)ret_pointer, "expected a STRING or NULL for 's', found BYTES"},
        {vow_value_string("p"), "p(p)", (vow_fnptr)ret_pointer, "expected a POINTER or NULL for 'p', found STRING"},
        {vow_value_null(), "q(q)", (vow_fnptr)a1, "expected an INT for 'q', found NULL"},
        {vow_value_int(INT64_C(5000000000)), "i(i)", (vow_fnptr)ret_int32,
         "argument 1: INT 5000000000 does not fit in int32_t for 'i'"},
        {vow_value_int(INT64_C(-2147483649)), "i(i)", (vow_fnptr)ret_int32, "does not fit in int32_t"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vow_error *e = NULL;
        track *t = track_new();
        CHECK_EQ_INT(call_with(cases[i].arg, cases[i].signature, cases[i].fn, t, NULL, &e), VOW_REJECTED);
        CHECK_TYPE_ERROR(e, cases[i].message);
        CHECK_EQ_INT(track_calls(t), 0);
        vow_error_release(e);
    }
    /* The int32 limits themselves fit. */
    vow_value *v = NULL;
    CHECK_EQ_INT(call_with(vow_value_int(INT32_MAX), "i(i)", (vow_fnptr)ret_int32, track_new(), &v, NULL),
                 VOW_FULFILLED);
    vow_value_release(v);
}

static void
test_rejection_passes_through(void)
{
    vow_error *err = vow_error_new("test", 7, "boom");
    vow_promise *p = vow_promise_rejected(err);
    track *t = track_new();
    vow_promise *q = vow_then_call(p, "v()", (vow_fnptr)must_not_run, t, track_destroy);
    REQUIRE(q != NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(q, NULL, &e), VOW_REJECTED);
    CHECK_EQ_PTR(e, err); /* the same error handle */
    CHECK_DESTROYED_ONCE(t);
    vow_error_release(e);
    vow_error_release(err);
    vow_promise_release(p);
    vow_promise_release(q);
}

static void
test_malformed_signatures_fail_cleanly(void)
{
    static const char *bad[] = {"", "q", "q(", "q(q", "q(x)", "q(q))", "q((q))", "(q)", "q(v)", "q( q)",
                                "q(q)x", "qq()", "q(\xc3\xa9)",
                                "q(qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq)" /* 33 parameters */};
    vow_promise *p = fulfilled_take(vow_value_int(1));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        track *t = track_new();
        stderr_capture cap;
        capture_stderr_begin(&cap);
        vow_promise *q = vow_then_call(p, bad[i], (vow_fnptr)must_not_run, t, track_destroy);
        char *text = capture_stderr_end(&cap);
        CHECK_NULL(q);
        CHECK_EQ_INT(track_destroyed(t), 1); /* before the call returned */
        CHECK_EQ_INT(count_lines_containing(text, "vow_then_call"), 1);
        CHECK_EQ_INT(count_lines_containing(text, "signature"), 1);
        free(text);
    }
    /* Too long: 300 characters. */
    char *longest = malloc(301);
    REQUIRE(longest != NULL);
    memset(longest, 'q', 300);
    longest[1] = '(';
    longest[299] = ')';
    longest[300] = '\0';
    track *t = track_new();
    stderr_capture cap;
    capture_stderr_begin(&cap);
    CHECK_NULL(vow_then_call_on(vow_dispatcher_inline(), p, longest, (vow_fnptr)must_not_run, t, track_destroy));
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(count_lines_containing(text, "longer than 256 characters"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "vow_then_call_on"), 1);
    free(text);
    free(longest);
    CHECK_EQ_INT(track_destroyed(t), 1);
    vow_promise_release(p);
}

static void
test_null_arguments_fail_cleanly(void)
{
    vow_promise *p = fulfilled_take(vow_value_int(1));
    track *t1 = track_new(), *t2 = track_new(), *t3 = track_new(), *t4 = track_new();
    CHECK_NULL(vow_then_call(NULL, "q(q)", (vow_fnptr)a1, t1, track_destroy));
    CHECK_NULL(vow_then_call(p, NULL, (vow_fnptr)a1, t2, track_destroy));
    CHECK_NULL(vow_then_call(p, "q(q)", NULL, t3, track_destroy));
    CHECK_NULL(vow_then_call_on(NULL, p, "q(q)", (vow_fnptr)a1, t4, track_destroy));
    CHECK_EQ_INT(track_destroyed(t1), 1);
    CHECK_EQ_INT(track_destroyed(t2), 1);
    CHECK_EQ_INT(track_destroyed(t3), 1);
    CHECK_EQ_INT(track_destroyed(t4), 1);
    /* NULL destroy is fine too. */
    CHECK_NULL(vow_then_call(NULL, "q(q)", (vow_fnptr)a1, NULL, NULL));
    /* A handle of the wrong kind: a value passed as the promise. */
    vow_value *not_a_promise = vow_value_int(3);
    track *t5 = track_new();
    stderr_capture cap;
    capture_stderr_begin(&cap);
    CHECK_NULL(vow_then_call((vow_promise *)not_a_promise, "q(q)", (vow_fnptr)a1, t5, track_destroy));
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(count_lines_containing(text, "vow_then_call"), 1);
    free(text);
    CHECK_EQ_INT(track_destroyed(t5), 1);
    vow_value_release(not_a_promise);
    vow_promise_release(p);
}

static void
test_destroy_once_on_every_path(void)
{
    /* Ran: destroy after the call. */
    track *ran = track_new();
    vow_value *v = NULL;
    CHECK_EQ_INT(call_with(vow_value_int(2), "q(q)", (vow_fnptr)ret_int64, ran, &v, NULL), VOW_FULFILLED);
    vow_value_release(v);
    CHECK_DESTROYED_ONCE(ran);
    CHECK_EQ_INT(track_calls(ran), 1);

    /* Derived promise cancelled before the source fulfils: fn never runs, destroy does. */
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *cancelled = track_new();
    vow_promise *q = vow_then_call(p, "v()", (vow_fnptr)must_not_run, cancelled, track_destroy);
    REQUIRE(q != NULL);
    vow_cancel(q);
    CHECK_DESTROYED_ONCE(cancelled);
    vow_value *one = vow_value_list(NULL, 0);
    vow_resolver_fulfill(r, one);
    vow_value_release(one);
    flush_default();
    CHECK_EQ_INT(track_calls(cancelled), 0);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(q, 0, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_promise_release(q);
    vow_promise_release(p);
    vow_resolver_release(r);

    /* Source released unsettled (its resolver dropped): BROKEN passes through. */
    p = vow_promise_pending(&r);
    track *broken = track_new();
    q = vow_then_call(p, "v()", (vow_fnptr)must_not_run, broken, track_destroy);
    REQUIRE(q != NULL);
    vow_promise_release(p);
    vow_resolver_release(r);
    CHECK_EQ_INT(wait_promise(q, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_BROKEN);
    vow_error_release(e);
    CHECK_DESTROYED_ONCE(broken);
    vow_promise_release(q);
}

static void
test_runs_on_the_given_dispatcher(void)
{
    host_queue *hq = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, hq, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_promise *p = fulfilled_take(vow_value_int(4));
    track *t = track_new();
    vow_promise *q = vow_then_call_on(d, p, "q(q)", (vow_fnptr)ret_int64, t, track_destroy);
    REQUIRE(q != NULL);
    /* Nothing runs until the host drains its loop, and then on this thread. */
    sleep_seconds(0.01);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(host_run_until(hq, q, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(atomic_load(&t->on_main), 1);
    vow_value *v = vow_promise_value(q);
    int64_t n = 0;
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, 8);
    vow_value_release(v);
    vow_promise_release(q);
    vow_promise_release(p);
    vow_dispatcher_release(d);
    host_drain(hq);
    CHECK_DESTROYED_ONCE(t);
    CHECK_EQ_INT(atomic_load(&hq->destroyed), 1);
    host_queue_free(hq);
}

static void
test_never_inline_on_the_default_dispatcher(void)
{
    vow_promise *p = fulfilled_take(vow_value_int(1));
    track *t = track_new();
    vow_promise *q = vow_then_call(p, "q(q)", (vow_fnptr)ret_int64, t, track_destroy);
    REQUIRE(q != NULL);
    CHECK_EQ_INT(wait_promise(q, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(atomic_load(&t->on_main), 0);
    vow_promise_release(q);
    vow_promise_release(p);
}

static void
test_chain_of_calls(void)
{
    /* then_call feeding then_call: 1 -> 2 -> 4 -> ... -> 2^20. */
    vow_promise *p = fulfilled_take(vow_value_int(1));
    for (int i = 0; i < 20; i++) {
        vow_promise *next = vow_then_call(p, "q(q)", (vow_fnptr)ret_int64, track_new(), track_destroy);
        vow_promise_release(p);
        REQUIRE(next != NULL);
        p = next;
    }
    vow_value *v = NULL;
    CHECK_EQ_INT(wait_promise(p, &v, NULL), VOW_FULFILLED);
    int64_t n = 0;
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, 1 << 20);
    vow_value_release(v);
    vow_promise_release(p);
}

TEST_MAIN_BEGIN("ffi_then_call")
    RUN_TEST(test_every_return_type);
    RUN_TEST(test_value_parameter_and_return_keep_identity);
    RUN_TEST(test_every_parameter_type);
    RUN_TEST(test_int_widens_to_double_and_float);
    RUN_TEST(test_null_for_pointer_and_string);
    RUN_TEST(test_arities_0_to_12);
    RUN_TEST(test_thirty_two_parameters);
    RUN_TEST(test_context_is_the_last_argument);
    RUN_TEST(test_single_value_is_a_list_of_one);
    RUN_TEST(test_null_value_and_no_parameters);
    RUN_TEST(test_utf8_strings_round_trip);
    RUN_TEST(test_count_mismatch);
    RUN_TEST(test_kind_mismatch);
    RUN_TEST(test_rejection_passes_through);
    RUN_TEST(test_malformed_signatures_fail_cleanly);
    RUN_TEST(test_null_arguments_fail_cleanly);
    RUN_TEST(test_destroy_once_on_every_path);
    RUN_TEST(test_runs_on_the_given_dispatcher);
    RUN_TEST(test_never_inline_on_the_default_dispatcher);
    RUN_TEST(test_chain_of_calls);
TEST_MAIN_END
