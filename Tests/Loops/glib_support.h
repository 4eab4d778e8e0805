/*
 * glib_support.h: what the GLib test programs share, on top of Tests/C/test_support.h
 * (included first: checks, trackers, bounded waits, the watchdog).
 *
 *   iterate_until(ctx, counter, target)   iterates ctx on this thread until *counter
 *                                         reaches target, within ts_wait_seconds()
 *                                         (a 10 ms tick bounds each blocking iteration).
 *   loop_thread                           a GMainLoop on a GMainContext of its own, run
 *                                         by a thread of its own (start / stop).
 */
#ifndef VOW_GLIB_SUPPORT_H
#define VOW_GLIB_SUPPORT_H

#include "test_support.h"

#include <glib.h>

#include "vow_glib.h"

static gboolean
ts_glib_tick(gpointer data)
{
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* Iterates ctx (NULL: the default context) until *counter >= target; 1 if reached in time. */
#define iterate_until(ctx, counter, target) ts_iterate_until((ctx), (counter), (target), __FILE__, __LINE__)
static inline int
ts_iterate_until(GMainContext *ctx, atomic_int *counter, int target, const char *file, int line)
{
    GSource *tick = g_timeout_source_new(10);
    g_source_set_callback(tick, ts_glib_tick, NULL, NULL);
    g_source_attach(tick, ctx);
    double end = now_seconds() + ts_wait_seconds();
    while (atomic_load(counter) < target && now_seconds() < end) g_main_context_iteration(ctx, TRUE);
    g_source_destroy(tick);
    g_source_unref(tick);
    return ts_check(atomic_load(counter) >= target, file, line, "the counter reached its target within the wait bound");
}

/* Runs ctx's pending work without blocking until nothing is ready (bounded). */
static inline void
drain_context(GMainContext *ctx)
{
    for (int i = 0; i < 10000 && g_main_context_iteration(ctx, FALSE); i++) {
    }
}

typedef struct loop_thread {
    GMainContext *ctx; /* the test's reference; the thread holds none */
    GMainLoop *loop;
    pthread_t thread;  /* the loop's thread */
    atomic_int running;
} loop_thread;

static gboolean
ts_glib_mark_running(gpointer data)
{
    atomic_store(&((loop_thread *)data)->running, 1);
    return G_SOURCE_REMOVE;
}

static inline void *
ts_glib_loop_main(void *arg)
{
    loop_thread *lt = arg;
    g_main_context_push_thread_default(lt->ctx);
    g_main_loop_run(lt->loop);
    g_main_context_pop_thread_default(lt->ctx);
    return NULL;
}

/* Starts the thread; returns once its loop runs (so that a quit cannot come too early). */
static inline int
loop_thread_start(loop_thread *lt)
{
    memset(lt, 0, sizeof *lt);
    lt->ctx = g_main_context_new();
    lt->loop = g_main_loop_new(lt->ctx, FALSE);
    GSource *mark = g_idle_source_new();
    g_source_set_callback(mark, ts_glib_mark_running, lt, NULL);
    g_source_attach(mark, lt->ctx);
    g_source_unref(mark);
    pthread_t t;
    if (pthread_create(&t, NULL, ts_glib_loop_main, lt) != 0) return 0;
    lt->thread = t;
    return wait_counter(&lt->running, 1, ts_wait_seconds());
}

/* Quits the loop, joins the thread; the context stays (loop_thread_free). */
static inline void
loop_thread_stop(loop_thread *lt)
{
    g_main_loop_quit(lt->loop); /* any thread */
    pthread_join(lt->thread, NULL);
    g_main_loop_unref(lt->loop);
    lt->loop = NULL;
}

static inline void
loop_thread_free(loop_thread *lt)
{
    if (lt->ctx != NULL) g_main_context_unref(lt->ctx);
    lt->ctx = NULL;
}

static inline int
ran_on(track *t, pthread_t thread)
{
    return atomic_load(&t->calls) > 0 && pthread_equal(t->thread, thread);
}

#endif /* VOW_GLIB_SUPPORT_H */
