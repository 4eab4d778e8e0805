/* test_thenables.c: a host's own promise-like objects (Promises/A+ 2.3.3). */
#include "test_support.h"

enum mode {
    NOT_THENABLE,        /* get_then: NONE */
    FULFIL_SYNC,         /* call_then fulfils at once, then tries every other settle */
    REJECT_SYNC,         /* call_then rejects at once */
    FULFIL_LATER,        /* call_then keeps the resolver; another thread fulfils */
    GET_THEN_THROWS,     /* get_then: THREW with an error */
    GET_THEN_THROWS_BARE,/* get_then: THREW without setting *error */
    CALL_THEN_THROWS,    /* call_then: THREW before settling */
    THROW_AFTER_SETTLE,  /* call_then fulfils, then THREW (ignored) */
    RESOLVE_NESTED,      /* call_then resolves with another thenable */
    DROP_RESOLVER        /* call_then neither settles nor keeps the resolver */
};

typedef struct host_thenable {
    enum mode mode;
    atomic_int get_then_calls;
    atomic_int call_then_calls;
    atomic_int call_then_done; /* call_then returned (its statuses are written) */
    atomic_int release_method_calls;
    atomic_int destroyed;
    atomic_int ran_inside_resolve; /* a class function ran inside vow_resolver_resolve */
    atomic_int ran_on_main;
    vow_value *value;      /* what to fulfil with (owned) */
    vow_error *error;      /* what to reject / throw with (owned) */
    vow_value *nested;     /* RESOLVE_NESTED: the value to resolve with (owned) */
    vow_resolver *kept;    /* FULFIL_LATER */
    atomic_int kept_ready;
    int statuses[4];       /* statuses of the settle calls made inside call_then */
} host_thenable;

static _Thread_local int inside_resolve;
static int method_token; /* the "method" handed out by get_then */

static void
note_context(host_thenable *h)
{
    if (inside_resolve) atomic_fetch_add(&h->ran_inside_resolve, 1);
    if (pthread_equal(pthread_self(), ts_main_thread)) atomic_store(&h->ran_on_main, 1);
}

static int
host_get_then(void *object, void **method, vow_error **error)
{
    host_thenable *h = object;
    note_context(h);
    atomic_fetch_add(&h->get_then_calls, 1);
    switch (h->mode) {
    case NOT_THENABLE:
        return VOW_THEN_NONE;
    case GET_THEN_THROWS:
        *error = vow_error_retain(h->error);
        return VOW_THEN_THREW;
    case GET_THEN_THROWS_BARE:
        return VOW_THEN_THREW;
    default:
        *method = &method_token;
        return VOW_THEN_FOUND;
    }
}

static int
host_call_then_body(void *object, void *method, vow_resolver *resolver, vow_error **error)
{
    host_thenable *h = object;
    note_context(h);
    atomic_fetch_add(&h->call_then_calls, 1);
    if (method != &method_token) h->statuses[3] = 999; /* wrong method handed back */
    switch (h->mode) {
    case FULFIL_SYNC:
        if (vow_resolver_is_settled(resolver)) h->statuses[3] = 1000; /* fresh: must be unused */
        h->statuses[0] = vow_resolver_fulfill(resolver, h->value);
        if (!vow_resolver_is_settled(resolver)) h->statuses[3] = 1001; /* used now */
        h->statuses[1] = vow_resolver_reject(resolver, h->error);
        h->statuses[2] = vow_resolver_resolve(resolver, h->value);
        return VOW_OK;
    case REJECT_SYNC:
        h->statuses[0] = vow_resolver_reject(resolver, h->error);
        h->statuses[1] = vow_resolver_fulfill(resolver, h->value);
        return VOW_OK;
    case FULFIL_LATER:
        h->kept = vow_resolver_retain(resolver);
        atomic_store(&h->kept_ready, 1);
        return VOW_OK;
    case CALL_THEN_THROWS:
        *error = vow_error_retain(h->error);
        return VOW_THEN_THREW;
    case THROW_AFTER_SETTLE:
        h->statuses[0] = vow_resolver_fulfill(resolver, h->value);
        *error = vow_error_retain(h->error);
        return VOW_THEN_THREW;
    case RESOLVE_NESTED:
        h->statuses[0] = vow_resolver_resolve(resolver, h->nested);
        return VOW_OK;
    case DROP_RESOLVER:
    default:
        return VOW_OK;
    }
}

/* call_then: the body above, then a mark that it returned. */
static int
host_call_then(void *object, void *method, vow_resolver *resolver, vow_error **error)
{
    host_thenable *h = object;
    int status = host_call_then_body(object, method, resolver, error);
    atomic_fetch_add(&h->call_then_done, 1);
    return status;
}

/* Counted on a global: the method does not know its object. */
static atomic_int release_method_total;

static void
host_release_method(void *method)
{
    (void)method;
    atomic_fetch_add(&release_method_total, 1);
}

static const vow_thenable_class host_class = {host_get_then, host_call_then, host_release_method};
static const vow_thenable_class host_class_no_release = {host_get_then, host_call_then, NULL};

static void
host_thenable_destroy(void *object)
{
    host_thenable *h = object;
    atomic_fetch_add(&h->destroyed, 1);
}

typedef struct error_payload {
    atomic_int destroyed;
} error_payload;

static void
error_payload_destroy(void *p)
{
    atomic_fetch_add(&((error_payload *)p)->destroyed, 1);
}

/* A host object with a value to fulfil with and an error (with a tracked payload) to throw. */
static host_thenable *
make_host(enum mode mode, error_payload *ep)
{
    host_thenable *h = calloc(1, sizeof *h);
    h->mode = mode;
    h->value = vow_value_string("from the host");
    vow_value *pv = vow_value_pointer(ep, error_payload_destroy);
    h->error = vow_error_with_payload("host", 42, "host threw", pv);
    vow_value_release(pv);
    return h;
}

/* Frees h once the library let go of it (never destroyed: leaked, it may still be in use). */
static void
free_host(host_thenable *h)
{
    if (atomic_load(&h->destroyed) < 1) return;
    vow_value_release(h->value);
    vow_error_release(h->error);
    vow_value_release(h->nested);
    free(h);
}

/* Resolves a fresh promise with a THENABLE value for h, marking the call. */
static vow_promise *
resolve_with_host(host_thenable *h, const vow_thenable_class *cls, vow_value **tv_out)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *tv = vow_value_thenable(cls, h, host_thenable_destroy);
    inside_resolve = 1;
    int status = vow_resolver_resolve(r, tv);
    inside_resolve = 0;
    CHECK_EQ_INT(status, VOW_OK);
    /* Assimilating uses the resolver up. */
    CHECK(vow_resolver_is_settled(r));
    vow_resolver_release(r);
    if (tv_out) {
        *tv_out = tv;
    } else {
        vow_value_release(tv);
    }
    return p;
}

static void
test_not_thenable_fulfils_with_same_handle(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(NOT_THENABLE, &ep);
    vow_value *tv = NULL;
    vow_promise *p = resolve_with_host(h, &host_class, &tv);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, tv);
    CHECK_EQ_INT(vow_value_kind(got), VOW_KIND_THENABLE);
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 1);
    CHECK_EQ_INT(atomic_load(&h->call_then_calls), 0);
    CHECK_EQ_INT(atomic_load(&h->ran_inside_resolve), 0);
    vow_value_release(got);
    vow_value_release(tv);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&h->destroyed), 1);
    free_host(h);
    CHECK_EQ_INT(atomic_load(&ep.destroyed), 1);
}

static void
test_fulfil_sync_and_later_calls_ignored(void)
{
    error_payload ep = {0};
    int releases_before = atomic_load(&release_method_total);
    host_thenable *h = make_host(FULFIL_SYNC, &ep);
    vow_promise *p = resolve_with_host(h, &host_class, NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, h->value);
    /* p settled inside call_then: let call_then finish before reading what it saw. */
    CHECK(wait_counter(&h->call_then_done, 1, ts_wait_seconds()));
    CHECK_EQ_INT(h->statuses[0], VOW_OK);
    CHECK_EQ_INT(h->statuses[1], VOW_EALREADY);
    CHECK_EQ_INT(h->statuses[2], VOW_EALREADY);
    CHECK_EQ_INT(h->statuses[3], 0); /* the method handed back was get_then's */
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 1);
    CHECK_EQ_INT(atomic_load(&h->call_then_calls), 1);
    CHECK_EQ_INT(atomic_load(&h->ran_inside_resolve), 0);
    CHECK(wait_counter(&release_method_total, releases_before + 1, ts_wait_seconds()));
    vow_value_release(got);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&h->destroyed), 1);
    CHECK_EQ_INT(atomic_load(&release_method_total), releases_before + 1);
    free_host(h);
}

static void
test_reject_sync(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(REJECT_SYNC, &ep);
    vow_promise *p = resolve_with_host(h, &host_class_no_release, NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_PTR(e, h->error);
    CHECK(wait_counter(&h->call_then_done, 1, ts_wait_seconds()));
    CHECK_EQ_INT(h->statuses[0], VOW_OK);
    CHECK_EQ_INT(h->statuses[1], VOW_EALREADY);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
    CHECK(wait_counter(&ep.destroyed, 1, ts_wait_seconds()));
}

static void *
fulfil_from_thread(void *arg)
{
    host_thenable *h = arg;
    if (!wait_counter(&h->kept_ready, 1, ts_wait_seconds())) return NULL;
    h->statuses[0] = vow_resolver_fulfill(h->kept, h->value);
    h->statuses[1] = vow_resolver_fulfill(h->kept, h->value);
    vow_resolver_release(h->kept);
    h->kept = NULL;
    return NULL;
}

static void
test_fulfil_later_from_another_thread(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(FULFIL_LATER, &ep);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, fulfil_from_thread, h) == 0);
    vow_promise *p = resolve_with_host(h, &host_class, NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    pthread_join(t, NULL);
    CHECK_EQ_PTR(got, h->value);
    CHECK_EQ_INT(h->statuses[0], VOW_OK);
    CHECK_EQ_INT(h->statuses[1], VOW_EALREADY);
    vow_value_release(got);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
}

static int
is_vow_domain(const vow_error *e)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0;
}

static void
test_get_then_throws(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(GET_THEN_THROWS, &ep);
    vow_promise *p = resolve_with_host(h, &host_class, NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_PTR(e, h->error);
    CHECK_EQ_INT(atomic_load(&h->call_then_calls), 0);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
    /* The +1 error handed over was released by the library. */
    CHECK(wait_counter(&ep.destroyed, 1, ts_wait_seconds()));

    /* THREW without an error: an error of the library's own. */
    error_payload ep2 = {0};
    h = make_host(GET_THEN_THROWS_BARE, &ep2);
    p = resolve_with_host(h, &host_class, NULL);
    e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_domain(e));
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
}

static void
test_call_then_throws(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(CALL_THEN_THROWS, &ep);
    int releases_before = atomic_load(&release_method_total);
    vow_promise *p = resolve_with_host(h, &host_class, NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK_EQ_PTR(e, h->error);
    CHECK_EQ_INT(atomic_load(&h->call_then_calls), 1);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    CHECK(wait_counter(&release_method_total, releases_before + 1, ts_wait_seconds()));
    free_host(h);
    CHECK(wait_counter(&ep.destroyed, 1, ts_wait_seconds()));
}

static void
test_throw_after_settle_ignored(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(THROW_AFTER_SETTLE, &ep);
    vow_promise *p = resolve_with_host(h, &host_class, NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, h->value);
    CHECK(wait_counter(&h->call_then_done, 1, ts_wait_seconds()));
    CHECK_EQ_INT(h->statuses[0], VOW_OK);
    vow_value_release(got);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
    /* The ignored error was still released (no leak). */
    CHECK(wait_counter(&ep.destroyed, 1, ts_wait_seconds()));
}

static void
test_resolve_with_nested_thenable(void)
{
    error_payload ep = {0}, ep2 = {0};
    host_thenable *inner = make_host(FULFIL_SYNC, &ep2);
    host_thenable *outer = make_host(RESOLVE_NESTED, &ep);
    outer->nested = vow_value_thenable(&host_class, inner, host_thenable_destroy);
    vow_promise *p = resolve_with_host(outer, &host_class, NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(p, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, inner->value);
    CHECK(wait_counter(&outer->call_then_done, 1, ts_wait_seconds()));
    CHECK_EQ_INT(outer->statuses[0], VOW_OK);
    CHECK_EQ_INT(atomic_load(&inner->get_then_calls), 1);
    CHECK_EQ_INT(atomic_load(&inner->call_then_calls), 1);
    vow_value_release(got);
    vow_promise_release(p);
    CHECK(wait_counter(&outer->destroyed, 1, ts_wait_seconds()));
    vow_value_release(outer->nested);
    outer->nested = NULL;
    CHECK(wait_counter(&inner->destroyed, 1, ts_wait_seconds()));
    free_host(outer);
    free_host(inner);
}

static void
test_dropped_resolver_breaks(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(DROP_RESOLVER, &ep);
    vow_promise *p = resolve_with_host(h, &host_class, NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    CHECK(is_vow_domain(e) && vow_error_code(e) == VOW_ERROR_BROKEN);
    vow_error_release(e);
    vow_promise_release(p);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
}

static void
test_class_functions_run_on_default_dispatcher(void)
{
    /* With a host loop as the default dispatcher, the class functions run there,
       on this thread, only when the loop runs, never inside vow_resolver_resolve. */
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    error_payload ep = {0};
    host_thenable *h = make_host(FULFIL_SYNC, &ep);
    vow_promise *p = resolve_with_host(h, &host_class, NULL);
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 0);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_EQ_INT(host_run_until(q, p, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 1);
    CHECK_EQ_INT(atomic_load(&h->call_then_calls), 1);
    CHECK_EQ_INT(atomic_load(&h->ran_on_main), 1);
    CHECK_EQ_INT(atomic_load(&h->ran_inside_resolve), 0);
    vow_promise_release(p);
    host_drain(q);
    vow_set_default_dispatcher(NULL);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
}

static void
return_thenable(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    vow_result_return(out, (const vow_value *)ctx);
}

static void
test_callback_return_assimilates_in_a_later_job(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    error_payload ep = {0};
    host_thenable *h = make_host(FULFIL_SYNC, &ep);
    vow_value *tv = vow_value_thenable(&host_class, h, host_thenable_destroy);
    vow_value *seed = vow_value_null();
    vow_promise *src = vow_promise_fulfilled(seed);
    vow_promise *p = vow_then(src, return_thenable, NULL, tv, NULL);
    REQUIRE(p != NULL);
    /* Job 1: the callback; it must not call the class functions itself. */
    CHECK(host_run_one(q));
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 0);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_EQ_INT(host_run_until(q, p, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 1);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, h->value);
    vow_value_release(got);
    vow_promise_release(p);
    vow_promise_release(src);
    vow_value_release(seed);
    vow_value_release(tv);
    host_drain(q);
    vow_set_default_dispatcher(NULL);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK(wait_counter(&q->destroyed, 1, ts_wait_seconds()));
    host_queue_free(q);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
}

static void
test_fulfilled_with_thenable_is_not_assimilated(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(FULFIL_SYNC, &ep);
    vow_value *tv = vow_value_thenable(&host_class, h, host_thenable_destroy);
    vow_promise *p = vow_promise_fulfilled(tv);
    vow_resolver *r = NULL;
    vow_promise *q = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_resolver_fulfill(r, tv), VOW_OK);
    flush_default();
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 0);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, tv);
    vow_value_release(got);
    got = vow_promise_value(q);
    CHECK_EQ_PTR(got, tv);
    vow_value_release(got);
    vow_promise_release(p);
    vow_promise_release(q);
    vow_resolver_release(r);
    vow_value_release(tv);
    CHECK_EQ_INT(atomic_load(&h->destroyed), 1);
    free_host(h);
}

static void
test_resolve_after_settle_does_not_look_up(void)
{
    error_payload ep = {0};
    host_thenable *h = make_host(FULFIL_SYNC, &ep);
    vow_value *tv = vow_value_thenable(&host_class, h, host_thenable_destroy);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_value *first = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, first), VOW_OK);
    CHECK_EQ_INT(vow_resolver_resolve(r, tv), VOW_EALREADY);
    flush_default();
    CHECK_EQ_INT(atomic_load(&h->get_then_calls), 0);
    vow_value *got = vow_promise_value(p);
    CHECK_EQ_PTR(got, first);
    vow_value_release(got);
    vow_value_release(first);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(tv);
    CHECK(wait_counter(&h->destroyed, 1, ts_wait_seconds()));
    free_host(h);
}

TEST_MAIN_BEGIN("test_thenables")
    RUN_TEST(test_not_thenable_fulfils_with_same_handle);
    RUN_TEST(test_fulfil_sync_and_later_calls_ignored);
    RUN_TEST(test_reject_sync);
    RUN_TEST(test_fulfil_later_from_another_thread);
    RUN_TEST(test_get_then_throws);
    RUN_TEST(test_call_then_throws);
    RUN_TEST(test_throw_after_settle_ignored);
    RUN_TEST(test_resolve_with_nested_thenable);
    RUN_TEST(test_dropped_resolver_breaks);
    RUN_TEST(test_class_functions_run_on_default_dispatcher);
    RUN_TEST(test_callback_return_assimilates_in_a_later_job);
    RUN_TEST(test_fulfilled_with_thenable_is_not_assimilated);
    RUN_TEST(test_resolve_after_settle_does_not_look_up);
TEST_MAIN_END
