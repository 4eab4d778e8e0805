/* test_glib_close.c: closing a GLib dispatcher with work pending, or destroying its
 * context: queued jobs and later jobs are dropped (promises cancelled, destroys run once,
 * callbacks never run), from any thread, and the dispatcher may outlive its context. */
#define _GNU_SOURCE
#include "glib_support.h"

static int
is_cancelled(vow_promise *p)
{
    vow_error *e = vow_promise_error(p);
    int cancelled = e != NULL && vow_error_is_cancelled(e);
    vow_error_release(e);
    return cancelled;
}

static int
wait_cancelled(vow_promise *p)
{
    vow_error *e = NULL;
    vow_state s = vow_wait(p, ts_wait_seconds(), NULL, &e);
    int cancelled = s == VOW_REJECTED && e != NULL && vow_error_is_cancelled(e);
    vow_error_release(e);
    return cancelled;
}

enum { N = 10 };

typedef struct pending_work {
    vow_value *v;
    vow_promise *p;
    track *t[N], *fin[N];
    vow_promise *ds[N], *after[N];
} pending_work;

/* Queues N jobs on d (half then, half dispatch), each followed by a finally on the library's queue. */
static void
queue_work(pending_work *w, vow_dispatcher *d)
{
    w->v = vow_value_int(1);
    w->p = vow_promise_fulfilled(w->v);
    for (int i = 0; i < N; i++) {
        w->t[i] = track_new();
        w->fin[i] = track_new();
        w->ds[i] = i % 2 ? vow_then_on(d, w->p, track_on_value_pass, NULL, w->t[i], track_destroy)
                         : vow_dispatch(d, track_on_value_pass, w->t[i], track_destroy);
        w->after[i] = vow_finally(w->ds[i], track_fn, w->fin[i], track_destroy);
    }
}

/* CHECKs that every job was dropped: cancelled at once, never run, destroyed once, finally ran. */
static void
check_all_dropped(pending_work *w)
{
    int cancelled = 0, ran = 0;
    for (int i = 0; i < N; i++) {
        cancelled += vow_promise_state(w->ds[i]) == VOW_REJECTED && is_cancelled(w->ds[i]);
        ran += track_calls(w->t[i]);
    }
    CHECK_EQ_INT(cancelled, N);
    CHECK_EQ_INT(ran, 0);
    for (int i = 0; i < N; i++) {
        CHECK_DESTROYED_ONCE(w->t[i]);
        CHECK_EQ_INT(vow_wait(w->after[i], ts_wait_seconds(), NULL, NULL), VOW_REJECTED);
        CHECK_EQ_INT(track_calls(w->fin[i]), 1);
    }
}

static void
free_work(pending_work *w)
{
    for (int i = 0; i < N; i++) {
        vow_promise_release(w->ds[i]);
        vow_promise_release(w->after[i]);
    }
    vow_promise_release(w->p);
    vow_value_release(w->v);
}

static void
test_close_drops_queued_jobs(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    pending_work w;
    queue_work(&w, d);
    CHECK(g_main_context_pending(ctx));
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    check_all_dropped(&w);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_EALREADY);
    drain_context(ctx); /* nothing of d runs any more */
    int ran = 0;
    for (int i = 0; i < N; i++) ran += track_calls(w.t[i]);
    CHECK_EQ_INT(ran, 0);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
    free_work(&w);
}

/* The last g_main_context_unref closes the dispatcher: queued work is dropped; later work too. */
static void
test_destroying_the_context_closes(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    pending_work w;
    queue_work(&w, d);
    g_main_context_unref(ctx); /* the dispatcher holds no reference: the context goes now */
    check_all_dropped(&w);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_EALREADY);
    track *late = track_new();
    vow_promise *lp = vow_then_on(d, w.p, track_on_value_pass, NULL, late, track_destroy);
    CHECK(wait_cancelled(lp));
    CHECK_DESTROYED_ONCE(late);
    CHECK_EQ_INT(track_calls(late), 0);
    vow_promise_release(lp);
    vow_dispatcher_release(d);
    free_work(&w);
}

typedef struct late_submit {
    vow_dispatcher *d;
    vow_promise *p;
    track *t;
    vow_promise *out;
} late_submit;

static void *
submit_from_thread(void *arg)
{
    late_submit *ls = arg;
    ls->out = vow_then_on(ls->d, ls->p, track_on_value_pass, NULL, ls->t, track_destroy);
    return NULL;
}

static void
test_submits_after_close_are_dropped(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    g_main_context_unref(ctx); /* gone; d lives on */
    vow_value *v = vow_value_int(2);
    vow_promise *p = vow_promise_fulfilled(v);
    track *here = track_new(), *fn = track_new();
    vow_promise *a = vow_then_on(d, p, track_on_value_pass, NULL, here, track_destroy);
    vow_promise *b = vow_dispatch(d, track_on_value_pass, fn, track_destroy);
    late_submit ls = {.d = d, .p = p, .t = track_new()};
    pthread_t thread;
    pthread_create(&thread, NULL, submit_from_thread, &ls);
    pthread_join(thread, NULL);
    CHECK(wait_cancelled(a));
    CHECK(wait_cancelled(b));
    CHECK(wait_cancelled(ls.out));
    CHECK_DESTROYED_ONCE(here);
    CHECK_DESTROYED_ONCE(fn);
    CHECK_DESTROYED_ONCE(ls.t);
    CHECK_EQ_INT(track_calls(here) + track_calls(fn) + track_calls(ls.t), 0);
    vow_promise_release(a);
    vow_promise_release(b);
    vow_promise_release(ls.out);
    vow_promise_release(p);
    vow_value_release(v);
    vow_dispatcher_release(d);
}

typedef struct closer {
    vow_dispatcher *d;
    int close_status;
    atomic_int done;
} closer;

static void
close_from_job(void *ctx, const vow_value *value, vow_result *out)
{
    closer *c = ctx;
    (void)value;
    (void)out;
    c->close_status = vow_glib_dispatcher_close(c->d);
    atomic_store(&c->done, 1);
}

static void
test_close_from_inside_a_job(void)
{
    enum { BEFORE = 3, AFTER = 5 };
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    track *before[BEFORE], *after[AFTER];
    vow_promise *pb[BEFORE], *pa[AFTER];
    for (int i = 0; i < BEFORE; i++) {
        before[i] = track_new();
        pb[i] = vow_dispatch(d, track_on_value_pass, before[i], track_destroy);
    }
    closer c = {.d = d, .close_status = 1};
    vow_promise *pc = vow_dispatch(d, close_from_job, &c, NULL);
    for (int i = 0; i < AFTER; i++) {
        after[i] = track_new();
        pa[i] = vow_dispatch(d, track_on_value_pass, after[i], track_destroy);
    }
    CHECK(iterate_until(ctx, &c.done, 1));
    drain_context(ctx);
    CHECK_EQ_INT(c.close_status, VOW_OK);
    CHECK_EQ_INT(vow_promise_state(pc), VOW_FULFILLED);
    for (int i = 0; i < BEFORE; i++) CHECK_EQ_INT(track_calls(before[i]), 1);
    for (int i = 0; i < AFTER; i++) {
        CHECK_EQ_INT(track_calls(after[i]), 0);
        CHECK_DESTROYED_ONCE(after[i]);
        CHECK(is_cancelled(pa[i]));
    }
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
    for (int i = 0; i < BEFORE; i++) vow_promise_release(pb[i]);
    for (int i = 0; i < AFTER; i++) vow_promise_release(pa[i]);
    vow_promise_release(pc);
}

/* Releasing the last reference destroys the source: the context is left with nothing of d. */
static void
test_release_without_close(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, track_on_value_pass, t, track_destroy);
    vow_dispatcher_release(d); /* the queued job still holds it */
    CHECK(iterate_until(ctx, &t->calls, 1));
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    drain_context(ctx);
    /* No "vow dispatcher" source is left attached to ctx. */
    GSource *found = NULL;
    for (guint id = 1; id < 64 && found == NULL; id++) {
        GSource *s = g_main_context_find_source_by_id(ctx, id);
        if (s != NULL && g_strcmp0(g_source_get_name(s), "vow dispatcher") == 0 && !g_source_is_destroyed(s)) found = s;
    }
    CHECK_NULL(found);
    vow_promise_release(p);
    g_main_context_unref(ctx);
}

/* Another thread closes the dispatcher while the loop runs and 4 threads submit: every job
 * ran once or was dropped once, never both; the totals add up. */
enum { RACERS = 4 };

typedef struct race {
    loop_thread lt;
    vow_dispatcher *d;
    atomic_int ran;
    int per_thread;
} race;

typedef struct racer {
    race *r;
    track **tracks;
    vow_promise **promises;
    pthread_t thread;
} racer;

static void
race_job(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    race *r = t->data;
    (void)value;
    (void)out;
    track_hit(t);
    atomic_fetch_add(&r->ran, 1);
}

static void *
race_submit(void *arg)
{
    racer *rc = arg;
    for (int i = 0; i < rc->r->per_thread; i++) {
        rc->promises[i] = vow_dispatch(rc->r->d, race_job, rc->tracks[i], track_destroy);
        if (i % 8 == 0) sched_yield();
    }
    return NULL;
}

static void
test_close_races_with_submitters(void)
{
    race r;
    memset(&r, 0, sizeof r);
    r.per_thread = ts_small() ? 50 : 400;
    REQUIRE(loop_thread_start(&r.lt));
    r.d = vow_glib_dispatcher_new(r.lt.ctx);
    REQUIRE(r.d != NULL);
    int total = RACERS * r.per_thread;
    track **tracks = calloc((size_t)total, sizeof *tracks);
    vow_promise **promises = calloc((size_t)total, sizeof *promises);
    REQUIRE(tracks && promises);
    for (int k = 0; k < total; k++) {
        tracks[k] = track_new();
        tracks[k]->data = &r;
    }
    racer racers[RACERS];
    for (int i = 0; i < RACERS; i++) {
        racers[i] = (racer){.r = &r, .tracks = tracks + i * r.per_thread, .promises = promises + i * r.per_thread};
        pthread_create(&racers[i].thread, NULL, race_submit, &racers[i]);
    }
    wait_counter(&r.ran, total / 4, ts_wait_seconds());
    CHECK_EQ_INT(vow_glib_dispatcher_close(r.d), VOW_OK); /* from this thread, the loop running */
    int ran_at_close = atomic_load(&r.ran);
    for (int i = 0; i < RACERS; i++) pthread_join(racers[i].thread, NULL);
    int ran = 0, dropped = 0, other = 0, destroyed_once = 0;
    for (int k = 0; k < total; k++) {
        vow_error *e = NULL;
        vow_state s = vow_wait(promises[k], ts_wait_seconds(), NULL, &e);
        int calls = track_calls(tracks[k]);
        if (s == VOW_FULFILLED && calls == 1) ran++;
        else if (s == VOW_REJECTED && e != NULL && vow_error_is_cancelled(e) && calls == 0) dropped++;
        else other++;
        vow_error_release(e);
        wait_counter(&tracks[k]->destroyed, 1, ts_wait_seconds());
        destroyed_once += track_destroyed(tracks[k]) == 1;
        vow_promise_release(promises[k]);
    }
    CHECK_EQ_INT(ran + dropped, total);
    CHECK_EQ_INT(other, 0);
    CHECK_EQ_INT(ran, atomic_load(&r.ran));
    CHECK(ran <= ran_at_close + 1); /* at most the job running at close finishes after it */
    CHECK_EQ_INT(destroyed_once, total);
    free(tracks);
    free(promises);
    vow_dispatcher_release(r.d);
    loop_thread_stop(&r.lt);
    loop_thread_free(&r.lt);
}

TEST_MAIN_BEGIN("test_glib_close")
    RUN_TEST(test_close_drops_queued_jobs);
    RUN_TEST(test_destroying_the_context_closes);
    RUN_TEST(test_submits_after_close_are_dropped);
    RUN_TEST(test_close_from_inside_a_job);
    RUN_TEST(test_release_without_close);
    RUN_TEST(test_close_races_with_submitters);
TEST_MAIN_END
