/*
 * test_limited.c: vow_when_limited, vow_join_limited (and their _on and _site
 * forms), vow_any, and vow_when's rule on the other inputs after the first
 * rejection.
 *
 * Most tests run make on a host loop (a host_queue drained by this thread),
 * so what has been made at each step is exact: the loop runs only when the
 * test drains it.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static int
is_vow_error(const vow_error *e, int64_t code)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0 &&
           vow_error_code(e) == code;
}

/* ======================================================================
 * A producer: make(ctx, i) makes a pending promise and keeps its resolver
 * ====================================================================== */

typedef struct producer {
    size_t n;
    vow_resolver **r;       /* r[i]: the resolver of input i (NULL until made) */
    vow_promise **made;     /* made[i]: input i (+1 kept by the test) */
    atomic_int made_count;  /* calls to make */
    atomic_int wrong_order; /* calls whose i was not made_count */
    atomic_int off_main;    /* calls that ran on another thread than main */
    atomic_int cancelled;   /* on_cancel handlers run (inputs cancelled) */
    atomic_int destroyed;   /* destroy(ctx) calls */
    atomic_int made_at_destroy; /* made_count when destroy ran */
    long null_at;           /* make returns NULL for this index (-1: never) */
    vow_value *value;       /* if set: make returns a promise already fulfilled with it (not kept) */
} producer;

static producer *
producer_new(size_t n)
{
    producer *p = calloc(1, sizeof *p);
    if (p == NULL) abort();
    p->n = n;
    p->r = calloc(n ? n : 1, sizeof *p->r);
    p->made = calloc(n ? n : 1, sizeof *p->made);
    if (p->r == NULL || p->made == NULL) abort();
    p->null_at = -1;
    return p;
}

static void
producer_free(producer *p)
{
    for (size_t i = 0; i < p->n; i++) {
        vow_resolver_release(p->r[i]);
        vow_promise_release(p->made[i]);
    }
    free(p->r);
    free(p->made);
    free(p);
}

static void
count_cancel(void *ctx)
{
    atomic_fetch_add(&((producer *)ctx)->cancelled, 1);
}

static vow_promise *
producer_make(void *ctx, size_t i)
{
    producer *p = ctx;
    if ((size_t)atomic_load(&p->made_count) != i) atomic_fetch_add(&p->wrong_order, 1);
    if (!pthread_equal(pthread_self(), ts_main_thread)) atomic_fetch_add(&p->off_main, 1);
    atomic_fetch_add(&p->made_count, 1);
    if ((long)i == p->null_at || i >= p->n) return NULL;
    if (p->value != NULL) return vow_promise_fulfilled(p->value);
    vow_promise *promise = vow_promise_pending(&p->r[i]);
    vow_resolver_on_cancel(p->r[i], count_cancel, p, NULL);
    p->made[i] = vow_promise_retain(promise);
    return promise;
}

static void
producer_destroy(void *ctx)
{
    producer *p = ctx;
    atomic_store(&p->made_at_destroy, atomic_load(&p->made_count));
    atomic_fetch_add(&p->destroyed, 1);
}

static vow_dispatcher *
host_dispatcher(host_queue *q)
{
    return vow_dispatcher_new(host_submit, q, host_queue_destroy);
}

/* Releases d and frees q once both are done with. */
static void
host_finish(vow_dispatcher *d, host_queue *q)
{
    vow_dispatcher_release(d);
    flush_default();
    host_drain(q);
    host_queue_free(q);
}

/* ======================================================================
 * vow_when_limited
 * ====================================================================== */

static void
test_when_limited_order_and_bound(void)
{
    enum { N = 6, LIMIT = 2 };
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(N);
    vow_value *v[N];
    for (int i = 0; i < N; i++) v[i] = vow_value_int(100 + i);

    vow_promise *all = vow_when_limited_on(d, N, LIMIT, producer_make, p, producer_destroy);
    REQUIRE(all != NULL);
    CHECK_EQ_INT(atomic_load(&p->made_count), 0); /* never inside the call */
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), LIMIT);

    /* Settled out of order: every step, exactly settled + LIMIT made (at most LIMIT pending). */
    const int order[N] = {1, 0, 3, 2, 5, 4};
    int settled = 0;
    for (int k = 0; k < N; k++) {
        int i = order[k];
        REQUIRE(p->r[i] != NULL);
        CHECK_EQ_INT(vow_promise_state(all), VOW_PENDING);
        vow_resolver_fulfill(p->r[i], v[i]);
        settled++;
        host_drain(q);
        int expect = settled + LIMIT < N ? settled + LIMIT : N;
        CHECK_EQ_INT(atomic_load(&p->made_count), expect);
        if (atomic_load(&p->made_count) == N) {
            /* destroy ran after the last call to make, before the result settled. */
            CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
        } else {
            CHECK_EQ_INT(atomic_load(&p->destroyed), 0);
        }
    }
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(all, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), N);
    for (int i = 0; i < N; i++) CHECK_EQ_PTR(vow_value_at(list, i), v[i]); /* input order, same handles */
    CHECK_EQ_INT(atomic_load(&p->wrong_order), 0);
    CHECK_EQ_INT(atomic_load(&p->off_main), 0); /* on the host loop, drained by this thread */
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    CHECK_EQ_INT(atomic_load(&p->made_at_destroy), N);
    CHECK_EQ_INT(atomic_load(&p->cancelled), 0);

    vow_value_release(list);
    vow_promise_release(all);
    for (int i = 0; i < N; i++) vow_value_release(v[i]);
    producer_free(p);
    host_finish(d, q);
}

static void
test_when_limited_default_dispatcher(void)
{
    enum { N = 10 };
    producer *p = producer_new(N);
    p->value = vow_value_string("same");
    vow_promise *all = vow_when_limited(N, 3, producer_make, p, producer_destroy);
    REQUIRE(all != NULL);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(all, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), N);
    for (int i = 0; i < N; i++) CHECK_EQ_PTR(vow_value_at(list, i), p->value);
    CHECK_EQ_INT(atomic_load(&p->made_count), N);
    CHECK_EQ_INT(atomic_load(&p->wrong_order), 0);
    CHECK_EQ_INT(atomic_load(&p->off_main), N); /* the default dispatcher's thread */
    wait_counter(&p->destroyed, 1, ts_wait_seconds());
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_value_release(list);
    vow_promise_release(all);
    vow_value_release(p->value);
    producer_free(p);
}

static void
test_when_limited_first_rejection(void)
{
    enum { N = 5, LIMIT = 2 };
    unhandled_counter_reset();
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(N);
    vow_promise *all = vow_when_limited_on(d, N, LIMIT, producer_make, p, producer_destroy);
    REQUIRE(all != NULL);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), 2);

    vow_value *detail = vow_value_int(28);
    vow_error *e = vow_error_with_payload("test.limited", 1, "disk full", detail);
    vow_value_release(detail);
    vow_resolver_reject(p->r[1], e);
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(all, NULL, &got), VOW_REJECTED);
    /* The error names the input (issue 35): the same domain, code and payload, the message
       after "input 1: "; the input keeps its own error. */
    CHECK(got != NULL && got != e);
    CHECK_EQ_STR(vow_error_domain(got), "test.limited");
    CHECK_EQ_INT(vow_error_code(got), 1);
    CHECK_EQ_STR(vow_error_message(got), "input 1: disk full");
    int64_t payload = 0;
    CHECK(vow_value_get_int(vow_error_payload(got), &payload) == VOW_OK && payload == 28);
    CHECK_EQ_PTR(vow_error_payload(got), vow_error_payload(e)); /* the same payload handle */
    CHECK_EQ_STR(vow_error_message(e), "disk full");
    vow_error *input_error = vow_promise_error(p->made[1]);
    CHECK_EQ_PTR(input_error, e);
    vow_error_release(input_error);
    /* Input 0, still pending, was cancelled (its producer's on_cancel ran); nothing more is made. */
    CHECK_EQ_INT(vow_promise_state(p->made[0]), VOW_REJECTED);
    vow_error *e0 = vow_promise_error(p->made[0]);
    CHECK(vow_error_is_cancelled(e0));
    vow_error_release(e0);
    CHECK(wait_counter(&p->cancelled, 1, ts_wait_seconds()));
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), 2);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_value *nothing = vow_value_null();
    CHECK_EQ_INT(vow_resolver_fulfill(p->r[0], nothing), VOW_EALREADY);
    vow_value_release(nothing);

    vow_error_release(got);
    vow_promise_release(all);
    vow_error_release(e);
    producer_free(p);
    host_finish(d, q);
    CHECK_EQ_INT(unhandled_count_matching("test.limited", -1), 0);
}

static void
test_when_limited_cancel(void)
{
    enum { N = 5, LIMIT = 2 };
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(N);
    vow_promise *all = vow_when_limited_on(d, N, LIMIT, producer_make, p, producer_destroy);
    REQUIRE(all != NULL);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), 2);
    /* Another chain also waits on input 0: under the upstream rule it is not cancelled. */
    vow_promise *other = vow_then(p->made[0], NULL, NULL, NULL, NULL);

    vow_cancel(all);
    CHECK_EQ_INT(vow_promise_state(all), VOW_REJECTED);
    /* At once, inside vow_cancel: input 1 cancelled, input 0 kept (other still wants it). */
    CHECK_EQ_INT(vow_promise_state(p->made[1]), VOW_REJECTED);
    CHECK_EQ_INT(vow_promise_state(p->made[0]), VOW_PENDING);
    CHECK(wait_counter(&p->cancelled, 1, ts_wait_seconds()));
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), 2); /* no more calls to make */
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    flush_default();
    CHECK_EQ_INT(atomic_load(&p->cancelled), 1);

    vow_cancel(other);
    CHECK_EQ_INT(vow_promise_state(p->made[0]), VOW_REJECTED);
    CHECK(wait_counter(&p->cancelled, 2, ts_wait_seconds()));
    vow_promise_release(other);
    vow_promise_release(all);
    producer_free(p);
    host_finish(d, q);
}

/* Cancelled while make runs: that call's promise is cancelled too, and destroy waits for the call. */
typedef struct canceller {
    producer *p;
    vow_promise *all; /* set after the call */
} canceller;

static vow_promise *
make_then_cancel(void *ctx, size_t i)
{
    canceller *c = ctx;
    vow_promise *made = producer_make(c->p, i);
    if (i == 1) {
        vow_cancel(c->all);
        /* Inside make: destroy has not run (this call is running). */
        if (atomic_load(&c->p->destroyed) != 0) atomic_fetch_add(&c->p->wrong_order, 100);
    }
    return made;
}

static void
canceller_destroy(void *ctx)
{
    canceller *c = ctx;
    producer_destroy(c->p);
}

static void
test_when_limited_cancel_inside_make(void)
{
    enum { N = 4 };
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    canceller c = {producer_new(N), NULL};
    c.all = vow_when_limited_on(d, N, 3, make_then_cancel, &c, canceller_destroy);
    REQUIRE(c.all != NULL);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&c.p->made_count), 2);
    CHECK_EQ_INT(atomic_load(&c.p->wrong_order), 0);
    CHECK_EQ_INT(atomic_load(&c.p->destroyed), 1);
    CHECK_EQ_INT(vow_promise_state(c.p->made[0]), VOW_REJECTED);
    CHECK_EQ_INT(vow_promise_state(c.p->made[1]), VOW_REJECTED); /* made while cancelling: cancelled too */
    CHECK(wait_counter(&c.p->cancelled, 2, ts_wait_seconds()));
    vow_promise_release(c.all);
    producer_free(c.p);
    host_finish(d, q);
}

static void
test_when_limited_null_from_make(void)
{
    enum { N = 4 };
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(N);
    p->null_at = 1;
    vow_promise *all = vow_when_limited_on(d, N, 1, producer_make, p, producer_destroy);
    host_drain(q);
    vow_value *nothing = vow_value_null();
    vow_resolver_fulfill(p->r[0], nothing);
    vow_value_release(nothing);
    host_drain(q); /* makes input 1: NULL */
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(all, NULL, &got), VOW_REJECTED);
    CHECK(is_vow_error(got, VOW_ERROR_TYPE));
    CHECK_EQ_STR(vow_error_message(got),
                 "input 1: vow_when_limited_on: make returned NULL or not a vow_promise for index 1");
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), 2);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_error_release(got);
    vow_promise_release(all);
    producer_free(p);
    host_finish(d, q);
}

/* An input that was cancelled (not the result): the result's error is still a cancellation
 * error (vow_error_is_cancelled), and names the input. vow_when, whose inputs the caller holds, rejects with that same
 * error (the caller can ask each input). */
static void
test_when_limited_cancelled_input_named(void)
{
    enum { N = 3 };
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(N);
    vow_promise *all = vow_when_limited_on(d, N, N, producer_make, p, producer_destroy);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), 3);
    vow_cancel(p->made[2]);
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(all, NULL, &got), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(got));
    CHECK(is_vow_error(got, VOW_ERROR_CANCELLED));
    CHECK(strncmp(vow_error_message(got), "input 2: ", 9) == 0);
    /* Every input was cancelled (2 by the test, 0 and 1 by the stop): their on_cancel
       handlers, which use p, run on the default dispatcher before p is freed. */
    CHECK(wait_counter(&p->cancelled, 3, ts_wait_seconds()));
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_error_release(got);
    vow_promise_release(all);
    producer_free(p);
    host_finish(d, q);

    vow_resolver *r = NULL;
    vow_promise *a = vow_promise_pending(&r);
    vow_error *e = vow_error_new("test.when", 2, "no such file");
    vow_promise *b = vow_promise_rejected(e);
    vow_promise *both[2] = {a, b};
    vow_promise *w = vow_when(both, 2);
    got = NULL;
    CHECK_EQ_INT(wait_promise(w, NULL, &got), VOW_REJECTED);
    CHECK_EQ_PTR(got, e); /* that same error */
    vow_error_release(got);
    vow_promise_release(w);
    vow_promise_release(b);
    vow_promise_release(a);
    vow_resolver_release(r);
    vow_error_release(e);
}

/* ======================================================================
 * vow_join_limited
 * ====================================================================== */

static void
test_join_limited_collects_everything(void)
{
    enum { N = 5 };
    unhandled_counter_reset();
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(N);
    p->null_at = 3;
    vow_value *v = vow_value_int(7);
    vow_error *e = vow_error_new("test.join_limited", 2, "two");
    vow_promise *j = vow_join_limited_on(d, N, 2, producer_make, p, producer_destroy);
    REQUIRE(j != NULL);
    host_drain(q);
    vow_resolver_reject(p->r[0], e); /* a rejection stops nothing */
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&p->made_count), 3);
    vow_resolver_fulfill(p->r[1], v);
    host_drain(q); /* makes 3 (NULL: settled at once) and 4 */
    CHECK_EQ_INT(atomic_load(&p->made_count), 5);
    vow_resolver_fulfill(p->r[2], v);
    vow_resolver_reject(p->r[4], e);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(j, &list, NULL), VOW_FULFILLED);
    REQUIRE(vow_value_count(list) == N);
    CHECK_EQ_INT(vow_value_kind(vow_value_at(list, 0)), VOW_KIND_ERROR);
    CHECK_EQ_PTR(vow_value_get_error(vow_value_at(list, 0)), e);
    CHECK_EQ_PTR(vow_value_at(list, 1), v);
    CHECK_EQ_PTR(vow_value_at(list, 2), v);
    CHECK_EQ_INT(vow_value_kind(vow_value_at(list, 3)), VOW_KIND_ERROR);
    CHECK(is_vow_error(vow_value_get_error(vow_value_at(list, 3)), VOW_ERROR_TYPE));
    CHECK_EQ_PTR(vow_value_get_error(vow_value_at(list, 4)), e);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_value_release(list);
    vow_promise_release(j);
    producer_free(p);
    vow_value_release(v);
    vow_error_release(e);
    host_finish(d, q);
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("test.join_limited", -1), 0);
}

static void
test_join_limited_cancel(void)
{
    enum { N = 3 };
    producer *p = producer_new(N);
    vow_promise *j = vow_join_limited(N, 5, producer_make, p, producer_destroy);
    REQUIRE(j != NULL);
    CHECK(wait_counter(&p->made_count, N, ts_wait_seconds())); /* limit > n: all at once */
    vow_cancel(j);
    CHECK(wait_counter(&p->cancelled, N, ts_wait_seconds()));
    CHECK(wait_counter(&p->destroyed, 1, ts_wait_seconds()));
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(j, 0, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    vow_error_release(e);
    vow_promise_release(j);
    producer_free(p);
}

/* ======================================================================
 * Edges: n == 0, limit == 0, NULL arguments, counts too large, dropped pump
 * ====================================================================== */

typedef struct line_log {
    pthread_mutex_t lock;
    int count;
    char last[256];
} line_log;

static void
log_line(void *ctx, const char *line)
{
    line_log *log = ctx;
    pthread_mutex_lock(&log->lock);
    log->count++;
    snprintf(log->last, sizeof log->last, "%s", line ? line : "");
    pthread_mutex_unlock(&log->lock);
}

static void
test_limited_edges(void)
{
    line_log log = {PTHREAD_MUTEX_INITIALIZER, 0, ""};
    vow_set_misuse_handler(log_line, &log, NULL);

    /* n == 0: an empty LIST at once; make never called; destroy ran before the call returned. */
    producer *p = producer_new(0);
    vow_promise *empty = vow_when_limited(0, 4, producer_make, p, producer_destroy);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(empty, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_kind(list), VOW_KIND_LIST);
    CHECK_EQ_INT(vow_value_count(list), 0);
    vow_value_release(list);
    vow_promise_release(empty);
    empty = vow_join_limited(0, 1, producer_make, p, producer_destroy);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 2);
    CHECK_EQ_INT(vow_promise_state(empty), VOW_FULFILLED);
    vow_promise_release(empty);
    CHECK_EQ_INT(atomic_load(&p->made_count), 0);
    CHECK_EQ_INT(log.count, 0);
    producer_free(p);

    /* Failures: NULL, and destroy before the call returns. */
    p = producer_new(3);
    CHECK_NULL(vow_when_limited(3, 0, producer_make, p, producer_destroy));
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    CHECK_EQ_STR(log.last, "vow: vow_when_limited: limit is 0 (at least one promise must be allowed to run)");
    CHECK_NULL(vow_join_limited_on(vow_dispatcher_default(), 3, 0, producer_make, p, producer_destroy));
    CHECK_EQ_STR(log.last, "vow: vow_join_limited_on: limit is 0 (at least one promise must be allowed to run)");
    /* limit 0 is misuse even with n == 0 (the arguments are checked before anything else):
       NULL, not an empty LIST. */
    CHECK_NULL(vow_when_limited(0, 0, producer_make, p, producer_destroy));
    CHECK_EQ_STR(log.last, "vow: vow_when_limited: limit is 0 (at least one promise must be allowed to run)");
    CHECK_NULL(vow_join_limited(0, 0, producer_make, p, producer_destroy));
    CHECK_EQ_STR(log.last, "vow: vow_join_limited: limit is 0 (at least one promise must be allowed to run)");
    CHECK_EQ_INT(atomic_load(&p->destroyed), 4);
    CHECK_NULL(vow_when_limited(SIZE_MAX, 2, producer_make, p, producer_destroy));
    CHECK_EQ_STR(log.last, "vow: vow_when_limited: count 18446744073709551615 is too large");
    CHECK_NULL(vow_join_limited((size_t)1 << 63, 2, producer_make, p, producer_destroy));
    CHECK_EQ_INT(log.count, 6);
    CHECK_NULL(vow_when_limited(3, 1, NULL, p, producer_destroy));
    CHECK_NULL(vow_when_limited_on(NULL, 3, 1, producer_make, p, producer_destroy));
    CHECK_NULL(vow_join_limited_on(NULL, 3, 1, producer_make, p, producer_destroy));
    CHECK_EQ_INT(log.count, 6); /* NULL is answered silently */
    CHECK_EQ_INT(atomic_load(&p->destroyed), 9);
    CHECK_EQ_INT(atomic_load(&p->made_count), 0);
    producer_free(p);

    /* A limit with the top bit set is just more than n. */
    p = producer_new(3);
    p->value = vow_value_int(1);
    vow_promise *all = vow_when_limited(3, SIZE_MAX, producer_make, p, producer_destroy);
    CHECK_EQ_INT(wait_promise(all, NULL, NULL), VOW_FULFILLED);
    CHECK(wait_counter(&p->destroyed, 1, ts_wait_seconds()));
    vow_promise_release(all);
    vow_value_release(p->value);
    producer_free(p);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

/* make returns a handle of another kind: that input fails with VOW_ERROR_TYPE and a misuse
   line, and the handle is left alone (the library releases only what it can tell is a
   promise): the program still owns it and releases it itself. */
static atomic_int wrong_kind_freed;
static vow_value *wrong_kind_value;

static void
wrong_kind_value_freed(void *p)
{
    (void)p;
    atomic_fetch_add(&wrong_kind_freed, 1);
}

static vow_promise *
make_wrong_kind(void *ctx, size_t i)
{
    (void)ctx;
    (void)i;
    return (vow_promise *)wrong_kind_value; /* a vow_value, handed over as if it were +1 */
}

static void
test_limited_make_returns_another_kind(void)
{
    line_log log = {PTHREAD_MUTEX_INITIALIZER, 0, ""};
    vow_set_misuse_handler(log_line, &log, NULL);
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    atomic_store(&wrong_kind_freed, 0);
    wrong_kind_value = vow_value_pointer(&wrong_kind_freed, wrong_kind_value_freed);
    vow_promise *all = vow_when_limited_on(d, 1, 1, make_wrong_kind, NULL, NULL);
    host_drain(q);
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(all, NULL, &got), VOW_REJECTED);
    CHECK(is_vow_error(got, VOW_ERROR_TYPE));
    CHECK_EQ_STR(log.last, "vow: vow_when_limited_on: expected a vow_promise, got a vow_value");
    flush_default();
    CHECK_EQ_INT(atomic_load(&wrong_kind_freed), 0); /* left alone */
    CHECK_EQ_INT(vow_value_kind(wrong_kind_value), VOW_KIND_POINTER);
    vow_value_release(wrong_kind_value); /* the program's reference, released once */
    CHECK_EQ_INT(atomic_load(&wrong_kind_freed), 1);
    vow_error_release(got);
    vow_promise_release(all);
    host_finish(d, q);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

static void
test_limited_dropped_pump(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(3);
    vow_promise *all = vow_when_limited_on(d, 3, 1, producer_make, p, producer_destroy);
    CHECK_EQ_INT(host_drop_all(q), 1); /* the loop shuts down before the first call */
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(all, NULL, &e), VOW_REJECTED);
    CHECK(vow_error_is_cancelled(e));
    CHECK_EQ_INT(atomic_load(&p->made_count), 0);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_error_release(e);
    vow_promise_release(all);
    producer_free(p);
    host_finish(d, q);
}

/* Many inputs: at every step exactly min(settled + limit, n) were made. */
static void
test_when_limited_many(void)
{
    const size_t n = ts_small() ? 3000 : 100000;
    const int limit = 8;
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    producer *p = producer_new(n);
    vow_value *v = vow_value_int(5);
    vow_promise *all = vow_when_limited_on(d, n, (size_t)limit, producer_make, p, producer_destroy);
    REQUIRE(all != NULL);
    size_t settled = 0;
    int bound_broken = 0;
    host_drain(q);
    while (settled < n) {
        size_t made = (size_t)atomic_load(&p->made_count);
        size_t expect = settled + (size_t)limit < n ? settled + (size_t)limit : n;
        if (made != expect) bound_broken++;
        /* Settle what is pending, newest first. */
        for (size_t i = made; i > settled; i--) {
            vow_resolver_fulfill(p->r[i - 1], v);
            vow_resolver_release(p->r[i - 1]);
            p->r[i - 1] = NULL;
            vow_promise_release(p->made[i - 1]);
            p->made[i - 1] = NULL;
        }
        settled = made;
        host_drain(q);
    }
    CHECK_EQ_INT(bound_broken, 0);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(all, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), n);
    CHECK_EQ_PTR(vow_value_at(list, n - 1), v);
    CHECK_EQ_INT(atomic_load(&p->wrong_order), 0);
    CHECK_EQ_INT(atomic_load(&p->destroyed), 1);
    vow_value_release(list);
    vow_promise_release(all);
    vow_value_release(v);
    producer_free(p);
    host_finish(d, q);
}

/* A wait on the result from the dispatcher that must make the inputs could never end:
 * vow_wait answers VOW_DEADLOCK at once (the header's Waiting rule). */
typedef struct waiter {
    producer *p;
    vow_promise *all;
    vow_state state;
    int deadlock_error;
} waiter;

static void
wait_inside_default(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    waiter *w = ctx;
    w->all = vow_when_limited(2, 1, producer_make, w->p, producer_destroy);
    vow_error *e = NULL;
    w->state = vow_wait(w->all, ts_wait_seconds(), NULL, &e);
    w->deadlock_error = is_vow_error(e, VOW_ERROR_DEADLOCK);
    vow_error_release(e);
}

/* make waits for the result it is making the last input of: the input can only come once
   make returns, so the wait answers VOW_DEADLOCK at once (before, the check stopped as the
   last call of make began: the wait returned only at its timeout, and a wait without one
   hung). */
typedef struct last_waiter {
    vow_promise *all;
    vow_state state;
    int deadlock_error;
    atomic_int made;
} last_waiter;

static vow_promise *
make_waiting_for_result(void *ctx, size_t i)
{
    (void)i;
    last_waiter *w = ctx;
    atomic_fetch_add(&w->made, 1);
    vow_error *e = NULL;
    w->state = vow_wait(w->all, -1, NULL, &e); /* no limit: VOW_DEADLOCK or a hang */
    w->deadlock_error = is_vow_error(e, VOW_ERROR_DEADLOCK);
    vow_error_release(e);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    return p;
}

static void
test_limited_wait_inside_the_last_make_is_a_deadlock(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = host_dispatcher(q);
    last_waiter w = {NULL, VOW_STATE_INVALID, 0, 0};
    w.all = vow_when_limited_on(d, 1, 1, make_waiting_for_result, &w, NULL);
    double start = now_seconds();
    host_drain(q);
    CHECK(now_seconds() - start < ts_wait_seconds() / 2);
    CHECK_EQ_INT(atomic_load(&w.made), 1);
    CHECK_EQ_INT(w.state, VOW_DEADLOCK);
    CHECK(w.deadlock_error);
    CHECK_EQ_INT(wait_promise(w.all, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(w.all);
    host_finish(d, q);
}

static void
test_limited_wait_on_own_dispatcher_is_a_deadlock(void)
{
    waiter w = {producer_new(2), NULL, VOW_STATE_INVALID, 0};
    w.p->value = vow_value_int(9);
    double start = now_seconds();
    vow_promise *job = vow_dispatch(vow_dispatcher_default(), wait_inside_default, &w, NULL);
    CHECK_EQ_INT(wait_promise(job, NULL, NULL), VOW_FULFILLED);
    CHECK(now_seconds() - start < ts_wait_seconds() / 2);
    CHECK_EQ_INT(w.state, VOW_DEADLOCK);
    CHECK(w.deadlock_error);
    /* Outside the dispatcher, the same wait ends: the inputs get made once the job returned. */
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(w.all, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), 2);
    vow_value_release(list);
    vow_promise_release(w.all);
    vow_promise_release(job);
    CHECK(wait_counter(&w.p->destroyed, 1, ts_wait_seconds()));
    vow_value_release(w.p->value);
    producer_free(w.p);
}

/* ======================================================================
 * vow_any
 * ====================================================================== */

static void
count_cancel_track(void *ctx)
{
    track_hit(ctx);
}

static void
test_any(void)
{
    unhandled_counter_reset();
    vow_resolver *r[3];
    vow_promise *p[3];
    track *t[3];
    for (int i = 0; i < 3; i++) {
        p[i] = vow_promise_pending(&r[i]);
        t[i] = track_new();
        vow_resolver_on_cancel(r[i], count_cancel_track, t[i], track_destroy);
    }
    vow_promise *first = vow_any(p, 3);
    REQUIRE(first != NULL);
    vow_error *e0 = vow_error_new("test.any", 0, "zero");
    vow_value *v = vow_value_int(2);
    vow_resolver_reject(r[0], e0); /* skipped */
    CHECK_EQ_INT(vow_wait(first, 0.02, NULL, NULL), VOW_PENDING);
    vow_resolver_fulfill(r[2], v);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(first, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, v);
    /* The other pending one was cancelled. */
    CHECK(wait_counter(&t[1]->calls, 1, ts_wait_seconds()));
    CHECK_EQ_INT(vow_promise_state(p[1]), VOW_REJECTED);
    vow_value_release(got);
    vow_promise_release(first);
    for (int i = 0; i < 3; i++) {
        vow_resolver_release(r[i]);
        vow_promise_release(p[i]);
    }

    /* All reject: the error of the one that rejected last (time order), that same handle. */
    for (int i = 0; i < 3; i++) p[i] = vow_promise_pending(&r[i]);
    first = vow_any(p, 3);
    vow_error *e1 = vow_error_new("test.any", 1, "one");
    vow_error *e2 = vow_error_new("test.any", 2, "two");
    vow_resolver_reject(r[2], e2);
    vow_resolver_reject(r[0], e0);
    vow_resolver_reject(r[1], e1);
    vow_error *err = NULL;
    CHECK_EQ_INT(wait_promise(first, NULL, &err), VOW_REJECTED);
    CHECK_EQ_PTR(err, e1);
    vow_error_release(err);
    vow_promise_release(first);
    for (int i = 0; i < 3; i++) {
        vow_resolver_release(r[i]);
        vow_promise_release(p[i]);
    }
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("test.any", -1), 0);

    /* Inputs already rejected when vow_any is called count as rejecting in array order,
       before any that rejects later: all rejected before the call, the error of the last
       input; the one that rejects after the call is last whatever its place. */
    vow_promise *rejected[3] = {vow_promise_rejected(e0), vow_promise_rejected(e1), vow_promise_rejected(e2)};
    for (int round = 0; round < 2; round++) {
        first = vow_any(rejected, 3);
        err = NULL;
        CHECK_EQ_INT(wait_promise(first, NULL, &err), VOW_REJECTED);
        CHECK_EQ_PTR(err, e2);
        vow_error_release(err);
        vow_promise_release(first);
        /* the other order: still the last input's */
        vow_promise *swap = rejected[0];
        rejected[0] = rejected[2];
        rejected[2] = swap;
        vow_error *swap_e = e0;
        e0 = e2;
        e2 = swap_e;
    }
    vow_resolver *late_r = NULL;
    vow_promise *late = vow_promise_pending(&late_r);
    vow_promise *mixed[3] = {rejected[0], late, rejected[1]};
    first = vow_any(mixed, 3);
    CHECK_EQ_INT(vow_wait(first, 0.02, NULL, NULL), VOW_PENDING);
    vow_error *e3 = vow_error_new("test.any", 3, "three");
    vow_resolver_reject(late_r, e3);
    err = NULL;
    CHECK_EQ_INT(wait_promise(first, NULL, &err), VOW_REJECTED);
    CHECK_EQ_PTR(err, e3);
    vow_error_release(err);
    vow_error_release(e3);
    vow_promise_release(first);
    vow_resolver_release(late_r);
    vow_promise_release(late);
    for (int i = 0; i < 3; i++) vow_promise_release(rejected[i]);
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("test.any", -1), 0);

    /* n == 0: VOW_ERROR_EMPTY. NULL element or array: NULL. */
    vow_promise *none = vow_any(NULL, 0);
    err = NULL;
    CHECK_EQ_INT(wait_promise(none, NULL, &err), VOW_REJECTED);
    CHECK(is_vow_error(err, VOW_ERROR_EMPTY));
    vow_error_release(err);
    vow_promise_release(none);
    vow_promise *ok = vow_promise_fulfilled(v);
    vow_promise *with_null[2] = {ok, NULL};
    CHECK_NULL(vow_any(with_null, 2));
    CHECK_NULL(vow_any(NULL, 1));
    vow_promise_release(ok);
    vow_value_release(v);
    vow_error_release(e0);
    vow_error_release(e1);
    vow_error_release(e2);
}

/* ======================================================================
 * vow_when: the first rejection does not cancel the others; cancelling the result does
 * ====================================================================== */

static void
test_when_other_inputs(void)
{
    vow_resolver *r[2];
    vow_promise *p[2];
    track *t[2];
    for (int i = 0; i < 2; i++) {
        p[i] = vow_promise_pending(&r[i]);
        t[i] = track_new();
        vow_resolver_on_cancel(r[i], count_cancel_track, t[i], track_destroy);
    }
    vow_promise *all = vow_when(p, 2);
    vow_error *e = vow_error_new("test.when", 1, "first");
    vow_resolver_reject(r[0], e);
    CHECK_EQ_INT(wait_promise(all, NULL, NULL), VOW_REJECTED);
    flush_default();
    CHECK_EQ_INT(vow_promise_state(p[1]), VOW_PENDING); /* keeps running */
    CHECK_EQ_INT(track_calls(t[1]), 0);
    vow_promise_release(all);
    vow_resolver_release(r[1]);
    vow_resolver_release(r[0]);
    for (int i = 0; i < 2; i++) vow_promise_release(p[i]);

    /* Cancelling the result while it is pending cancels every input. */
    for (int i = 0; i < 2; i++) {
        p[i] = vow_promise_pending(&r[i]);
        t[i] = track_new();
        vow_resolver_on_cancel(r[i], count_cancel_track, t[i], track_destroy);
    }
    all = vow_when(p, 2);
    vow_cancel(all);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(vow_promise_state(p[i]), VOW_REJECTED);
        CHECK(wait_counter(&t[i]->calls, 1, ts_wait_seconds()));
        vow_resolver_release(r[i]);
        vow_promise_release(p[i]);
    }
    vow_promise_release(all);
    vow_error_release(e);
}

/* ======================================================================
 * The _site twins
 * ====================================================================== */

static void
test_site_twins(void)
{
    producer *p = producer_new(2);
    p->value = vow_value_int(3);
    vow_promise *a = vow_when_limited_site("limited.c", 7, 2, 1, producer_make, p, producer_destroy);
    vow_promise *b = vow_join_limited_site("limited.c", 8, 2, 1, producer_make, p, producer_destroy);
    vow_promise *c = vow_when_limited_on_site("limited.c", 9, vow_dispatcher_default(), 2, 1, producer_make, p,
                                              producer_destroy);
    vow_promise *d = vow_join_limited_on_site(NULL, 10, vow_dispatcher_default(), 2, 1, producer_make, p,
                                              producer_destroy);
    vow_promise *ps[1] = {vow_promise_fulfilled(p->value)};
    vow_promise *e = vow_any_site("limited.c", 11, ps, 1);
    vow_promise_release(ps[0]);
    vow_promise *all[5] = {a, b, c, d, e};
    for (int i = 0; i < 5; i++) {
        REQUIRE(all[i] != NULL);
        CHECK_EQ_INT(wait_promise(all[i], NULL, NULL), VOW_FULFILLED);
    }
    for (int i = 0; i < 5; i++) vow_promise_release(all[i]);
    CHECK(wait_counter(&p->destroyed, 4, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&p->destroyed), 4);
    CHECK_NULL(vow_when_limited_on_site("limited.c", 12, NULL, 2, 1, producer_make, p, producer_destroy));
    CHECK_EQ_INT(atomic_load(&p->destroyed), 5);
    vow_value_release(p->value);
    producer_free(p);
}

TEST_MAIN_BEGIN("test_limited")
    unhandled_counter_install();
    RUN_TEST(test_when_limited_order_and_bound);
    RUN_TEST(test_when_limited_default_dispatcher);
    RUN_TEST(test_when_limited_first_rejection);
    RUN_TEST(test_when_limited_cancel);
    RUN_TEST(test_when_limited_cancel_inside_make);
    RUN_TEST(test_when_limited_null_from_make);
    RUN_TEST(test_when_limited_cancelled_input_named);
    RUN_TEST(test_limited_make_returns_another_kind);
    RUN_TEST(test_join_limited_collects_everything);
    RUN_TEST(test_join_limited_cancel);
    RUN_TEST(test_limited_edges);
    RUN_TEST(test_limited_dropped_pump);
    RUN_TEST(test_when_limited_many);
    RUN_TEST(test_limited_wait_on_own_dispatcher_is_a_deadlock);
    RUN_TEST(test_limited_wait_inside_the_last_make_is_a_deadlock);
    RUN_TEST(test_any);
    RUN_TEST(test_when_other_inputs);
    RUN_TEST(test_site_twins);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
TEST_MAIN_END
