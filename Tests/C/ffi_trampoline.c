/*
 * ffi_trampoline.c: vow_trampoline_new / _function / _release, from C.
 *
 * A trampoline is a real C function pointer made at run time; its first call fulfils a
 * promise with a LIST of the arguments (strings copied, values retained, NULL s / V as the
 * NULL value), later calls do nothing, and releasing it before any call rejects the
 * promise with VOW_ERROR_BROKEN. Calls come from the main thread, from another thread,
 * and from several threads at once; bad signatures fail cleanly.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

#include <sched.h>

typedef void (*every_fn)(bool, int32_t, int64_t, double, float, const char *, void *, const vow_value *);

/* The kind of item i of the LIST in p's value (p fulfilled), or VOW_KIND_INVALID. */
static vow_kind
item_kind(const vow_value *list, size_t i)
{
    return vow_value_kind(vow_value_at(list, i));
}

static void
test_every_parameter_type(void)
{
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v(biqdfspV)", &p);
    REQUIRE(t != NULL);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    every_fn fn = (every_fn)vow_trampoline_function(t);
    REQUIRE(fn != NULL);

    char text[] = "héllo ✓";
    static int target;
    vow_value *carried = vow_value_string("carried");
    fn(true, -7, INT64_MAX, 0.5, 1.5f, text, &target, carried);
    /* Fulfilled before the call returned; strings were copied, the value retained. */
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    memset(text, 'x', sizeof text - 1);
    vow_value_release(carried);

    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(p, &list, NULL), VOW_FULFILLED);
    REQUIRE(list != NULL);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 8);
    bool b = false;
    int64_t n = 0;
    double d = 0;
    CHECK_EQ_INT(vow_value_get_bool(vow_value_at(list, 0), &b), VOW_OK);
    CHECK(b);
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 1), &n), VOW_OK);
    CHECK_EQ_INT(n, -7);
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 2), &n), VOW_OK);
    CHECK_EQ_INT(n, INT64_MAX);
    CHECK_EQ_INT(item_kind(list, 3), VOW_KIND_DOUBLE);
    CHECK_EQ_INT(vow_value_get_double(vow_value_at(list, 3), &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 0.5);
    CHECK_EQ_INT(item_kind(list, 4), VOW_KIND_DOUBLE);
    CHECK_EQ_INT(vow_value_get_double(vow_value_at(list, 4), &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 1.5);
    CHECK_EQ_STR(vow_value_get_string(vow_value_at(list, 5)), "héllo ✓");
    CHECK_EQ_INT(item_kind(list, 6), VOW_KIND_POINTER);
    CHECK_EQ_PTR(vow_value_get_pointer(vow_value_at(list, 6)), &target);
    /* The V argument is the same handle, kept alive by the list after the caller let go. */
    CHECK_EQ_PTR(vow_value_at(list, 7), carried);
    CHECK_EQ_STR(vow_value_get_string(vow_value_at(list, 7)), "carried");
    vow_value_release(list);
    vow_trampoline_release(t);
    /* Released after its call: the promise stays fulfilled. */
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_promise_release(p);
}

static void
test_null_string_and_value_give_null(void)
{
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v(sVp)", &p);
    REQUIRE(t != NULL);
    void (*fn)(const char *, const vow_value *, void *) =
        (void (*)(const char *, const vow_value *, void *))vow_trampoline_function(t);
    fn(NULL, NULL, NULL);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(p, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), 3);
    CHECK_EQ_INT(item_kind(list, 0), VOW_KIND_NULL);
    CHECK_EQ_INT(item_kind(list, 1), VOW_KIND_NULL);
    CHECK_EQ_INT(item_kind(list, 2), VOW_KIND_POINTER);
    CHECK_NULL(vow_value_get_pointer(vow_value_at(list, 2)));
    vow_value_release(list);
    vow_trampoline_release(t);
    vow_promise_release(p);
}

static void
test_no_parameters(void)
{
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v()", &p);
    REQUIRE(t != NULL);
    vow_trampoline_function(t)();
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(p, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 0);
    vow_value_release(list);
    vow_trampoline_release(t);
    vow_promise_release(p);
}

static void
test_second_call_ignored(void)
{
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v(i)", &p);
    REQUIRE(t != NULL);
    void (*fn)(int32_t) = (void (*)(int32_t))vow_trampoline_function(t);
    fn(1);
    fn(2);
    fn(3);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(p, &list, NULL), VOW_FULFILLED);
    int64_t n = 0;
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 0), &n), VOW_OK);
    CHECK_EQ_INT(n, 1);
    vow_value_release(list);
    vow_trampoline_release(t);
    vow_promise_release(p);
}

static void
test_released_unused_is_broken(void)
{
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v(q)", &p);
    REQUIRE(t != NULL);
    vow_trampoline_release(t);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_STR(vow_error_domain(e), "vow");
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_BROKEN);
    vow_error_release(e);
    vow_promise_release(p);
}

static void
test_promise_released_first(void)
{
    /* The caller may drop the promise before calling: the call still works. */
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v(d)", &p);
    REQUIRE(t != NULL);
    vow_promise_release(p);
    ((void (*)(double))vow_trampoline_function(t))(1.0);
    vow_trampoline_release(t);
}

struct call_args {
    void (*fn)(int64_t, const char *);
    int64_t value;
    atomic_int *ready;
    atomic_int *go;
};

static void *
call_from_thread(void *raw)
{
    struct call_args *args = raw;
    atomic_fetch_add(args->ready, 1);
    while (!atomic_load(args->go)) sched_yield();
    char text[32];
    snprintf(text, sizeof text, "thread %lld", (long long)args->value);
    for (int i = 0; i < 100; i++) args->fn(args->value, text);
    return NULL;
}

static void
test_called_from_another_thread(void)
{
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v(qs)", &p);
    REQUIRE(t != NULL);
    atomic_int ready = 0, go = 1;
    struct call_args args = {(void (*)(int64_t, const char *))vow_trampoline_function(t), 99, &ready, &go};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, call_from_thread, &args) == 0);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(p, &list, NULL), VOW_FULFILLED);
    pthread_join(thread, NULL);
    int64_t n = 0;
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 0), &n), VOW_OK);
    CHECK_EQ_INT(n, 99);
    CHECK_EQ_STR(vow_value_get_string(vow_value_at(list, 1)), "thread 99");
    vow_value_release(list);
    vow_trampoline_release(t);
    vow_promise_release(p);
}

static void
test_racing_threads_first_call_wins(void)
{
    enum { THREADS = 4 };
    int rounds = ts_small() ? 5 : 50;
    for (int round = 0; round < rounds; round++) {
        vow_promise *p = NULL;
        vow_trampoline *t = vow_trampoline_new("v(qs)", &p);
        REQUIRE(t != NULL);
        atomic_int ready = 0, go = 0;
        struct call_args args[THREADS];
        pthread_t threads[THREADS];
        for (int i = 0; i < THREADS; i++) {
            args[i] = (struct call_args){(void (*)(int64_t, const char *))vow_trampoline_function(t), i, &ready,
                                         &go};
            REQUIRE(pthread_create(&threads[i], NULL, call_from_thread, &args[i]) == 0);
        }
        wait_counter(&ready, THREADS, ts_wait_seconds());
        atomic_store(&go, 1);
        for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
        vow_value *list = NULL;
        CHECK_EQ_INT(wait_promise(p, &list, NULL), VOW_FULFILLED);
        /* One call's arguments, whole: the number and the string agree. */
        int64_t n = -1;
        CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 0), &n), VOW_OK);
        CHECK(n >= 0 && n < THREADS);
        char expected[32];
        snprintf(expected, sizeof expected, "thread %lld", (long long)n);
        CHECK_EQ_STR(vow_value_get_string(vow_value_at(list, 1)), expected);
        vow_value_release(list);
        vow_trampoline_release(t);
        vow_promise_release(p);
    }
}

/* A C API whose callback takes no context: it stores the pointer and calls it later. */
static void (*legacy_callback)(int32_t status, const char *message);
static void legacy_api_start(void (*callback)(int32_t, const char *)) { legacy_callback = callback; }
static void legacy_api_finish(void) { legacy_callback(200, "done"); }

static void
test_feeds_a_callback_api_without_context(void)
{
    vow_promise *p = NULL;
    vow_trampoline *t = vow_trampoline_new("v(is)", &p);
    REQUIRE(t != NULL);
    legacy_api_start((void (*)(int32_t, const char *))vow_trampoline_function(t));
    legacy_api_finish();
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(p, &list, NULL), VOW_FULFILLED);
    int64_t status = 0;
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 0), &status), VOW_OK);
    CHECK_EQ_INT(status, 200);
    CHECK_EQ_STR(vow_value_get_string(vow_value_at(list, 1)), "done");
    vow_value_release(list);
    vow_trampoline_release(t);
    vow_promise_release(p);
}

static void
test_bad_signatures_fail_cleanly(void)
{
    static const char *bad[] = {"q()", "b(b)", "V(V)", "v(", "v(v)", "v(x)", "", "v(q))", "v (q)"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        vow_promise *p = (vow_promise *)&p; /* not NULL: the call must set it */
        stderr_capture cap;
        capture_stderr_begin(&cap);
        vow_trampoline *t = vow_trampoline_new(bad[i], &p);
        char *text = capture_stderr_end(&cap);
        CHECK_NULL(t);
        CHECK_NULL(p);
        CHECK_EQ_INT(count_lines_containing(text, "vow_trampoline_new"), 1);
        free(text);
    }
    /* The message for a non-void return says so. */
    vow_promise *p = NULL;
    stderr_capture cap;
    capture_stderr_begin(&cap);
    CHECK_NULL(vow_trampoline_new("q(q)", &p));
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(count_lines_containing(text, "'v'"), 1);
    free(text);
    /* NULL arguments. */
    p = (vow_promise *)&p;
    CHECK_NULL(vow_trampoline_new(NULL, &p));
    CHECK_NULL(p);
    CHECK_NULL(vow_trampoline_new("v()", NULL));
    CHECK_NULL(vow_trampoline_function(NULL));
    vow_trampoline_release(NULL);
}

static void
test_wrong_handle_kind(void)
{
    vow_value *v = vow_value_int(1);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    CHECK_NULL(vow_trampoline_function((const vow_trampoline *)v));
    vow_trampoline_release((vow_trampoline *)v); /* refused: the value survives */
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(count_lines_containing(text, "expected a vow_trampoline"), 2);
    free(text);
    int64_t n = 0;
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, 1);
    vow_value_release(v);
}

static void
test_many_trampolines(void)
{
    /* Closures are allocated and freed: many in a row, each called or not. */
    int count = ts_small() ? 200 : 5000;
    int fulfilled = 0, broken = 0;
    for (int i = 0; i < count; i++) {
        vow_promise *p = NULL;
        vow_trampoline *t = vow_trampoline_new("v(q)", &p);
        REQUIRE(t != NULL);
        if (i % 2 == 0) ((void (*)(int64_t))vow_trampoline_function(t))(i);
        vow_trampoline_release(t);
        vow_error *e = NULL;
        vow_state s = vow_wait(p, 0, NULL, &e);
        if (s == VOW_FULFILLED) fulfilled++;
        if (s == VOW_REJECTED && vow_error_code(e) == VOW_ERROR_BROKEN) broken++;
        vow_error_release(e);
        vow_promise_release(p);
    }
    CHECK_EQ_INT(fulfilled, (count + 1) / 2);
    CHECK_EQ_INT(broken, count / 2);
}

TEST_MAIN_BEGIN("ffi_trampoline")
    RUN_TEST(test_every_parameter_type);
    RUN_TEST(test_null_string_and_value_give_null);
    RUN_TEST(test_no_parameters);
    RUN_TEST(test_second_call_ignored);
    RUN_TEST(test_released_unused_is_broken);
    RUN_TEST(test_promise_released_first);
    RUN_TEST(test_called_from_another_thread);
    RUN_TEST(test_racing_threads_first_call_wins);
    RUN_TEST(test_feeds_a_callback_api_without_context);
    RUN_TEST(test_bad_signatures_fail_cleanly);
    RUN_TEST(test_wrong_handle_kind);
    RUN_TEST(test_many_trampolines);
TEST_MAIN_END
