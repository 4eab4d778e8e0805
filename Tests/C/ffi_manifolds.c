/*
 * ffi_manifolds.c: vow_then_call's manifold rule (PromiseKit's, for pointer parameters).
 *
 * A parameter s, p or V whose value is missing (the LIST is shorter, or a single value
 * is a list of one) arrives as NULL; values beyond the last parameter are ignored when
 * every parameter is s, p or V (or there are none); scalars (b, i, q, d, f) keep the
 * strict check: a missing scalar, or an extra value beside a scalar parameter, rejects
 * with VOW_ERROR_TYPE naming the position, and the function is not called.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

/* Runs vow_then_call on a promise fulfilled with value (released here); returns the state. */
static vow_state
call_with(vow_value *value, const char *signature, vow_fnptr fn, track *t, vow_value **value_out,
          vow_error **error_out)
{
    vow_promise *p = vow_promise_fulfilled(value);
    vow_value_release(value);
    vow_promise *q = vow_then_call(p, signature, fn, t, track_destroy);
    vow_promise_release(p);
    if (q == NULL) {
        CHECK(!"vow_then_call returned NULL");
        return VOW_STATE_INVALID;
    }
    vow_state s = wait_promise(q, value_out, error_out);
    vow_promise_release(q);
    return s;
}

static vow_value *
list3(vow_value *a, vow_value *b, vow_value *c)
{
    const vow_value *items[3] = {a, b, c};
    size_t n = c != NULL ? 3 : (b != NULL ? 2 : 1);
    vow_value *list = vow_value_list(items, n);
    vow_value_release(a);
    vow_value_release(b);
    vow_value_release(c);
    return list;
}

static int
is_type_error(const vow_error *e, const char *needle)
{
    return e != NULL && vow_error_code(e) == VOW_ERROR_TYPE && strcmp(vow_error_domain(e), "vow") == 0 &&
           strstr(vow_error_message(e), needle) != NULL;
}

/* Records what arrived: 1 per argument that is non-NULL, as bits (a = 1, b = 2, c = 4). */
static int64_t
three_values(const vow_value *a, const vow_value *b, const vow_value *c, void *ctx)
{
    track_hit(ctx);
    return (a != NULL) | (b != NULL) << 1 | (c != NULL) << 2;
}

static int64_t
string_and_pointer(const char *s, void *p, void *ctx)
{
    track_hit(ctx);
    return (s != NULL && strcmp(s, "x") == 0) | (p != NULL) << 1;
}

static int64_t
first_of(const vow_value *a, void *ctx)
{
    track_hit(ctx);
    int64_t out = -1;
    vow_value_get_int(a, &out);
    return out;
}

static int64_t
scalar_then_value(int64_t q, const vow_value *v, void *ctx)
{
    track_hit(ctx);
    return q * 10 + (v != NULL);
}

static int64_t
two_scalars(int64_t a, int64_t b, void *ctx)
{
    track_hit(ctx);
    return a + b;
}

static int64_t
nothing(void *ctx)
{
    track_hit(ctx);
    return 7;
}

static int64_t
read_int(const vow_value *v)
{
    int64_t out = -100;
    vow_value_get_int(v, &out);
    vow_value_release(v);
    return out;
}

static void
test_missing_pointers_are_null(void)
{
    vow_value *v = NULL;
    /* A manifold of one into (V, V, V): (a, NULL, NULL). */
    track *t = track_new();
    CHECK_EQ_INT(call_with(list3(vow_value_int(1), NULL, NULL), "q(VVV)", (vow_fnptr)three_values, t, &v, NULL),
                 VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 1);
    /* A single value (not a LIST) is a list of one. */
    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_string("one"), "q(VVV)", (vow_fnptr)three_values, t, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 1);
    /* Two of three. */
    t = track_new();
    CHECK_EQ_INT(call_with(list3(vow_value_int(1), vow_value_null(), NULL), "q(VVV)", (vow_fnptr)three_values, t,
                           &v, NULL),
                 VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 3); /* the NULL value is a value (a handle), not a missing one */
    /* s and p missing: NULL pointers. */
    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_string("x"), "q(sp)", (vow_fnptr)string_and_pointer, t, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 1);
    /* An empty LIST: every pointer NULL. */
    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_list(NULL, 0), "q(VVV)", (vow_fnptr)three_values, t, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 0);
    /* A scalar present, the pointer after it missing. */
    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_int(4), "q(qV)", (vow_fnptr)scalar_then_value, t, &v, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 40);
}

static void
test_extra_values_ignored_beside_pointers(void)
{
    vow_value *v = NULL;
    track *t = track_new();
    CHECK_EQ_INT(call_with(list3(vow_value_int(5), vow_value_int(6), vow_value_int(7)), "q(V)", (vow_fnptr)first_of,
                           t, &v, NULL),
                 VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 5);
    t = track_new();
    CHECK_EQ_INT(call_with(list3(vow_value_int(5), vow_value_int(6), NULL), "q()", (vow_fnptr)nothing, t, &v, NULL),
                 VOW_FULFILLED);
    CHECK_EQ_INT(read_int(v), 7);
}

static void
test_scalars_stay_strict(void)
{
    vow_error *e = NULL;
    /* A missing scalar. */
    track *t = track_new();
    CHECK_EQ_INT(call_with(vow_value_int(1), "q(qq)", (vow_fnptr)two_scalars, t, NULL, &e), VOW_REJECTED);
    CHECK(is_type_error(e, "argument 2 missing: q(qq) takes 2 arguments, found 1 value"));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0); /* not called */
    /* A missing scalar after a missing pointer: the scalar is named. */
    t = track_new();
    CHECK_EQ_INT(call_with(vow_value_list(NULL, 0), "q(Vq)", (vow_fnptr)scalar_then_value, t, NULL, &e),
                 VOW_REJECTED);
    CHECK(is_type_error(e, "argument 2 missing"));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0); /* not called */
    /* An extra value beside a scalar parameter. */
    t = track_new();
    CHECK_EQ_INT(call_with(list3(vow_value_int(1), vow_value_int(2), vow_value_int(3)), "q(qq)",
                           (vow_fnptr)two_scalars, t, NULL, &e),
                 VOW_REJECTED);
    CHECK(is_type_error(e, "argument 3 unexpected"));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0); /* not called */
    t = track_new();
    CHECK_EQ_INT(call_with(list3(vow_value_int(1), vow_value_int(2), vow_value_int(3)), "q(qV)",
                           (vow_fnptr)scalar_then_value, t, NULL, &e),
                 VOW_REJECTED);
    CHECK(is_type_error(e, "argument 3 unexpected"));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0); /* not called */
    /* Kinds stay strict too: a NULL value is not a scalar. */
    t = track_new();
    CHECK_EQ_INT(call_with(list3(vow_value_null(), vow_value_int(2), NULL), "q(qq)", (vow_fnptr)two_scalars, t, NULL,
                           &e),
                 VOW_REJECTED);
    CHECK(is_type_error(e, "argument 1: expected an INT for 'q', found NULL"));
    vow_error_release(e);
    CHECK_EQ_INT(track_calls(t), 0); /* not called */
}

TEST_MAIN_BEGIN("ffi_manifolds")
    RUN_TEST(test_missing_pointers_are_null);
    RUN_TEST(test_extra_values_ignored_beside_pointers);
    RUN_TEST(test_scalars_stay_strict);
TEST_MAIN_END
