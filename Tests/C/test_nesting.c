/*
 * test_nesting.c: deeply nested values are freed without recursion (issue 16,
 * item 2), and a promise fulfilled with a value that holds it is rejected
 * with VOW_ERROR_CYCLE instead of leaking (item 5).
 *
 * Depths: a LIST in a LIST and an ERROR whose payload is an ERROR value,
 * 1,000,000 deep; a PROMISE value whose promise is fulfilled with a PROMISE
 * value, 20,000 deep; vow_when and vow_join over the previous level's
 * promise, 300,000 deep. Each structure is built, and its last reference
 * released, on a thread with a 512 KB stack, where a recursive free
 * overflows after a few thousand levels. VOW_TEST_SCALE=small (valgrind):
 * 20,000 deep (5,000 for promises and combinators), still far past what a
 * recursion survives on that stack.
 */
#include "test_support.h"

#define SMALL_STACK (512 * 1024)

static int
depth(int full, int small)
{
    return ts_small() ? small : full;
}

typedef struct stack_call {
    void (*body)(void *);
    void *arg;
} stack_call;

static void *
stack_call_run(void *raw)
{
    stack_call *call = raw;
    call->body(call->arg);
    return NULL;
}

/* Runs body(arg) on a fresh thread with a 512 KB stack and joins it. */
static void
on_small_stack(void (*body)(void *), void *arg)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SMALL_STACK);
    stack_call call = {body, arg};
    pthread_t t;
    int rc = pthread_create(&t, &attr, stack_call_run, &call);
    pthread_attr_destroy(&attr);
    REQUIRE(rc == 0);
    pthread_join(t, NULL);
}

/* A POINTER value at the bottom of each structure: its destroy proves the whole thing was freed. */
typedef struct bottom {
    atomic_int destroyed;
    int n;
    int ok;
} bottom;

static void
bottom_destroy(void *p)
{
    atomic_fetch_add(&((bottom *)p)->destroyed, 1);
}

static void
nested_lists(void *arg)
{
    bottom *b = arg;
    vow_value *v = vow_value_pointer(b, bottom_destroy);
    for (int i = 0; i < b->n; i++) {
        vow_value *items[1] = {v}; /* a plain array: no cast (item 4) */
        vow_value *outer = vow_value_list(items, 1);
        vow_value_release(v);
        if (outer == NULL) return;
        v = outer;
    }
    b->ok = vow_value_kind(v) == VOW_KIND_LIST && vow_value_count(v) == 1;
    vow_value_release(v); /* the last reference: frees all levels */
}

static void
test_nested_lists_free_without_recursion(void)
{
    bottom b = {0, depth(1000000, 20000), 0};
    on_small_stack(nested_lists, &b);
    CHECK(b.ok);
    CHECK_EQ_INT(atomic_load(&b.destroyed), 1);
}

static void
nested_errors(void *arg)
{
    bottom *b = arg;
    vow_value *v = vow_value_pointer(b, bottom_destroy);
    for (int i = 0; i < b->n; i++) {
        vow_error *e = vow_error_with_payload("app", i, "level", v);
        vow_value_release(v);
        if (e == NULL) return;
        v = vow_value_error(e);
        vow_error_release(e);
        if (v == NULL) return;
    }
    b->ok = vow_value_kind(v) == VOW_KIND_ERROR;
    vow_value_release(v);
}

static void
test_nested_errors_free_without_recursion(void)
{
    bottom b = {0, depth(1000000, 20000), 0};
    on_small_stack(nested_errors, &b);
    CHECK(b.ok);
    CHECK_EQ_INT(atomic_load(&b.destroyed), 1);
}

static void
nested_promises(void *arg)
{
    bottom *b = arg;
    vow_value *v = vow_value_pointer(b, bottom_destroy);
    for (int i = 0; i < b->n; i++) {
        vow_resolver *r = NULL;
        vow_promise *p = vow_promise_pending(&r);
        if (p == NULL) return;
        vow_resolver_fulfill(r, v); /* as it is: not adopted */
        vow_resolver_release(r);
        vow_value_release(v);
        v = vow_value_promise(p);
        vow_promise_release(p);
        if (v == NULL) return;
    }
    b->ok = vow_value_kind(v) == VOW_KIND_PROMISE &&
            vow_promise_state(vow_value_get_promise(v)) == VOW_FULFILLED;
    vow_value_release(v);
}

static void
test_nested_promise_values_free_without_recursion(void)
{
    bottom b = {0, depth(20000, 5000), 0};
    on_small_stack(nested_promises, &b);
    CHECK(b.ok);
    CHECK_EQ_INT(atomic_load(&b.destroyed), 1);
}

typedef struct combined {
    bottom b;
    int join;
} combined;

static void
nested_combinators(void *arg)
{
    combined *c = arg;
    vow_value *bottom_value = vow_value_pointer(&c->b, bottom_destroy);
    vow_promise *p = vow_promise_fulfilled(bottom_value);
    vow_value_release(bottom_value);
    for (int i = 0; i < c->b.n && p != NULL; i++) {
        vow_promise *ps[1] = {p};
        vow_promise *next = c->join ? vow_join(ps, 1) : vow_when(ps, 1);
        vow_promise_release(p);
        p = next;
    }
    if (p == NULL) return;
    vow_value *v = NULL;
    c->b.ok = vow_wait(p, ts_wait_seconds() < 120 ? 120 : ts_wait_seconds(), &v, NULL) == VOW_FULFILLED &&
              vow_value_kind(v) == VOW_KIND_LIST;
    vow_promise_release(p);
    vow_value_release(v); /* the last reference to the outermost LIST */
}

static void
test_nested_when_and_join_free_without_recursion(void)
{
    for (int join = 0; join <= 1; join++) {
        combined c = {{0, depth(300000, 5000), 0}, join};
        on_small_stack(nested_combinators, &c);
        CHECK(c.b.ok);
        /* Freed on this or the library's threads: wait briefly for the last level. */
        CHECK(wait_counter(&c.b.destroyed, 1, ts_wait_seconds()));
        CHECK_EQ_INT(atomic_load(&c.b.destroyed), 1);
    }
}

static void
test_wide_and_deep_lists(void)
{
    /* Breadth too: 1,000 lists of 1,000 lists of a shared value, freed in one release. */
    bottom b = {0, 0, 0};
    vow_value *leaf = vow_value_pointer(&b, bottom_destroy);
    int n = ts_small() ? 100 : 1000;
    vow_value **rows = calloc((size_t)n, sizeof *rows);
    vow_value **cells = calloc((size_t)n, sizeof *cells);
    REQUIRE(rows && cells);
    for (int i = 0; i < n; i++) cells[i] = leaf;
    for (int i = 0; i < n; i++) rows[i] = vow_value_list(cells, (size_t)n);
    vow_value *grid = vow_value_list(rows, (size_t)n);
    CHECK_EQ_INT(vow_value_count(grid), n);
    for (int i = 0; i < n; i++) vow_value_release(rows[i]);
    vow_value_release(leaf);
    CHECK_EQ_INT(atomic_load(&b.destroyed), 0);
    vow_value_release(grid);
    CHECK_EQ_INT(atomic_load(&b.destroyed), 1);
    free(rows);
    free(cells);
}

/* ---- item 5: a promise fulfilled with a value that holds it -------------------------- */

static int
is_cycle(const vow_error *e)
{
    return e != NULL && strcmp(vow_error_domain(e), "vow") == 0 && vow_error_code(e) == VOW_ERROR_CYCLE;
}

static void
test_fulfil_with_own_promise_value_is_cycle(void)
{
    bottom b = {0, 0, 0};
    for (int shape = 0; shape < 4; shape++) {
        vow_resolver *r = NULL;
        vow_promise *p = vow_promise_pending(&r);
        vow_value *self = vow_value_promise(p);
        vow_value *marker = vow_value_pointer(&b, bottom_destroy);
        vow_value *x = NULL;
        if (shape == 0) {
            x = vow_value_retain(self); /* directly */
        } else if (shape == 1) {
            vow_value *items[2] = {marker, self}; /* inside a LIST */
            x = vow_value_list(items, 2);
        } else if (shape == 2) {
            vow_value *inner[1] = {self}; /* inside a LIST inside a LIST */
            vow_value *list = vow_value_list(inner, 1);
            vow_value *outer[2] = {list, marker};
            x = vow_value_list(outer, 2);
            vow_value_release(list);
        } else {
            vow_error *e = vow_error_with_payload("app", 1, "holds itself", self); /* an ERROR's payload */
            x = vow_value_error(e);
            vow_error_release(e);
        }
        vow_value_release(self);
        REQUIRE(x != NULL);
        if (shape % 2 == 0) {
            CHECK_EQ_INT(vow_resolver_fulfill(r, x), VOW_OK);
        } else {
            CHECK_EQ_INT(vow_resolver_resolve(r, x), VOW_OK); /* a LIST or ERROR: fulfils as it is */
        }
        CHECK_EQ_INT(vow_resolver_fulfill(r, x), VOW_EALREADY);
        CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
        vow_error *e = vow_promise_error(p);
        CHECK(is_cycle(e));
        vow_error_release(e);
        vow_value_release(x);
        vow_value_release(marker);
        vow_resolver_release(r);
        /* Everything goes: the marker's destroy runs (valgrind sees no leak either). */
        vow_error *seen = NULL;
        CHECK_EQ_INT(vow_wait(p, 0, NULL, &seen), VOW_REJECTED); /* handled: no unhandled line */
        vow_error_release(seen);
        vow_promise_release(p);
        CHECK_EQ_INT(atomic_load(&b.destroyed), shape + 1);
    }
}

static void
test_cycle_through_another_promise(void)
{
    /* q is fulfilled with a value holding p; fulfilling p with a value holding q closes a cycle. */
    vow_resolver *rp = NULL, *rq = NULL;
    vow_promise *p = vow_promise_pending(&rp);
    vow_promise *q = vow_promise_pending(&rq);
    vow_value *vp = vow_value_promise(p), *vq = vow_value_promise(q);
    CHECK_EQ_INT(vow_resolver_fulfill(rq, vp), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(q), VOW_FULFILLED);
    CHECK_EQ_INT(vow_resolver_fulfill(rp, vq), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    vow_error *e = vow_promise_error(p);
    CHECK(is_cycle(e));
    vow_error_release(e);
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_REJECTED);
    vow_value_release(vp);
    vow_value_release(vq);
    vow_resolver_release(rp);
    vow_resolver_release(rq);
    vow_promise_release(p);
    vow_promise_release(q);
}

static void
test_other_promise_values_still_fulfil(void)
{
    /* Not a cycle: a value holding another promise (even one holding this one's sibling). */
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *one = vow_value_int(1);
    vow_promise *other = vow_promise_fulfilled(one);
    vow_value *ov = vow_value_promise(other);
    vow_value *items[3] = {ov, one, ov};
    vow_value *list = vow_value_list(items, 3);
    CHECK_EQ_INT(vow_resolver_fulfill(r, list), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, list);
    vow_value_release(got);
    vow_value_release(list);
    vow_value_release(ov);
    vow_value_release(one);
    vow_promise_release(other);
    vow_resolver_release(r);
    vow_promise_release(p);
}

typedef struct returns_self {
    vow_promise *self; /* the derived promise of the callback */
} returns_self;

static void
return_list_holding_self(void *ctx, const vow_value *value, vow_result *out)
{
    returns_self *r = ctx;
    vow_value *self = vow_value_promise(r->self);
    const vow_value *items[2] = {value, self};
    vow_value *list = vow_value_list(items, 2);
    vow_result_return(out, list);
    vow_value_release(list);
    vow_value_release(self);
}

static void
test_callback_returning_its_own_promise_is_cycle(void)
{
    returns_self r = {NULL};
    vow_resolver *res = NULL;
    vow_promise *source = vow_promise_pending(&res);
    r.self = vow_then(source, return_list_holding_self, NULL, &r, NULL);
    vow_value *one = vow_value_int(1);
    vow_resolver_fulfill(res, one);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(r.self, NULL, &e), VOW_REJECTED);
    CHECK(is_cycle(e));
    vow_error_release(e);
    vow_value_release(one);
    vow_resolver_release(res);
    vow_promise_release(source);
    vow_promise_release(r.self);
}

TEST_MAIN_BEGIN("test_nesting")
    RUN_TEST(test_nested_lists_free_without_recursion);
    RUN_TEST(test_nested_errors_free_without_recursion);
    RUN_TEST(test_nested_promise_values_free_without_recursion);
    RUN_TEST(test_nested_when_and_join_free_without_recursion);
    RUN_TEST(test_wide_and_deep_lists);
    RUN_TEST(test_fulfil_with_own_promise_value_is_cycle);
    RUN_TEST(test_cycle_through_another_promise);
    RUN_TEST(test_other_promise_values_still_fulfil);
    RUN_TEST(test_callback_returning_its_own_promise_is_cycle);
TEST_MAIN_END
