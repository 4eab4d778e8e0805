/*
 * test_threads.c: threads hammering create / then / settle / release, with
 * exact totals of callbacks and destroys at the end. 8 threads x 20,000
 * iterations (VOW_TEST_SCALE=small: 4 x 500, for valgrind).
 */
#include "test_support.h"

typedef struct totals {
    atomic_int value_calls;
    atomic_int error_calls;
    atomic_int finally_calls;
    atomic_int destroyed;
    atomic_int settle_ok;
    atomic_int settle_already;
} totals;

static totals T;

static void
on_value(void *ctx, const vow_value *value, vow_result *out)
{
    atomic_fetch_add(&((totals *)ctx)->value_calls, 1);
    vow_result_return(out, value);
}

static void
on_error(void *ctx, const vow_error *error, vow_result *out)
{
    atomic_fetch_add(&((totals *)ctx)->error_calls, 1);
    (void)error;
    (void)out;
}

static void
on_finally(void *ctx)
{
    atomic_fetch_add(&((totals *)ctx)->finally_calls, 1);
}

static void
on_destroy(void *ctx)
{
    atomic_fetch_add(&((totals *)ctx)->destroyed, 1);
}

static int
thread_count(void)
{
    return ts_small() ? 4 : 8;
}

static int
iterations(void)
{
    return ts_small() ? 500 : 20000;
}

typedef struct worker {
    int id;
    vow_promise **ends;
    int n;
    vow_value *shared_value;
    vow_error *shared_error;
} worker;

static void *
hammer(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < w->n; i++) {
        vow_resolver *r = NULL;
        vow_promise *p = vow_promise_pending(&r);
        vow_promise *a = vow_then(p, on_value, on_error, &T, on_destroy);
        vow_promise *b = vow_finally(a, on_finally, &T, on_destroy);
        /* Settle before or after attaching a second handler, fulfil or reject. */
        vow_promise *c = NULL;
        if (i % 4 < 2) c = vow_then(p, on_value, on_error, &T, on_destroy);
        if (i % 2 == 0) {
            vow_resolver_fulfill(r, w->shared_value);
        } else {
            vow_resolver_reject(r, w->shared_error);
        }
        if (c == NULL) c = vow_then(p, on_value, on_error, &T, on_destroy);
        vow_resolver_release(r);
        vow_promise_release(p);
        vow_promise_release(a);
        vow_promise_release(c);
        w->ends[i] = b;
        /* Retain / release traffic on shared handles. */
        vow_value_release(vow_value_retain(w->shared_value));
        vow_error_release(vow_error_retain(w->shared_error));
    }
    return NULL;
}

typedef struct payload {
    atomic_int destroyed;
} payload;

static void
payload_destroy(void *p)
{
    atomic_fetch_add(&((payload *)p)->destroyed, 1);
}

static void
test_hammer_exact_totals(void)
{
    const int nt = thread_count(), n = iterations();
    memset(&T, 0, sizeof T);
    /* Static: the value's destroy may run on the queue's thread (below), never on a
       stack frame that is gone. */
    static payload pl;
    atomic_store(&pl.destroyed, 0);
    vow_value *v = vow_value_pointer(&pl, payload_destroy);
    vow_error *e = vow_error_new("test.threads", 1, "");
    worker *ws = calloc((size_t)nt, sizeof *ws);
    pthread_t *ts = calloc((size_t)nt, sizeof *ts);
    double t0 = now_seconds();
    for (int k = 0; k < nt; k++) {
        ws[k].id = k;
        ws[k].n = n;
        ws[k].ends = calloc((size_t)n, sizeof(vow_promise *));
        ws[k].shared_value = v;
        ws[k].shared_error = e;
        pthread_create(&ts[k], NULL, hammer, &ws[k]);
    }
    for (int k = 0; k < nt; k++) pthread_join(ts[k], NULL);
    int fulfilled = 0, recovered = 0;
    for (int k = 0; k < nt; k++) {
        for (int i = 0; i < n; i++) {
            vow_state s = vow_wait(ws[k].ends[i], ts_wait_seconds(), NULL, NULL);
            if (s == VOW_FULFILLED) {
                if (i % 2 == 0) fulfilled++;
                else recovered++;
            }
            vow_promise_release(ws[k].ends[i]);
        }
        free(ws[k].ends);
    }
    const int total = nt * n;
    printf("    %d threads x %d iterations in %.2f s\n", nt, n, now_seconds() - t0);
    CHECK_EQ_INT(fulfilled, total / 2);
    CHECK_EQ_INT(recovered, total / 2);
    /* Each iteration: a, c (two value/error callbacks), b (a finally). */
    CHECK_EQ_INT(atomic_load(&T.value_calls), total);   /* 2 per fulfilled iteration */
    CHECK_EQ_INT(atomic_load(&T.error_calls), total);   /* 2 per rejected iteration */
    CHECK_EQ_INT(atomic_load(&T.finally_calls), total);
    CHECK(wait_counter(&T.destroyed, 3 * total, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&T.destroyed), 3 * total);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    vow_value_release(v);
    /* The last references to v may be promises that nobody holds but the job that settled
       them, which the queue's thread lets go of right after the job ran, a moment after
       the job's destroy counted above: the value's destroy runs once, then. */
    CHECK(wait_counter(&pl.destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);
    vow_error_release(e);
    free(ws);
    free(ts);
}

typedef struct shared_attach {
    vow_promise *shared;
    int n;
    vow_promise **derived;
    atomic_int *go;
} shared_attach;

static void *
attach_many(void *arg)
{
    shared_attach *s = arg;
    while (!atomic_load(s->go)) {
    }
    for (int i = 0; i < s->n; i++) s->derived[i] = vow_then(s->shared, on_value, on_error, &T, on_destroy);
    return NULL;
}

static void
test_attach_while_settling(void)
{
    /* Threads attach to one promise while the main thread settles it. */
    const int nt = thread_count(), n = iterations() / 4;
    memset(&T, 0, sizeof T);
    vow_resolver *r = NULL;
    vow_promise *shared = vow_promise_pending(&r);
    atomic_int go = 0;
    shared_attach *sa = calloc((size_t)nt, sizeof *sa);
    pthread_t *ts = calloc((size_t)nt, sizeof *ts);
    for (int k = 0; k < nt; k++) {
        sa[k].shared = shared;
        sa[k].n = n;
        sa[k].derived = calloc((size_t)n, sizeof(vow_promise *));
        sa[k].go = &go;
        pthread_create(&ts[k], NULL, attach_many, &sa[k]);
    }
    atomic_store(&go, 1);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    for (int k = 0; k < nt; k++) pthread_join(ts[k], NULL);
    int missing = 0;
    for (int k = 0; k < nt; k++) {
        for (int i = 0; i < n; i++) {
            if (sa[k].derived[i] == NULL) missing++;
            vow_wait(sa[k].derived[i], ts_wait_seconds(), NULL, NULL);
            vow_promise_release(sa[k].derived[i]);
        }
        free(sa[k].derived);
    }
    CHECK_EQ_INT(missing, 0);
    CHECK_EQ_INT(atomic_load(&T.value_calls), nt * n);
    CHECK_EQ_INT(atomic_load(&T.error_calls), 0);
    CHECK(wait_counter(&T.destroyed, nt * n, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&T.destroyed), nt * n);
    vow_value_release(v);
    vow_resolver_release(r);
    vow_promise_release(shared);
    free(sa);
    free(ts);
}

typedef struct racer {
    vow_resolver **resolvers;
    int n;
    vow_value *v;
    vow_error *e;
    int reject;
    atomic_int *go;
} racer;

static void *
race_to_settle(void *arg)
{
    racer *rc = arg;
    while (!atomic_load(rc->go)) {
    }
    for (int i = 0; i < rc->n; i++) {
        int s = rc->reject ? vow_resolver_reject(rc->resolvers[i], rc->e) : vow_resolver_fulfill(rc->resolvers[i], rc->v);
        if (s == VOW_OK) atomic_fetch_add(&T.settle_ok, 1);
        else if (s == VOW_EALREADY) atomic_fetch_add(&T.settle_already, 1);
    }
    return NULL;
}

static void
test_settle_races(void)
{
    /* Several threads settle the same resolvers: exactly one wins each. */
    const int nt = thread_count(), n = iterations() / 4;
    memset(&T, 0, sizeof T);
    vow_resolver **rs = calloc((size_t)n, sizeof *rs);
    vow_promise **ps = calloc((size_t)n, sizeof *ps);
    for (int i = 0; i < n; i++) ps[i] = vow_promise_pending(&rs[i]);
    vow_value *v = vow_value_int(1);
    vow_error *e = vow_error_new("test.threads", 2, "");
    atomic_int go = 0;
    racer *rc = calloc((size_t)nt, sizeof *rc);
    pthread_t *ts = calloc((size_t)nt, sizeof *ts);
    for (int k = 0; k < nt; k++) {
        rc[k] = (racer){rs, n, v, e, k % 2, &go};
        pthread_create(&ts[k], NULL, race_to_settle, &rc[k]);
    }
    atomic_store(&go, 1);
    for (int k = 0; k < nt; k++) pthread_join(ts[k], NULL);
    CHECK_EQ_INT(atomic_load(&T.settle_ok), n);
    CHECK_EQ_INT(atomic_load(&T.settle_already), (nt - 1) * n);
    int unsettled = 0;
    for (int i = 0; i < n; i++) {
        if (vow_promise_state(ps[i]) != VOW_FULFILLED && vow_promise_state(ps[i]) != VOW_REJECTED) unsettled++;
        vow_wait(ps[i], 0, NULL, NULL); /* handle the rejections */
        vow_resolver_release(rs[i]);
        vow_promise_release(ps[i]);
    }
    CHECK_EQ_INT(unsettled, 0);
    vow_value_release(v);
    vow_error_release(e);
    free(rs);
    free(ps);
    free(rc);
    free(ts);
}

TEST_MAIN_BEGIN("test_threads")
    RUN_TEST(test_hammer_exact_totals);
    RUN_TEST(test_attach_while_settling);
    RUN_TEST(test_settle_races);
TEST_MAIN_END
