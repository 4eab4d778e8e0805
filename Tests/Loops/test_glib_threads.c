/* test_glib_threads.c: 8 threads settle promises whose callbacks run in a GMainLoop:
 * every callback runs once, in the loop's thread, in each thread's order, exact totals. */
#define _GNU_SOURCE
#include "glib_support.h"

enum { THREADS = 8 };

typedef struct shared {
    GMainLoop *loop;
    pthread_t loop_thread;
    int per_thread;
    /* Touched in the loop's thread only. */
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
add_in_loop(void *ctx, const vow_value *value, vow_result *out)
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
    if (++s->count == THREADS * s->per_thread) g_main_loop_quit(s->loop);
}

static void *
produce(void *arg)
{
    producer *p = arg;
    for (int i = 0; i < p->s->per_thread; i++) {
        vow_value *v = vow_value_int((int64_t)p->index * 100000 + i + 1);
        vow_resolver_fulfill(p->resolvers[i], v); /* submits to the context from this thread */
        vow_value_release(v);
        if (i % 16 == 0) sched_yield();
    }
    return NULL;
}

static gboolean
give_up(gpointer data)
{
    g_main_loop_quit(data);
    return G_SOURCE_REMOVE;
}

static void
test_eight_threads_settle(void)
{
    shared s;
    memset(&s, 0, sizeof s);
    s.loop_thread = pthread_self();
    s.per_thread = ts_small() ? 40 : 400;
    GMainContext *ctx = g_main_context_new();
    s.loop = g_main_loop_new(ctx, FALSE);
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);

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
            ds[k] = vow_then_on(d, ps[k], add_in_loop, NULL, &s, NULL);
            expected += (int64_t)t * 100000 + i + 1;
        }
        producers[t] = (producer){.s = &s, .index = t, .resolvers = rs + t * s.per_thread};
    }
    GSource *bound = g_timeout_source_new((guint)(ts_wait_seconds() * 1000));
    g_source_set_callback(bound, give_up, s.loop, NULL);
    g_source_attach(bound, ctx);
    for (int t = 0; t < THREADS; t++) pthread_create(&producers[t].thread, NULL, produce, &producers[t]);
    g_main_context_push_thread_default(ctx);
    g_main_loop_run(s.loop); /* the last callback quits it */
    g_main_context_pop_thread_default(ctx);
    for (int t = 0; t < THREADS; t++) pthread_join(producers[t].thread, NULL);
    g_source_destroy(bound);
    g_source_unref(bound);

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
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    g_main_loop_unref(s.loop);
    g_main_context_unref(ctx);
}

/* The loop runs in a thread of its own; 8 threads vow_dispatch to it directly. */
typedef struct dispatch_shared {
    loop_thread lt;
    atomic_int ran;
    atomic_int off_loop;
    int per_thread;
    vow_dispatcher *d;
} dispatch_shared;

static void
count_job(void *ctx, const vow_value *value, vow_result *out)
{
    dispatch_shared *s = ctx;
    (void)value;
    (void)out;
    if (!pthread_equal(pthread_self(), s->lt.thread)) atomic_fetch_add(&s->off_loop, 1);
    atomic_fetch_add(&s->ran, 1);
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
    REQUIRE(loop_thread_start(&s.lt));
    s.d = vow_glib_dispatcher_new(s.lt.ctx);
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
    int fulfilled = 0;
    for (int k = 0; k < total; k++) {
        fulfilled += vow_wait(ps[k], ts_wait_seconds(), NULL, NULL) == VOW_FULFILLED;
        vow_promise_release(ps[k]);
    }
    CHECK_EQ_INT(fulfilled, total);
    CHECK_EQ_INT(atomic_load(&s.ran), total);
    CHECK_EQ_INT(atomic_load(&s.off_loop), 0);
    free(ps);
    vow_glib_dispatcher_close(s.d);
    vow_dispatcher_release(s.d);
    loop_thread_stop(&s.lt);
    loop_thread_free(&s.lt);
}

TEST_MAIN_BEGIN("test_glib_threads")
    RUN_TEST(test_eight_threads_settle);
    RUN_TEST(test_eight_threads_dispatch_to_a_loop_thread);
TEST_MAIN_END
