/* test_uv_close.c: closing a libuv dispatcher with work pending. Queued jobs and jobs
 * submitted later are dropped (their promises cancelled, their destroys run once, their
 * callbacks never run), nothing is left open on the loop (uv_loop_close returns 0), and
 * the dispatcher may outlive its loop. */
#define _GNU_SOURCE
#include "uv_support.h"

static int
is_cancelled(vow_promise *p)
{
    vow_error *e = vow_promise_error(p);
    int cancelled = e != NULL && vow_error_is_cancelled(e);
    vow_error_release(e);
    return cancelled;
}

/* Waits (bounded) until p settles; 1 if it was cancelled. */
static int
wait_cancelled(vow_promise *p)
{
    vow_error *e = NULL;
    vow_state s = vow_wait(p, ts_wait_seconds(), NULL, &e);
    int cancelled = s == VOW_REJECTED && e != NULL && vow_error_is_cancelled(e);
    vow_error_release(e);
    return cancelled;
}

static void
test_close_drops_queued_jobs(void)
{
    enum { N = 10 };
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    track *t[N], *fin[N];
    vow_promise *ds[N], *after[N];
    for (int i = 0; i < N; i++) {
        t[i] = track_new();
        fin[i] = track_new();
        ds[i] = i % 2 ? vow_then_on(d, p, track_on_value_pass, NULL, t[i], track_destroy)
                      : vow_dispatch(d, track_on_value_pass, t[i], track_destroy);
        /* finally on the library's own queue: runs although d never runs anything */
        after[i] = vow_finally(ds[i], track_fn, fin[i], track_destroy);
    }
    CHECK(uv_loop_alive(&tl.loop));
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    /* Dropped before close returned: cancelled at once, never run, destroyed once. */
    int cancelled = 0, ran = 0;
    for (int i = 0; i < N; i++) {
        cancelled += vow_promise_state(ds[i]) == VOW_REJECTED && is_cancelled(ds[i]);
        ran += track_calls(t[i]);
    }
    CHECK_EQ_INT(cancelled, N);
    CHECK_EQ_INT(ran, 0);
    for (int i = 0; i < N; i++) CHECK_DESTROYED_ONCE(t[i]);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(vow_wait(after[i], ts_wait_seconds(), NULL, NULL), VOW_REJECTED);
        CHECK_EQ_INT(track_calls(fin[i]), 1);
    }
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_EALREADY);
    CHECK(run_bounded(&tl)); /* the handle's close callback */
    int still_ran = 0;
    for (int i = 0; i < N; i++) still_ran += track_calls(t[i]);
    CHECK_EQ_INT(still_ran, 0);
    vow_dispatcher_release(d);
    close_loop(&tl);
    for (int i = 0; i < N; i++) {
        vow_promise_release(ds[i]);
        vow_promise_release(after[i]);
    }
    vow_promise_release(p);
    vow_value_release(v);
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

/* After close (and after uv_loop_close), jobs are dropped on the background pool, from
 * any thread, without touching the loop. */
static void
test_submits_after_close_are_dropped(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    close_loop(&tl); /* the loop is gone; d lives on */

    vow_value *v = vow_value_int(2);
    vow_promise *p = vow_promise_fulfilled(v);
    track *here = track_new();
    vow_promise *a = vow_then_on(d, p, track_on_value_pass, NULL, here, track_destroy);
    track *fn = track_new();
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

/* A job that closes its own dispatcher: the jobs queued behind it never run. */
typedef struct closer {
    vow_dispatcher *d;
    int close_status;
} closer;

static void
close_from_job(void *ctx, const vow_value *value, vow_result *out)
{
    closer *c = ctx;
    (void)value;
    (void)out;
    c->close_status = vow_uv_dispatcher_close(c->d);
}

static void
test_close_from_inside_a_job(void)
{
    enum { BEFORE = 3, AFTER = 5 };
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
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
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(c.close_status, VOW_OK);
    CHECK_EQ_INT(vow_promise_state(pc), VOW_FULFILLED);
    for (int i = 0; i < BEFORE; i++) {
        CHECK_EQ_INT(track_calls(before[i]), 1);
        CHECK_EQ_INT(vow_promise_state(pb[i]), VOW_FULFILLED);
    }
    for (int i = 0; i < AFTER; i++) {
        CHECK_EQ_INT(track_calls(after[i]), 0);
        CHECK_DESTROYED_ONCE(after[i]);
        CHECK(is_cancelled(pa[i]));
    }
    vow_dispatcher_release(d);
    close_loop(&tl);
    for (int i = 0; i < BEFORE; i++) vow_promise_release(pb[i]);
    for (int i = 0; i < AFTER; i++) vow_promise_release(pa[i]);
    vow_promise_release(pc);
}

typedef struct settler {
    vow_resolver *r;
} settler;

static void *
settle_later(void *arg)
{
    settler *s = arg;
    sleep_seconds(0.01);
    vow_value *v = vow_value_int(9);
    vow_resolver_fulfill(s->r, v);
    vow_value_release(v);
    return NULL;
}

/* A callback registered on a promise that settles after the loop closed: the registration
 * keeps the dispatcher alive, the job is dropped, the derived promise is cancelled. */
static void
test_registration_outlives_the_loop(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    settler s;
    vow_promise *p = vow_promise_pending(&s.r);
    track *t = track_new();
    vow_promise *dp = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d); /* the registration still holds it */
    close_loop(&tl);
    pthread_t thread;
    pthread_create(&thread, NULL, settle_later, &s);
    CHECK(wait_cancelled(dp));
    pthread_join(thread, NULL);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_promise_release(dp);
    vow_promise_release(p);
    vow_resolver_release(s.r);
}

/* Releasing the last reference on the loop thread without closing closes the handle. */
static void
test_release_without_close(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, track_on_value_pass, t, track_destroy);
    vow_dispatcher_release(d); /* the queued job still holds it */
    CHECK(run_bounded(&tl));  /* the job runs; the last reference goes with it, here */
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    vow_promise_release(p);
    close_loop(&tl);
}

/* The last reference released on another thread than the loop's: the loop closes the handle
 * when it next wakes. */
typedef struct remote_loop {
    test_loop tl;
    uv_async_t keepalive;
    vow_dispatcher *d;
    atomic_int ready;
    int close_ok;
} remote_loop;

static void
stop_keepalive(uv_async_t *keepalive)
{
    uv_close((uv_handle_t *)keepalive, NULL);
}

static void *
remote_loop_main(void *arg)
{
    remote_loop *rl = arg;
    test_loop_init(&rl->tl);
    uv_async_init(&rl->tl.loop, &rl->keepalive, stop_keepalive);
    rl->d = vow_uv_dispatcher_new(&rl->tl.loop);
    atomic_store(&rl->ready, 1);
    run_bounded(&rl->tl); /* never vow_uv_dispatcher_close'd */
    uv_close((uv_handle_t *)&rl->tl.guard, NULL);
    uv_run(&rl->tl.loop, UV_RUN_DEFAULT);
    rl->close_ok = uv_loop_close(&rl->tl.loop) == 0;
    if (!rl->close_ok) uv_print_all_handles(&rl->tl.loop, stderr);
    return NULL;
}

static void
test_release_off_the_loop_thread(void)
{
    remote_loop rl;
    memset(&rl, 0, sizeof rl);
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, remote_loop_main, &rl) == 0);
    CHECK(wait_counter(&rl.ready, 1, ts_wait_seconds()));
    REQUIRE(rl.d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(rl.d, track_on_value_pass, t, track_destroy);
    CHECK_EQ_INT(wait_promise(p, NULL, NULL), VOW_FULFILLED);
    CHECK_DESTROYED_ONCE(t); /* the job is finished: only our reference is left */
    vow_promise_release(p);
    vow_dispatcher_release(rl.d); /* here, off the loop thread */
    sleep_seconds(0.02);          /* the loop wakes and closes the handle meanwhile */
    uv_async_send(&rl.keepalive);
    pthread_join(thread, NULL);
    CHECK(rl.close_ok);
}

/* Threads submit while the loop thread closes the dispatcher: every job ran once or was
 * dropped once, never both; the totals add up exactly. */
enum { RACERS = 4 };

typedef struct race {
    test_loop tl;
    uv_async_t keepalive;
    vow_dispatcher *d;
    atomic_int ran;
    int close_after;
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
    if (atomic_fetch_add(&r->ran, 1) + 1 == r->close_after) {
        vow_uv_dispatcher_close(r->d);
        uv_close((uv_handle_t *)&r->keepalive, NULL);
    }
}

static void *
race_submit(void *arg)
{
    racer *rc = arg;
    for (int i = 0; i < rc->r->per_thread; i++) rc->promises[i] = vow_dispatch(rc->r->d, race_job, rc->tracks[i], track_destroy);
    return NULL;
}

static void
test_close_races_with_submitters(void)
{
    race r;
    memset(&r, 0, sizeof r);
    r.per_thread = ts_small() ? 50 : 400;
    r.close_after = RACERS * r.per_thread / 3;
    REQUIRE(test_loop_init(&r.tl));
    uv_async_init(&r.tl.loop, &r.keepalive, NULL);
    r.d = vow_uv_dispatcher_new(&r.tl.loop);
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
    CHECK(run_bounded(&r.tl));
    for (int i = 0; i < RACERS; i++) pthread_join(racers[i].thread, NULL);
    int ran = 0, dropped = 0, both = 0, destroyed_once = 0;
    for (int k = 0; k < total; k++) {
        vow_error *e = NULL;
        vow_state s = vow_wait(promises[k], ts_wait_seconds(), NULL, &e);
        int calls = track_calls(tracks[k]);
        if (s == VOW_FULFILLED && calls == 1) ran++;
        else if (s == VOW_REJECTED && e != NULL && vow_error_is_cancelled(e) && calls == 0) dropped++;
        else both++;
        vow_error_release(e);
        wait_counter(&tracks[k]->destroyed, 1, ts_wait_seconds());
        destroyed_once += track_destroyed(tracks[k]) == 1;
        vow_promise_release(promises[k]);
    }
    CHECK_EQ_INT(ran + dropped, total);
    CHECK_EQ_INT(both, 0);
    CHECK_EQ_INT(ran, atomic_load(&r.ran));
    CHECK(ran >= r.close_after);
    CHECK_EQ_INT(destroyed_once, total);
    free(tracks);
    free(promises);
    vow_dispatcher_release(r.d);
    close_loop(&r.tl);
}

TEST_MAIN_BEGIN("test_uv_close")
    RUN_TEST(test_close_drops_queued_jobs);
    RUN_TEST(test_submits_after_close_are_dropped);
    RUN_TEST(test_close_from_inside_a_job);
    RUN_TEST(test_registration_outlives_the_loop);
    RUN_TEST(test_release_without_close);
    RUN_TEST(test_release_off_the_loop_thread);
    RUN_TEST(test_close_races_with_submitters);
TEST_MAIN_END
