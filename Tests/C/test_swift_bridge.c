/*
 * test_swift_bridge.c: one chain across both languages, through the Swift
 * stage library (Tests/C/swift-stage/Stage.swift, linked as libvowstage.so
 * against the same libvow.so).
 */
#include "test_support.h"

/* The stage's exports (declared here; the stage is Swift, it has no header). */
extern vow_promise *vow_stage_double_later(vow_promise *p);
extern vow_promise *vow_stage_start(int64_t x);
extern int64_t vow_stage_finish(vow_promise *p);
extern vow_promise *vow_stage_map_on_default(vow_promise *p);
extern vow_promise *vow_stage_reject_swift_error(void);
extern int vow_stage_is_unlucky(vow_promise *p);
extern vow_promise *vow_stage_reject_cancellation(void);
extern int vow_stage_is_cancellation(vow_promise *p);
extern vow_promise *vow_stage_tuple(void);
extern int64_t vow_stage_sum_pair(vow_promise *p);
extern vow_promise *vow_stage_rethrow(vow_promise *p);
extern vow_promise *vow_stage_swift_string(void);

static void
add_three(void *ctx, const vow_value *value, vow_result *out)
{
    int64_t i = 0;
    track_hit(ctx);
    if (vow_value_get_int(value, &i) != VOW_OK) {
        vow_error *e = vow_error_new("test.bridge", 1, "not an INT");
        vow_result_throw(out, e);
        vow_error_release(e);
        return;
    }
    vow_value *r = vow_value_int(i + 3);
    vow_result_return(out, r);
    vow_value_release(r);
}

static void
record_string(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    const char *s = vow_value_get_string(value);
    t->data = s ? strdup(s) : NULL;
    track_hit(t);
    /* Continue in C with an INT: the length. */
    vow_value *len = vow_value_int(s ? (int64_t)strlen(s) : -1);
    vow_result_return(out, len);
    vow_value_release(len);
}

static void
test_c_swift_c(void)
{
    /* C starts (pending, fulfilled later with 20) -> C +3 -> Swift *2 -> C +3, callback ends it. */
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    track *t1 = track_new(), *t2 = track_new();
    vow_promise *c1 = vow_then(head, add_three, NULL, t1, track_destroy);
    vow_promise *s = vow_stage_double_later(c1);
    REQUIRE(s != NULL);
    vow_promise *c2 = vow_then(s, add_three, NULL, t2, track_destroy);
    vow_promise_release(c1);
    vow_promise_release(s);
    CHECK_EQ_INT(vow_promise_state(c2), VOW_PENDING);
    vow_value *v = vow_value_int(20);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(c2, &got, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(got, &i), VOW_OK);
    CHECK_EQ_INT(i, (20 + 3) * 2 + 3);
    CHECK_EQ_INT(track_calls(t1), 1);
    CHECK_EQ_INT(track_calls(t2), 1);
    vow_value_release(got);
    vow_promise_release(c2);
    vow_resolver_release(r);
    vow_promise_release(head);
}

static void
test_swift_c_swift(void)
{
    /* Swift starts (41 + 1 -> "n=42") -> C (string length, 4) -> C +3 -> Swift waits (7). */
    vow_promise *s = vow_stage_start(41);
    REQUIRE(s != NULL);
    track *t1 = track_new(), *t2 = track_new();
    vow_promise *c1 = vow_then(s, record_string, NULL, t1, track_destroy);
    vow_promise *c2 = vow_then(c1, add_three, NULL, t2, track_destroy);
    CHECK_EQ_INT(vow_stage_finish(c2), 7);
    CHECK_EQ_STR((const char *)t1->data, "n=42");
    free(t1->data);
    CHECK_EQ_INT(track_calls(t2), 1);
    vow_promise_release(c1);
    vow_promise_release(c2);
    vow_promise_release(s);
    CHECK_EQ_INT(vow_stage_finish(NULL), -2);
}

static void
test_type_error_from_swift(void)
{
    vow_value *v = vow_value_string("not a number");
    vow_promise *p = vow_promise_fulfilled(v);
    vow_promise *s = vow_stage_double_later(p);
    REQUIRE(s != NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(s, NULL, &e), VOW_REJECTED);
    CHECK_EQ_STR(vow_error_domain(e), "vow");
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_TYPE);
    const char *m = vow_error_message(e);
    CHECK(m != NULL && strstr(m, "Int") != NULL && strstr(m, "String") != NULL);
    if (m) printf("    type error message: %s\n", m);
    vow_error_release(e);
    vow_promise_release(s);
    vow_promise_release(p);
    vow_value_release(v);
    /* A NULL handle: the stage returns NULL. */
    CHECK_NULL(vow_stage_double_later(NULL));
}

static void
test_swift_error_identity(void)
{
    vow_promise *s = vow_stage_reject_swift_error();
    REQUIRE(s != NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(s, NULL, &e), VOW_REJECTED);
    CHECK_EQ_STR(vow_error_domain(e), "StageError");
    CHECK_EQ_INT(vow_error_code(e), 7);
    CHECK(!vow_error_is_cancelled(e));
    /* Through C and back to Swift: the same Swift error. */
    vow_promise *through = vow_then(s, NULL, NULL, NULL, NULL);
    CHECK_EQ_INT(vow_stage_is_unlucky(through), 1);
    /* A C error is not that Swift error. */
    vow_promise *c = vow_promise_rejected(e);
    vow_error *other = vow_error_new("StageError", 7, "unlucky");
    vow_promise *fake = vow_promise_rejected(other);
    CHECK_EQ_INT(vow_stage_is_unlucky(fake), 0);
    CHECK_EQ_INT(vow_stage_is_unlucky(c), 1); /* the box carries the Swift error */
    vow_error_release(other);
    vow_error_release(e);
    vow_promise_release(fake);
    vow_promise_release(c);
    vow_promise_release(through);
    vow_promise_release(s);
}

static void
test_cancellation_maps_both_ways(void)
{
    vow_promise *s = vow_stage_reject_cancellation();
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(s, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_promise_release(s);

    vow_error *c = vow_error_cancelled();
    vow_promise *p = vow_promise_rejected(c);
    CHECK_EQ_INT(vow_stage_is_cancellation(p), 1);
    vow_promise_release(p);
    vow_error_release(c);
    CHECK_EQ_INT(vow_register_cancellation("test.bridge.stop", 3), VOW_OK);
    vow_error *reg = vow_error_new("test.bridge.stop", 3, "");
    p = vow_promise_rejected(reg);
    CHECK_EQ_INT(vow_stage_is_cancellation(p), 1);
    vow_promise_release(p);
    vow_error_release(reg);
    vow_error *plain = vow_error_new("test.bridge", 3, "");
    p = vow_promise_rejected(plain);
    CHECK_EQ_INT(vow_stage_is_cancellation(p), 0);
    vow_promise_release(p);
    vow_error_release(plain);
}

static void
test_manifolds(void)
{
    vow_promise *s = vow_stage_tuple();
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(s, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 3);
    int64_t i = 0;
    double d = 0;
    CHECK_EQ_INT(vow_value_get_int(vow_value_at(list, 0), &i), VOW_OK);
    CHECK_EQ_INT(i, 1);
    CHECK_EQ_STR(vow_value_get_string(vow_value_at(list, 1)), "two");
    CHECK_EQ_INT(vow_value_get_double(vow_value_at(list, 2), &d), VOW_OK);
    CHECK_EQ_DOUBLE(d, 3.5);
    vow_value_release(list);
    vow_promise_release(s);

    vow_value *a = vow_value_int(40), *b = vow_value_int(2);
    const vow_value *items[2] = {a, b};
    vow_value *pair = vow_value_list(items, 2);
    vow_promise *p = vow_promise_fulfilled(pair);
    CHECK_EQ_INT(vow_stage_sum_pair(p), 42);
    vow_promise_release(p);
    vow_value_release(pair);
    /* Wrong arity: a type error in Swift. */
    const vow_value *three[3] = {a, b, a};
    vow_value *triple = vow_value_list(three, 3);
    p = vow_promise_fulfilled(triple);
    CHECK_EQ_INT(vow_stage_sum_pair(p), -1);
    vow_promise_release(p);
    vow_value_release(triple);
    vow_value_release(a);
    vow_value_release(b);
}

static void
test_default_dispatcher_is_shared_with_swift(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    vow_dispatcher_release(d);
    vow_value *v = vow_value_int(9);
    vow_promise *p = vow_promise_fulfilled(v);
    /* Swift's .default is now the host loop: nothing happens until this thread runs it. */
    vow_promise *s = vow_stage_map_on_default(p);
    REQUIRE(s != NULL);
    CHECK_EQ_INT(vow_wait(s, 0.05, NULL, NULL), VOW_PENDING);
    CHECK(host_pending(q) > 0);
    CHECK_EQ_INT(host_run_until(q, s, ts_wait_seconds()), VOW_FULFILLED);
    vow_value *got = vow_promise_value(s);
    int64_t i = 0;
    CHECK_EQ_INT(vow_value_get_int(got, &i), VOW_OK);
    CHECK_EQ_INT(i, 10);
    vow_value_release(got);
    vow_promise_release(s);
    vow_promise_release(p);
    vow_value_release(v);
    host_drain(q);
    vow_set_default_dispatcher(NULL);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);

    /* Restored: Swift's .default runs without the host. */
    v = vow_value_int(1);
    p = vow_promise_fulfilled(v);
    s = vow_stage_map_on_default(p);
    CHECK_EQ_INT(wait_promise(s, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(s);
    vow_promise_release(p);
    vow_value_release(v);
}

static void
test_handles_balance(void)
{
    /* Many round trips: every handle the stage hands out is +1 and released here
       (valgrind checks nothing leaks). */
    int wrong = 0;
    for (int k = 0; k < 500; k++) {
        vow_value *v = vow_value_int(k);
        vow_promise *p = vow_promise_fulfilled(v);
        vow_promise *s = vow_stage_double_later(p);
        vow_value *got = NULL;
        vow_wait(s, ts_wait_seconds(), &got, NULL);
        int64_t i = -1;
        if (vow_value_get_int(got, &i) != VOW_OK || i != 2 * k) wrong++;
        vow_value_release(got);
        vow_promise_release(s);
        vow_promise_release(p);
        vow_value_release(v);
    }
    CHECK_EQ_INT(wrong, 0);
}

/* Issue 16, item 6: identity across the boundary, both directions. */
static void
test_swift_value_same_handle_each_read(void)
{
    vow_promise *s = vow_stage_swift_string();
    REQUIRE(s != NULL);
    CHECK_EQ_INT(wait_promise(s, NULL, NULL), VOW_FULFILLED);
    vow_value *a = vow_promise_value(s);
    vow_value *b = vow_promise_value(s);
    CHECK_NOT_NULL(a);
    CHECK_EQ_PTR(a, b);
    CHECK_EQ_STR(vow_value_get_string(a), "made in Swift");
    vow_value *w = NULL;
    CHECK_EQ_INT(vow_wait(s, 0, &w, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(w, a);
    vow_value_release(w);
    vow_value_release(b);
    vow_value_release(a);
    /* A tuple (a LIST in C): the same LIST handle, and the same item handles, each time. */
    vow_promise *t = vow_stage_tuple();
    vow_value *l1 = NULL, *l2 = NULL;
    CHECK_EQ_INT(wait_promise(t, &l1, NULL), VOW_FULFILLED);
    l2 = vow_promise_value(t);
    CHECK_EQ_PTR(l1, l2);
    CHECK_EQ_PTR(vow_value_at(l1, 1), vow_value_at(l2, 1));
    vow_value_release(l1);
    vow_value_release(l2);
    vow_promise_release(t);
    vow_promise_release(s);
}

typedef struct seen_error {
    const vow_error *error; /* compared only, not kept */
    atomic_int calls;
} seen_error;

static void
note_error(void *ctx, const vow_error *error, vow_result *out)
{
    seen_error *seen = ctx;
    seen->error = error;
    atomic_fetch_add(&seen->calls, 1);
    vow_result_return(out, NULL);
}

static void
test_c_error_rethrown_in_swift_same_handle(void)
{
    vow_error *e = vow_error_new("app", 42, "made in C");
    vow_promise *p = vow_promise_rejected(e);
    vow_promise *rethrown = vow_stage_rethrow(p);
    REQUIRE(rethrown != NULL);
    seen_error seen = {NULL, 0};
    vow_promise *next = vow_then(rethrown, NULL, note_error, &seen, NULL);
    CHECK_EQ_INT(wait_promise(next, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(atomic_load(&seen.calls), 1);
    CHECK_EQ_PTR(seen.error, e); /* the same vow_error, not a copy */
    vow_error *read = vow_promise_error(rethrown);
    CHECK_EQ_PTR(read, e);
    vow_error_release(read);
    vow_promise_release(next);
    vow_promise_release(rethrown);
    vow_promise_release(p);
    vow_error_release(e);
}

TEST_MAIN_BEGIN("test_swift_bridge")
    unhandled_counter_install();
    RUN_TEST(test_c_swift_c);
    RUN_TEST(test_swift_c_swift);
    RUN_TEST(test_type_error_from_swift);
    RUN_TEST(test_swift_error_identity);
    RUN_TEST(test_cancellation_maps_both_ways);
    RUN_TEST(test_manifolds);
    RUN_TEST(test_default_dispatcher_is_shared_with_swift);
    RUN_TEST(test_handles_balance);
    RUN_TEST(test_swift_value_same_handle_each_read);
    RUN_TEST(test_c_error_rethrown_in_swift_same_handle);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
