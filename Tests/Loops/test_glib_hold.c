/* test_glib_hold.c: vow_glib_hold and vow_glib_run: iterate a GLib context exactly until the
 * held work is done, whatever settles it (a Vow timer, another thread). */
#define _GNU_SOURCE
#include "glib_support.h"

static void
record_and_pass(void *ctx, const vow_value *value, vow_result *out)
{
    track_hit(ctx);
    vow_result_return(out, value);
}

/* A guard so a broken run cannot hang the test: a timeout that closes the dispatcher. */
static gboolean
guard_close(gpointer d)
{
    vow_glib_dispatcher_close(d);
    return G_SOURCE_REMOVE;
}

static GSource *
add_guard(GMainContext *ctx, vow_dispatcher *d)
{
    GSource *guard = g_timeout_source_new((guint)(ts_wait_seconds() * 1000));
    g_source_set_callback(guard, guard_close, d, NULL);
    g_source_attach(guard, ctx);
    return guard;
}

static void
remove_guard(GSource *guard)
{
    g_source_destroy(guard);
    g_source_unref(guard);
}

static void
test_run_until_a_vow_timer(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    GSource *guard = add_guard(ctx, d);
    track *t = track_new();
    double start = now_seconds();
    vow_promise *later = vow_after(0.05);
    vow_promise *end = vow_then_on(d, later, record_and_pass, NULL, t, track_destroy);
    CHECK_EQ_INT(vow_glib_hold(d, end), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    CHECK(now_seconds() - start >= 0.045);
    CHECK_EQ_INT(vow_promise_state(end), VOW_FULFILLED); /* done when the run returned */
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(t->on_main); /* in the context, on this thread */
    /* Nothing held: returns at once. */
    start = now_seconds();
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    CHECK(now_seconds() - start < 1.0);
    remove_guard(guard);
    vow_promise_release(later);
    vow_promise_release(end);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
}

typedef struct late_settler {
    vow_resolver *r;
    double delay;
} late_settler;

static void *
settle_later(void *arg)
{
    late_settler *s = arg;
    sleep_seconds(s->delay);
    vow_value *v = vow_value_int(7);
    vow_resolver_fulfill(s->r, v);
    vow_value_release(v);
    return NULL;
}

static void
test_two_holds_from_other_threads(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    GSource *guard = add_guard(ctx, d);
    late_settler a = {.delay = 0.03}, b = {.delay = 0.12};
    vow_promise *pa = vow_promise_pending(&a.r), *pb = vow_promise_pending(&b.r);
    CHECK_EQ_INT(vow_glib_hold(d, pa), VOW_OK);
    CHECK_EQ_INT(vow_glib_hold(d, pb), VOW_OK);
    CHECK_EQ_INT(vow_glib_hold(d, pb), VOW_OK);
    double start = now_seconds();
    pthread_t ta, tb;
    pthread_create(&ta, NULL, settle_later, &a);
    pthread_create(&tb, NULL, settle_later, &b);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    CHECK(now_seconds() - start >= 0.11);
    CHECK_EQ_INT(vow_promise_state(pa), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(pb), VOW_FULFILLED);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    remove_guard(guard);
    vow_resolver_release(a.r);
    vow_resolver_release(b.r);
    vow_promise_release(pa);
    vow_promise_release(pb);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
}

/* A GMainLoop user quits the loop with vow_observe_on, as vow_glib.h shows. */
static void
quit_loop(void *loop)
{
    g_main_loop_quit(loop);
}

static void
test_main_loop_quit_by_observe(void)
{
    GMainContext *ctx = g_main_context_new();
    GMainLoop *loop = g_main_loop_new(ctx, FALSE);
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    GSource *guard = add_guard(ctx, d);
    vow_promise *p = vow_glib_timeout(d, 20);
    CHECK_EQ_INT(vow_observe_on(d, p, quit_loop, loop, NULL), VOW_OK);
    g_main_context_push_thread_default(ctx);
    g_main_loop_run(loop);
    g_main_context_pop_thread_default(ctx);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    remove_guard(guard);
    vow_promise_release(p);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_loop_unref(loop);
    g_main_context_unref(ctx);
}

/* Not a handler: an unhandled rejection is reported once. */
static void
test_unhandled_reported_once(void)
{
    unhandled_counter_install();
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    vow_error *e = vow_error_new("test.glib_hold", 4, "nobody handled this");
    vow_promise *rejected = vow_promise_rejected(e);
    vow_promise *late = vow_then(rejected, NULL, NULL, NULL, NULL);
    CHECK_EQ_INT(vow_glib_hold(d, late), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(late), VOW_REJECTED);
    vow_promise_release(late);
    vow_promise_release(rejected);
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("test.glib_hold", 4), 1);
    vow_error_release(e);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

/* Closing the dispatcher ends the holds (from a source of the same context here). */
static gboolean
close_now(gpointer d)
{
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    return G_SOURCE_REMOVE;
}

/* Inside one of d's own callbacks, vow_glib_run refuses (it could never end). */
static void
run_inside(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    track *t = ctx;
    track_hit(t);
    t->data = (void *)(intptr_t)vow_glib_run(t->data);
}

static void
test_close_and_misuse(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    vow_resolver *r = NULL;
    vow_promise *never = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_glib_hold(d, never), VOW_OK);
    /* A callback of d that tries to run d: refused at once. */
    track *t = track_new();
    t->data = d;
    vow_promise *inside = vow_dispatch(d, run_inside, t, track_destroy);
    GSource *closer = g_timeout_source_new(30);
    g_source_set_callback(closer, close_now, d, NULL);
    g_source_attach(closer, ctx);
    g_source_unref(closer);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK); /* ended by the close */
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT((intptr_t)t->data, VOW_EINVAL);
    CHECK_EQ_INT(vow_promise_state(never), VOW_PENDING);
    CHECK_EQ_INT(vow_glib_hold(d, never), VOW_EALREADY);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    vow_value *v = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    vow_value_release(v);
    CHECK_EQ_INT(vow_glib_hold(NULL, never), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_hold(vow_dispatcher_default(), never), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_run(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_run(vow_dispatcher_default()), VOW_EINVAL);
    vow_promise_release(inside);
    vow_resolver_release(r);
    vow_promise_release(never);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);

    /* A p that is not a promise: EINVAL with a misuse line; nothing held. */
    ctx = g_main_context_new();
    d = vow_glib_dispatcher_new(ctx);
    v = vow_value_int(2);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    int rc = vow_glib_hold(d, (vow_promise *)v);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(rc, VOW_EINVAL);
    CHECK_EQ_INT(count_lines_containing(text, "expected a vow_promise, got a vow_value"), 1);
    free(text);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK); /* returns at once */
    vow_value_release(v);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
}

TEST_MAIN_BEGIN("test_glib_hold")
    RUN_TEST(test_run_until_a_vow_timer);
    RUN_TEST(test_two_holds_from_other_threads);
    RUN_TEST(test_main_loop_quit_by_observe);
    RUN_TEST(test_unhandled_reported_once);
    RUN_TEST(test_close_and_misuse);
TEST_MAIN_END
