/* test_values.c: every value constructor and getter, kinds, ownership. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

/* A pointer payload whose destroy counts (and records the thread). */
typedef struct payload {
    atomic_int destroyed;
    pthread_t destroyed_on;
} payload;

static void
payload_destroy(void *p)
{
    payload *pl = p;
    pl->destroyed_on = pthread_self();
    atomic_fetch_add(&pl->destroyed, 1);
}

static void
test_null_value(void)
{
    vow_value *v = vow_value_null();
    REQUIRE(v != NULL);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_NULL);
    bool b = true;
    int64_t i = 7;
    double d = 1.5;
    CHECK_EQ_INT(vow_value_get_bool(v, &b), VOW_ETYPE);
    CHECK_EQ_INT(vow_value_get_int(v, &i), VOW_ETYPE);
    CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_ETYPE);
    CHECK(b == true);
    CHECK_EQ_INT(i, 7);
    CHECK_EQ_DOUBLE(d, 1.5);
    CHECK_NULL(vow_value_get_string(v));
    CHECK_NULL(vow_value_get_pointer(v));
    CHECK_EQ_INT(vow_value_count(v), 0);
    CHECK_NULL(vow_value_at(v, 0));
    CHECK_NULL(vow_value_get_promise(v));
    CHECK_NULL(vow_value_get_error(v));
    vow_value_release(v);
}

static void
test_bool_value(void)
{
    vow_value *t = vow_value_bool(true), *f = vow_value_bool(false);
    REQUIRE(t != NULL && f != NULL);
    CHECK_EQ_INT(vow_value_kind(t), VOW_KIND_BOOL);
    CHECK_EQ_INT(vow_value_kind(f), VOW_KIND_BOOL);
    bool out = false;
    CHECK_EQ_INT(vow_value_get_bool(t, &out), VOW_OK);
    CHECK(out == true);
    CHECK_EQ_INT(vow_value_get_bool(f, &out), VOW_OK);
    CHECK(out == false);
    int64_t i = 42;
    CHECK_EQ_INT(vow_value_get_int(t, &i), VOW_ETYPE);
    CHECK_EQ_INT(i, 42);
    CHECK_EQ_INT(vow_value_get_bool(t, NULL), VOW_EINVAL);
    vow_value_release(t);
    vow_value_release(f);
}

static void
test_int_value(void)
{
    const int64_t samples[] = {0, 1, -1, 42, INT64_MAX, INT64_MIN, (int64_t)1 << 53, ((int64_t)1 << 53) + 1};
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
        vow_value *v = vow_value_int(samples[k]);
        CHECK_NOT_NULL(v);
        if (v == NULL) continue;
        CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_INT);
        int64_t out = 0;
        CHECK_EQ_INT(vow_value_get_int(v, &out), VOW_OK);
        CHECK_EQ_INT(out, samples[k]);
        double d = 0;
        /* An INT widens to double. */
        CHECK_EQ_INT(vow_value_get_double(v, &d), VOW_OK);
        CHECK_EQ_DOUBLE(d, (double)samples[k]);
        bool b = true;
        CHECK_EQ_INT(vow_value_get_bool(v, &b), VOW_ETYPE);
        CHECK(b == true);
        CHECK_NULL(vow_value_get_string(v));
        CHECK_EQ_INT(vow_value_get_int(v, NULL), VOW_EINVAL);
        vow_value_release(v);
    }
}

static void
test_double_value(void)
{
    const double samples[] = {0.0, -0.0, 1.5, -2.25, 1e300, INFINITY, -INFINITY, NAN};
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
        vow_value *v = vow_value_double(samples[k]);
        CHECK_NOT_NULL(v);
        if (v == NULL) continue;
        CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_DOUBLE);
        double out = 123;
        CHECK_EQ_INT(vow_value_get_double(v, &out), VOW_OK);
        CHECK_EQ_DOUBLE(out, samples[k]);
        /* A DOUBLE does not narrow to INT. */
        int64_t i = 99;
        CHECK_EQ_INT(vow_value_get_int(v, &i), VOW_ETYPE);
        CHECK_EQ_INT(i, 99);
        CHECK_EQ_INT(vow_value_get_double(v, NULL), VOW_EINVAL);
        vow_value_release(v);
    }
    /* -0.0 keeps its sign. */
    vow_value *nz = vow_value_double(-0.0);
    double out = 0;
    CHECK_EQ_INT(vow_value_get_double(nz, &out), VOW_OK);
    CHECK(signbit(out));
    vow_value_release(nz);
}

static void
test_string_value_copies(void)
{
    char buf[32];
    strcpy(buf, "hello, vow");
    vow_value *v = vow_value_string(buf);
    REQUIRE(v != NULL);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_STRING);
    /* Changing the caller's buffer does not change the value. */
    strcpy(buf, "XXXXXXXXXX");
    const char *s = vow_value_get_string(v);
    CHECK_EQ_STR(s, "hello, vow");
    CHECK(s != buf);
    /* Borrowed and stable: the same pointer while v lives. */
    CHECK_EQ_PTR(vow_value_get_string(v), s);
    int64_t i = 5;
    CHECK_EQ_INT(vow_value_get_int(v, &i), VOW_ETYPE);
    CHECK_EQ_INT(i, 5);
    vow_value_release(v);

    vow_value *empty = vow_value_string("");
    REQUIRE(empty != NULL);
    CHECK_EQ_STR(vow_value_get_string(empty), "");
    vow_value_release(empty);

    vow_value *utf8 = vow_value_string("gr\xc3\xbc\xc3\x9f \xe2\x82\xac");
    CHECK_EQ_STR(vow_value_get_string(utf8), "gr\xc3\xbc\xc3\x9f \xe2\x82\xac");
    vow_value_release(utf8);

    /* Invalid UTF-8 becomes U+FFFD (EF BF BD). */
    vow_value *bad = vow_value_string("a\xff" "b");
    REQUIRE(bad != NULL);
    CHECK_EQ_STR(vow_value_get_string(bad), "a\xef\xbf\xbd" "b");
    vow_value_release(bad);

    CHECK_NULL(vow_value_string(NULL));
}

static void
test_bytes_value(void)
{
    unsigned char raw[6] = {0, 1, 2, 0, 255, 7};
    vow_value *v = vow_value_bytes(raw, sizeof raw);
    REQUIRE(v != NULL);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_BYTES);
    raw[1] = 100; /* the value holds a copy */
    size_t n = 0;
    const unsigned char *b = vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 6);
    REQUIRE(b != NULL);
    CHECK(b != raw);
    CHECK_EQ_INT(b[0], 0);
    CHECK_EQ_INT(b[1], 1);
    CHECK_EQ_INT(b[3], 0);
    CHECK_EQ_INT(b[4], 255);
    CHECK_EQ_INT(b[5], 7);
    /* n may be NULL. */
    CHECK_EQ_PTR(vow_value_get_bytes(v, NULL), b);
    CHECK_NULL(vow_value_get_string(v));
    vow_value_release(v);

    vow_value *empty = vow_value_bytes(NULL, 0);
    REQUIRE(empty != NULL);
    CHECK_EQ_INT(vow_value_kind(empty), VOW_KIND_BYTES);
    n = 99;
    (void)vow_value_get_bytes(empty, &n);
    CHECK_EQ_INT(n, 0);
    vow_value_release(empty);

    CHECK_NULL(vow_value_bytes(NULL, 3));

    /* Not bytes: NULL and *n = 0. */
    vow_value *i = vow_value_int(1);
    n = 77;
    CHECK_NULL(vow_value_get_bytes(i, &n));
    CHECK_EQ_INT(n, 0);
    vow_value_release(i);
    n = 77;
    CHECK_NULL(vow_value_get_bytes(NULL, &n));
    CHECK_EQ_INT(n, 0);
}

static void
test_pointer_value_destroy_once(void)
{
    payload pl = {0};
    vow_value *v = vow_value_pointer(&pl, payload_destroy);
    REQUIRE(v != NULL);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_POINTER);
    CHECK_EQ_PTR(vow_value_get_pointer(v), &pl);
    vow_value *again = vow_value_retain(v);
    CHECK_EQ_PTR(again, v);
    vow_value_release(v);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    CHECK_EQ_PTR(vow_value_get_pointer(again), &pl);
    vow_value_release(again);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);

    /* A NULL pointer and no destroy are fine. */
    vow_value *np = vow_value_pointer(NULL, NULL);
    REQUIRE(np != NULL);
    CHECK_EQ_INT(vow_value_kind(np), VOW_KIND_POINTER);
    CHECK_NULL(vow_value_get_pointer(np));
    vow_value_release(np);

    /* Not a pointer: NULL. */
    vow_value *s = vow_value_string("x");
    CHECK_NULL(vow_value_get_pointer(s));
    vow_value_release(s);
}

static void *
release_on_thread(void *v)
{
    vow_value_release(v);
    return NULL;
}

static void
test_pointer_destroy_on_releasing_thread(void)
{
    payload pl = {0};
    vow_value *v = vow_value_pointer(&pl, payload_destroy);
    REQUIRE(v != NULL);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, release_on_thread, v) == 0);
    pthread_join(t, NULL);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);
    CHECK(pthread_equal(pl.destroyed_on, t));
}

static void
test_list_value(void)
{
    payload pl = {0};
    vow_value *a = vow_value_int(1);
    vow_value *b = vow_value_string("two");
    vow_value *c = vow_value_pointer(&pl, payload_destroy);
    const vow_value *items[3] = {a, b, c};
    vow_value *list = vow_value_list(items, 3);
    REQUIRE(list != NULL);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 3);
    /* The list retains its items and gives back the same handles. */
    vow_value_release(a);
    vow_value_release(b);
    vow_value_release(c);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    CHECK_EQ_PTR(vow_value_at(list, 0), a);
    CHECK_EQ_PTR(vow_value_at(list, 1), b);
    CHECK_EQ_PTR(vow_value_at(list, 2), c);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 0), &i), VOW_OK);
    CHECK_EQ_INT(i, 1);
    CHECK_EQ_STR(vow_value_get_string(vow_value_at(list, 1)), "two");
    CHECK_NULL(vow_value_at(list, 3));
    CHECK_NULL(vow_value_at(list, (size_t)-1));
    /* Borrowed items stay valid while the list lives; retaining keeps one longer. */
    vow_value *kept = vow_value_retain(vow_value_at(list, 2));
    CHECK_EQ_PTR(kept, c);
    vow_value_release(list);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    vow_value_release(kept);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);

    /* Nested lists and the empty list. */
    vow_value *empty = vow_value_list(NULL, 0);
    REQUIRE(empty != NULL);
    CHECK_EQ_INT(vow_value_kind(empty), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(empty), 0);
    CHECK_NULL(vow_value_at(empty, 0));
    const vow_value *outer_items[2] = {empty, empty};
    vow_value *outer = vow_value_list(outer_items, 2);
    REQUIRE(outer != NULL);
    CHECK_EQ_PTR(vow_value_at(outer, 1), empty);
    vow_value_release(empty);
    CHECK_EQ_INT(vow_value_count(vow_value_at(outer, 0)), 0);
    vow_value_release(outer);

    /* A NULL item, or NULL items with n > 0, returns NULL. */
    vow_value *x = vow_value_int(5);
    const vow_value *with_null[2] = {x, NULL};
    CHECK_NULL(vow_value_list(with_null, 2));
    CHECK_NULL(vow_value_list(NULL, 2));
    vow_value_release(x);

    /* Not a list: count 0, at NULL. */
    vow_value *s = vow_value_string("abc");
    CHECK_EQ_INT(vow_value_count(s), 0);
    CHECK_NULL(vow_value_at(s, 0));
    vow_value_release(s);
}

/* A list that holds the last reference to its items frees them when it goes: a list of
   plain items (released in place) and a list that holds a list (released through the
   library's loop for nested values) alike, each destroy once, on the releasing thread. */
static void
test_list_frees_its_items(void)
{
    payload first = {0}, second = {0}, inner_payload = {0};
    vow_value *p1 = vow_value_pointer(&first, payload_destroy);
    vow_value *n = vow_value_int(3);
    vow_value *s = vow_value_string("three");
    vow_value *p2 = vow_value_pointer(&second, payload_destroy);
    const vow_value *flat_items[4] = {p1, n, s, p2};
    vow_value *flat = vow_value_list(flat_items, 4);
    REQUIRE(flat != NULL);
    vow_value_release(p1);
    vow_value_release(n);
    vow_value_release(s);
    vow_value_release(p2);
    CHECK_EQ_INT(atomic_load(&first.destroyed), 0);
    vow_value_release(flat);
    CHECK_EQ_INT(atomic_load(&first.destroyed), 1);
    CHECK_EQ_INT(atomic_load(&second.destroyed), 1);
    CHECK(pthread_equal(first.destroyed_on, pthread_self()));

    vow_value *p3 = vow_value_pointer(&inner_payload, payload_destroy);
    const vow_value *inner_items[1] = {p3};
    vow_value *inner = vow_value_list(inner_items, 1);
    vow_value_release(p3);
    vow_value *n2 = vow_value_int(4);
    const vow_value *outer_items[2] = {n2, inner};
    vow_value *outer = vow_value_list(outer_items, 2);
    vow_value_release(n2);
    vow_value_release(inner);
    REQUIRE(outer != NULL);
    CHECK_EQ_INT(vow_value_kind(vow_value_at(outer, 1)), VOW_KIND_LIST);
    CHECK_EQ_INT(atomic_load(&inner_payload.destroyed), 0);
    vow_value_release(outer);
    CHECK_EQ_INT(atomic_load(&inner_payload.destroyed), 1);
    CHECK(pthread_equal(inner_payload.destroyed_on, pthread_self()));
}

static void
test_promise_value(void)
{
    vow_value *inner = vow_value_int(9);
    vow_promise *p = vow_promise_fulfilled(inner);
    REQUIRE(p != NULL);
    vow_value *pv = vow_value_promise(p);
    REQUIRE(pv != NULL);
    CHECK_EQ_INT(vow_value_kind(pv), VOW_KIND_PROMISE);
    CHECK_EQ_PTR(vow_value_get_promise(pv), p);
    /* The value retains the promise. */
    vow_promise_release(p);
    vow_promise *borrowed = vow_value_get_promise(pv);
    CHECK_EQ_INT(vow_promise_state(borrowed), VOW_FULFILLED);
    vow_value *got = vow_promise_value(borrowed);
    CHECK_EQ_PTR(got, inner);
    vow_value_release(got);
    vow_value_release(pv);
    vow_value_release(inner);
    CHECK_NULL(vow_value_promise(NULL));
    vow_value *i = vow_value_int(1);
    CHECK_NULL(vow_value_get_promise(i));
    vow_value_release(i);
}

static void
test_error_value(void)
{
    vow_error *e = vow_error_new("test", 3, "three");
    REQUIRE(e != NULL);
    vow_value *ev = vow_value_error(e);
    REQUIRE(ev != NULL);
    CHECK_EQ_INT(vow_value_kind(ev), VOW_KIND_ERROR);
    vow_error_release(e);
    const vow_error *back = vow_value_get_error(ev);
    CHECK_EQ_PTR(back, e);
    CHECK_EQ_STR(vow_error_domain(back), "test");
    CHECK_EQ_INT(vow_error_code(back), 3);
    vow_value_release(ev);
    CHECK_NULL(vow_value_error(NULL));
    vow_value *i = vow_value_int(1);
    CHECK_NULL(vow_value_get_error(i));
    vow_value_release(i);
}

static int
never_get_then(void *object, void **method, vow_error **error)
{
    (void)object;
    (void)method;
    (void)error;
    return VOW_THEN_NONE;
}

static int
never_call_then(void *object, void *method, vow_resolver *resolver, vow_error **error)
{
    (void)object;
    (void)method;
    (void)resolver;
    (void)error;
    return VOW_OK;
}

static const vow_thenable_class plain_class = {never_get_then, never_call_then, NULL};
static const vow_thenable_class no_get_then = {NULL, never_call_then, NULL};
static const vow_thenable_class no_call_then = {never_get_then, NULL, NULL};

static void
test_thenable_value(void)
{
    payload pl = {0};
    vow_value *t = vow_value_thenable(&plain_class, &pl, payload_destroy);
    REQUIRE(t != NULL);
    CHECK_EQ_INT(vow_value_kind(t), VOW_KIND_THENABLE);
    const vow_thenable_class *cls = NULL;
    CHECK_EQ_PTR(vow_value_get_thenable(t, &cls), &pl);
    CHECK_EQ_PTR(cls, &plain_class);
    CHECK_EQ_PTR(vow_value_get_thenable(t, NULL), &pl);
    vow_value *t2 = vow_value_retain(t);
    vow_value_release(t);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    vow_value_release(t2);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);

    /* Failing constructions run destroy before returning. */
    payload a = {0}, b = {0}, c = {0};
    CHECK_NULL(vow_value_thenable(NULL, &a, payload_destroy));
    CHECK_EQ_INT(atomic_load(&a.destroyed), 1);
    CHECK_NULL(vow_value_thenable(&no_get_then, &b, payload_destroy));
    CHECK_EQ_INT(atomic_load(&b.destroyed), 1);
    CHECK_NULL(vow_value_thenable(&no_call_then, &c, payload_destroy));
    CHECK_EQ_INT(atomic_load(&c.destroyed), 1);

    /* Not a thenable: NULL, and *cls_out = NULL. */
    vow_value *i = vow_value_int(1);
    cls = &plain_class;
    CHECK_NULL(vow_value_get_thenable(i, &cls));
    CHECK_NULL(cls);
    vow_value_release(i);
    cls = &plain_class;
    CHECK_NULL(vow_value_get_thenable(NULL, &cls));
    CHECK_NULL(cls);
}

static void
test_retain_returns_argument(void)
{
    vow_value *v = vow_value_string("r");
    REQUIRE(v != NULL);
    const vow_value *cv = v;
    vow_value *r = vow_value_retain(cv);
    CHECK_EQ_PTR(r, v);
    vow_value_release(r);
    CHECK_EQ_STR(vow_value_get_string(v), "r");
    vow_value_release(v);
    CHECK_NULL(vow_value_retain(NULL));
    vow_value_release(NULL);
}

static void
test_null_handles(void)
{
    bool b = true;
    int64_t i = 3;
    double d = 2.5;
    size_t n = 11;
    CHECK_EQ_INT(vow_value_kind(NULL), VOW_KIND_INVALID);
    CHECK_EQ_INT(vow_value_get_bool(NULL, &b), VOW_EINVAL);
    CHECK_EQ_INT(vow_value_get_int(NULL, &i), VOW_EINVAL);
    CHECK_EQ_INT(vow_value_get_double(NULL, &d), VOW_EINVAL);
    CHECK(b == true);
    CHECK_EQ_INT(i, 3);
    CHECK_EQ_DOUBLE(d, 2.5);
    CHECK_NULL(vow_value_get_string(NULL));
    CHECK_NULL(vow_value_get_bytes(NULL, &n));
    CHECK_EQ_INT(n, 0);
    CHECK_NULL(vow_value_get_pointer(NULL));
    CHECK_EQ_INT(vow_value_count(NULL), 0);
    CHECK_NULL(vow_value_at(NULL, 0));
    CHECK_NULL(vow_value_get_promise(NULL));
    CHECK_NULL(vow_value_get_error(NULL));
}

static void
test_many_values_freed(void)
{
    /* Leak check material for valgrind: many values of every kind, all released. */
    payload pl = {0};
    for (int k = 0; k < 200; k++) {
        vow_value *vals[7];
        vals[0] = vow_value_null();
        vals[1] = vow_value_bool(k & 1);
        vals[2] = vow_value_int(k);
        vals[3] = vow_value_double(k * 0.5);
        vals[4] = vow_value_string("abcdefghijklmnopqrstuvwxyz");
        vals[5] = vow_value_bytes("0123456789", 10);
        vals[6] = vow_value_pointer(&pl, payload_destroy);
        vow_value *list = vow_value_list((const vow_value *const *)vals, 7);
        CHECK_NOT_NULL(list);
        for (int j = 0; j < 7; j++) vow_value_release(vals[j]);
        vow_value_release(list);
    }
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 200);
}

TEST_MAIN_BEGIN("test_values")
    RUN_TEST(test_null_value);
    RUN_TEST(test_bool_value);
    RUN_TEST(test_int_value);
    RUN_TEST(test_double_value);
    RUN_TEST(test_string_value_copies);
    RUN_TEST(test_bytes_value);
    RUN_TEST(test_pointer_value_destroy_once);
    RUN_TEST(test_pointer_destroy_on_releasing_thread);
    RUN_TEST(test_list_value);
    RUN_TEST(test_list_frees_its_items);
    RUN_TEST(test_promise_value);
    RUN_TEST(test_error_value);
    RUN_TEST(test_thenable_value);
    RUN_TEST(test_retain_returns_argument);
    RUN_TEST(test_null_handles);
    RUN_TEST(test_many_values_freed);
TEST_MAIN_END
