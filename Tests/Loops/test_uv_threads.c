/* test_uv_threads.c: 8 threads settle promises whose callbacks run on a libuv loop: every
 * callback runs once, on the loop thread, in each thread's order, with exact totals. */
#define _GNU_SOURCE
#include "uv_support.h"

enum { THREADS = 8 };

typedef struct shared {
    test_loop tl;
    vow_dispatcher *d;
    uv_async_t keepalive; /* the program's own handle: keeps the loop alive meanwhile */
    pthread_t loop_thread;
    int per_thread;
    /* Touched on the loop thread only: no lock, no atomics. */
    int64_t sum;
    int count;
    int off_loop;
    int out_of_order;
    int last_seen[THREADS];
} shared;

typedef struct producer {
    shared *s;
    int index;
    vow_resolver **resolvers;
    pthread_t thread;
} producer;

static void
add_on_loop(void *ctx, const vow_value *value, vow_result *out)
{
    shared *s = ctx;
    (void)out;
    int64_t n = 0;
    vow_value_get_int(value, &n);
    if (!pthread_equal(pthread_self(), s->loop_thread)) s->off_loop++;
    int thread = (int)(n / 100000), seq = (int)(n % 100000);
    if (thread >= 0 && thread < THREADS) {
        if (seq <= s->last_seen[thread]) s->out_of_order++;
        s->last_seen[thread] = seq;
    }
    s->sum += n;
    if (++s->count == THREADS * s->per_thread) uv_close((uv_handle_t *)&s->keepalive, NULL);
}

static void *
produce(void *arg)
{
    producer *p = arg;
    for (int i = 0; i < p->s->per_thread; i++) {
        vow_value *v = vow_value_int((int64_t)p->index * 100000 + i + 1);
        vow_resolver_fulfill(p->resolvers[i], v); /* submits to the loop from this thread */
        vow_value_release(v);
        if (i % 16 == 0) sched_yield();
    }
    return NULL;
}

static void
test_eight_threads_settle(void)
{
    shared s;
    memset(&s, 0, sizeof s);
    REQUIRE(test_loop_init(&s.tl));
    s.loop_thread = pthread_self();
    s.per_thread = ts_small() ? 40 : 400;
    for (int t = 0; t < THREADS; t++) s.last_seen[t] = 0;
    s.d = vow_uv_dispatcher_new(&s.tl.loop);
    REQUIRE(s.d != NULL);
    uv_async_init(&s.tl.loop, &s.keepalive, NULL);

    producer producers[THREADS];
    int total = THREADS * s.per_thread;
    vow_promise **ps = calloc((size_t)total, sizeof *ps);
    vow_promise **ds = calloc((size_t)total, sizeof *ds);
    vow_resolver **rs = calloc((size_t)total, sizeof *rs);
    REQUIRE(ps && ds && rs);
    int64_t expected = 0;
    for (int t = 0; t < THREADS; t++) {
        for (int i = 0; i < s.per_thread; i++) {
            int k = t * s.per_thread + i;
            ps[k] = vow_promise_pending(&rs[k]);
            ds[k] = vow_then_on(s.d, ps[k], add_on_loop, NULL, &s, NULL);
            expected += (int64_t)t * 100000 + i + 1;
        }
        producers[t] = (producer){.s = &s, .index = t, .resolvers = rs + t * s.per_thread};
    }
    for (int t = 0; t < THREADS; t++) pthread_create(&producers[t].thread, NULL, produce, &producers[t]);
    CHECK(run_bounded(&s.tl)); /* returns once the last callback closed the keepalive */
    for (int t = 0; t < THREADS; t++) pthread_join(producers[t].thread, NULL);

    CHECK_EQ_INT(s.count, total);
    CHECK_EQ_INT(s.sum, expected);
    CHECK_EQ_INT(s.off_loop, 0);
    CHECK_EQ_INT(s.out_of_order, 0);
    for (int t = 0; t < THREADS; t++) CHECK_EQ_INT(s.last_seen[t], s.per_thread);
    int fulfilled = 0;
    for (int k = 0; k < total; k++) fulfilled += vow_promise_state(ds[k]) == VOW_FULFILLED;
    CHECK_EQ_INT(fulfilled, total);

    for (int k = 0; k < total; k++) {
        vow_promise_release(ds[k]);
        vow_promise_release(ps[k]);
        vow_resolver_release(rs[k]);
    }
    free(ps);
    free(ds);
    free(rs);
    CHECK_EQ_INT(vow_uv_dispatcher_close(s.d), VOW_OK);
    vow_dispatcher_release(s.d);
    close_loop(&s.tl);
}

/* The loop runs on its own thread; 8 threads submit vow_dispatch jobs directly. */
typedef struct dispatch_shared {
    test_loop tl;
    uv_async_t keepalive;
    vow_dispatcher *d;
    pthread_t loop_thread; /* set by the loop thread itself */
    atomic_int ready;
    int per_thread;
    int ran, off_loop; /* loop thread only */
    int closed_ok;
} dispatch_shared;

static void
count_job(void *ctx, const vow_value *value, vow_result *out)
{
    dispatch_shared *s = ctx;
    (void)value;
    (void)out;
    if (!pthread_equal(pthread_self(), s->loop_thread)) s->off_loop++;
    if (++s->ran == THREADS * s->per_thread) uv_close((uv_handle_t *)&s->keepalive, NULL);
}

static void *
dispatch_loop_main(void *arg)
{
    dispatch_shared *s = arg;
    s->loop_thread = pthread_self();
    test_loop_init(&s->tl);
    uv_async_init(&s->tl.loop, &s->keepalive, NULL);
    s->d = vow_uv_dispatcher_new(&s->tl.loop);
    atomic_store(&s->ready, 1);
    run_bounded(&s->tl);
    vow_uv_dispatcher_close(s->d);
    close_loop(&s->tl);
    return NULL;
}

typedef struct dispatcher_thread {
    dispatch_shared *s;
    vow_promise **out;
    pthread_t thread;
} dispatcher_thread;

static void *
dispatch_many(void *arg)
{
    dispatcher_thread *t = arg;
    for (int i = 0; i < t->s->per_thread; i++) t->out[i] = vow_dispatch(t->s->d, count_job, t->s, NULL);
    return NULL;
}

static void
test_eight_threads_dispatch_to_a_loop_thread(void)
{
    dispatch_shared s;
    memset(&s, 0, sizeof s);
    s.per_thread = ts_small() ? 50 : 500;
    pthread_t loop;
    REQUIRE(pthread_create(&loop, NULL, dispatch_loop_main, &s) == 0);
    REQUIRE(wait_counter(&s.ready, 1, ts_wait_seconds()));
    REQUIRE(s.d != NULL);
    int total = THREADS * s.per_thread;
    vow_promise **ps = calloc((size_t)total, sizeof *ps);
    REQUIRE(ps != NULL);
    dispatcher_thread threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        threads[t] = (dispatcher_thread){.s = &s, .out = ps + t * s.per_thread};
        pthread_create(&threads[t].thread, NULL, dispatch_many, &threads[t]);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t].thread, NULL);
    pthread_join(loop, NULL);
    CHECK_EQ_INT(s.ran, total);
    CHECK_EQ_INT(s.off_loop, 0);
    int fulfilled = 0;
    for (int k = 0; k < total; k++) {
        fulfilled += vow_promise_state(ps[k]) == VOW_FULFILLED;
        vow_promise_release(ps[k]);
    }
    CHECK_EQ_INT(fulfilled, total);
    free(ps);
    vow_dispatcher_release(s.d);
}

TEST_MAIN_BEGIN("test_uv_threads")
    RUN_TEST(test_eight_threads_settle);
    RUN_TEST(test_eight_threads_dispatch_to_a_loop_thread);
TEST_MAIN_END
