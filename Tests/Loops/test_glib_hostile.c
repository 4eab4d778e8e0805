/* test_glib_hostile.c: the GLib bridge used the way a careless user or an attacker would,
 * each check taken from vow_glib.h's words (issue 32): bad arguments, vow_glib_run from
 * inside a callback and from a thread that does not own the context, timeouts of 0 and
 * G_MAXUINT, a finish that returns a value and sets an error, closing and destroying the
 * context with requests pending. Nothing crashes or leaks (plain, valgrind, ASan). */
#define _GNU_SOURCE
#define VOW_NO_NONNULL
#include "glib_support.h"

static atomic_int lines;
static void count_line(void *ctx, const char *line) { (void)ctx; (void)line; atomic_fetch_add(&lines, 1); }

static void run_inside(void *ctx, const vow_value *v, vow_result *out) {
    (void)v; (void)out;
    CHECK_EQ_INT(vow_glib_run(ctx), VOW_EINVAL); /* from inside d's own callback */
}

/* start completes a GTask at once (GIO calls back from an idle of the thread-default
   context); finish returns a value and sets an error */
static void start_sync(void *ctx, GCancellable *c, GAsyncReadyCallback cb, gpointer data) {
    (void)ctx;
    (void)c;
    GTask *task = g_task_new(NULL, NULL, cb, data);
    g_task_return_int(task, 5);
    g_object_unref(task);
}
static atomic_int both_freed;
static void both_gone(void *p) { (void)p; atomic_fetch_add(&both_freed, 1); }
static vow_value *finish_both(void *ctx, GObject *src, GAsyncResult *res, GError **error) {
    (void)ctx; (void)src;
    g_task_propagate_int(G_TASK(res), NULL);
    g_set_error(error, g_quark_from_static_string("hostile-quark"), 4, "both");
    return vow_value_pointer(&both_freed, both_gone);
}

static void
t_glib_misuse(void)
{
    vow_set_misuse_handler(count_line, NULL, NULL);
    atomic_store(&lines, 0);
    unhandled_counter_install();
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    CHECK_EQ_INT(vow_glib_dispatcher_close(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_dispatcher_close(vow_dispatcher_default()), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_run(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_run(vow_dispatcher_default()), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK); /* nothing held: at once */
    vow_value *v = vow_value_int(1);
    vow_promise *done = vow_promise_fulfilled(v);
    CHECK_EQ_INT(vow_glib_hold(NULL, done), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_hold(d, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_glib_hold(d, (vow_promise *)v), VOW_EINVAL);
    CHECK_EQ_INT(atomic_load(&lines), 1);
    CHECK_EQ_INT(vow_glib_hold(d, done), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    /* run from inside d's callback */
    vow_promise *j = vow_then_on(d, done, run_inside, NULL, d, NULL);
    CHECK_EQ_INT(vow_glib_hold(d, j), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    vow_promise_release(j);
    /* timeout 0, and a cancelled long one */
    vow_promise *t0 = vow_glib_timeout(d, 0);
    vow_promise *tl = vow_glib_timeout(d, G_MAXUINT);
    vow_cancel(tl);
    CHECK_EQ_INT(vow_glib_hold(d, t0), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(t0), VOW_FULFILLED);
    CHECK(vow_promise_is_cancelled(tl));
    vow_promise_release(t0);
    vow_promise_release(tl);
    /* finish returns a value and sets an error: the error wins, the value is released */
    atomic_store(&both_freed, 0);
    track *tr = track_new();
    vow_promise *both = vow_glib_async(d, start_sync, finish_both, tr, track_destroy);
    REQUIRE(both != NULL);
    CHECK_EQ_INT(vow_glib_hold(d, both), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    vow_error *e = vow_promise_error(both);
    CHECK(e && strcmp(vow_error_domain(e), "hostile-quark") == 0 && vow_error_code(e) == 4);
    vow_error_release(e);
    CHECK_EQ_INT(vow_wait(both, 0, NULL, NULL), VOW_REJECTED);
    CHECK_EQ_INT(atomic_load(&both_freed), 1);
    CHECK_DESTROYED_ONCE(tr);
    vow_promise_release(both);
    /* a pending timeout when the context is destroyed: cancelled */
    vow_promise *pending = vow_glib_timeout(d, 100000);
    vow_glib_dispatcher_close(d);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_EALREADY);
    CHECK(vow_promise_is_cancelled(pending));
    CHECK(vow_glib_timeout(d, 1) == NULL);
    CHECK_EQ_INT(vow_glib_hold(d, done), VOW_EALREADY);
    vow_promise_release(pending);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);
    /* a context destroyed under a live dispatcher: it closes */
    GMainContext *ctx2 = g_main_context_new();
    vow_dispatcher *d2 = vow_glib_dispatcher_new(ctx2);
    vow_promise *p2 = vow_glib_timeout(d2, 100000);
    g_main_context_unref(ctx2);
    CHECK(vow_promise_is_cancelled(p2));
    CHECK_EQ_INT(vow_glib_dispatcher_close(d2), VOW_EALREADY);
    vow_promise_release(p2);
    vow_dispatcher_release(d2);
    vow_promise_release(done);
    vow_value_release(v);
    flush_default();
    /* the three cancelled timeouts nobody handled (asking is_cancelled does not handle) */
    CHECK_EQ_INT(unhandled_count(), 3);
    CHECK_EQ_INT(unhandled_count_matching("vow", VOW_ERROR_CANCELLED), 3);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

/* vow_glib_run from a thread that does not own the context */
static void
t_glib_run_elsewhere(void)
{
    loop_thread lt;
    REQUIRE(loop_thread_start(&lt));
    vow_dispatcher *d = vow_glib_dispatcher_new(lt.ctx);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    CHECK_EQ_INT(vow_glib_hold(d, p), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_EINVAL);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    loop_thread_stop(&lt);
    drain_context(lt.ctx);
    loop_thread_free(&lt);
    vow_resolver_release(r);
    vow_promise_release(p);
}

TEST_MAIN_BEGIN("test_glib_hostile")
RUN_TEST(t_glib_misuse);
RUN_TEST(t_glib_run_elsewhere);
TEST_MAIN_END
