/* test_glib_loop_timers.c: the GLib dispatcher times the library's timers with its context
 * (issue 33 item 1, vow_dispatcher_new_with_timers): vow_after and vow_timeout on a
 * context's dispatcher fire from a timeout GSource in that context, on its thread; a timer
 * no longer needed is destroyed at once; closing the dispatcher, or destroying the context,
 * with a timer armed cancels its promise and leaks nothing (valgrind, ASan). */
#define _GNU_SOURCE
#include "glib_support.h"

/* How many sources named "vow timer" ctx holds. */
static int
vow_timers(GMainContext *ctx)
{
    int n = 0;
    /* g_main_context_find_source_by_funcs_user_data cannot see names: count by a probe. */
    for (guint id = 1; id < 10000; id++) {
        GSource *s = g_main_context_find_source_by_id(ctx, id);
        if (s != NULL && g_strcmp0(g_source_get_name(s), "vow timer") == 0 && !g_source_is_destroyed(s)) n++;
    }
    return n;
}

typedef struct fired {
    pthread_t thread;
    atomic_int calls;
} fired;

static void
note_settled(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    fired *f = ctx;
    f->thread = pthread_self();
    atomic_fetch_add(&f->calls, 1);
}

static void
test_after_and_timeout_in_the_context(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    double t0 = now_seconds();
    vow_promise *after = vow_after(0.05);
    fired f = {0};
    vow_promise *seen = vow_then_on(vow_dispatcher_inline(), after, note_settled, NULL, &f, NULL);
    CHECK(iterate_until(ctx, &f.calls, 1));
    CHECK(now_seconds() - t0 >= 0.05);
    CHECK(pthread_equal(f.thread, pthread_self())); /* the context's thread */
    CHECK_EQ_INT(vow_promise_state(after), VOW_FULFILLED);
    CHECK_EQ_INT(vow_timers(ctx), 0);
    vow_promise_release(seen);
    vow_promise_release(after);

    /* A timeout that is no longer needed: its source is destroyed. */
    vow_resolver *r = NULL;
    vow_promise *quick = vow_promise_pending(&r);
    vow_promise *hour = vow_timeout(quick, 3600);
    drain_context(ctx);
    CHECK_EQ_INT(vow_timers(ctx), 1);
    vow_value *one = vow_value_int(1);
    vow_resolver_fulfill(r, one);
    vow_value_release(one);
    drain_context(ctx);
    CHECK_EQ_INT(vow_promise_state(hour), VOW_FULFILLED);
    CHECK_EQ_INT(vow_timers(ctx), 0);
    vow_promise_release(hour);
    vow_promise_release(quick);
    vow_resolver_release(r);

    /* Closing with a timer armed: its promise is cancelled, its source destroyed. */
    vow_promise *armed = vow_after(3600);
    drain_context(ctx);
    CHECK_EQ_INT(vow_timers(ctx), 1);
    vow_set_default_dispatcher(NULL);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(armed), VOW_REJECTED);
    vow_error *e = vow_promise_error(armed);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    CHECK_EQ_INT(vow_timers(ctx), 0);
    vow_promise_release(armed);
    vow_dispatcher_release(d);
    g_main_context_unref(ctx);
}

static void
test_context_destroyed_with_a_timer_armed(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    vow_set_default_dispatcher(d);
    vow_promise *armed = vow_after(3600);
    drain_context(ctx);
    vow_set_default_dispatcher(NULL);
    CHECK_EQ_INT(vow_timers(ctx), 1);
    g_main_context_unref(ctx); /* the last reference: its sources go, the timer's too */
    CHECK_EQ_INT(vow_promise_state(armed), VOW_REJECTED);
    vow_error *e = vow_promise_error(armed);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_EALREADY);
    vow_promise_release(armed);
    vow_dispatcher_release(d);
}

TEST_MAIN_BEGIN("test_glib_loop_timers")
    RUN_TEST(test_after_and_timeout_in_the_context);
    RUN_TEST(test_context_destroyed_with_a_timer_armed);
TEST_MAIN_END
