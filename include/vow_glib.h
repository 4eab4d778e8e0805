/*
 * vow_glib.h: Vow on a GLib main context. A dispatcher whose jobs run in the
 * thread that iterates a GMainContext (g_main_loop_run, g_main_context_iteration),
 * through a GSource attached to that context.
 *
 *     cc app.c $(pkg-config --cflags --libs vow-glib)
 *
 * links libvow-glib.a (this bridge), GLib (2.64 or later) and libvow.so.
 * libvow.so itself does not depend on GLib. The conventions of vow.h hold
 * here too (+1 returns, borrowed arguments, NULL never crashes, status codes).
 *
 *     GMainLoop *loop = g_main_loop_new(NULL, FALSE);
 *     vow_dispatcher *d = vow_glib_dispatcher_new(NULL);   // the default context
 *     ... vow_then_on(d, p, on_value, on_error, ctx, destroy) ...
 *     g_main_loop_run(loop);           // callbacks run in here; g_main_loop_quit ends it
 *     vow_glib_dispatcher_close(d);    // later jobs are dropped: their promises are cancelled
 *     vow_dispatcher_release(d);
 *
 * A GMainLoop runs until g_main_loop_quit: the dispatcher never quits it and
 * never needs it to run longer than the program wants; an idle dispatcher
 * wakes nobody (its source is never ready while no job is queued).
 *
 * Closing. The dispatcher stops running jobs when it is closed with
 * vow_glib_dispatcher_close, when its context is destroyed (the last
 * g_main_context_unref), or when its last reference goes. Jobs still queued
 * then, and jobs submitted afterwards, are dropped with vow_job_drop: their
 * callbacks never run, their destroy functions run once, the promises they
 * would have settled are cancelled. A closed dispatcher never touches its
 * context again, so it may outlive it.
 */
#ifndef VOW_GLIB_H
#define VOW_GLIB_H

#include <glib.h>

#include "vow.h"

#if defined(__clang__)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wnullability-extension"
#  pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A dispatcher whose jobs run in context's loop, in submission order, one at
 * a time, in the thread that iterates context (the one that holds it, as
 * g_main_context_acquire says). NULL context means the global default context
 * (g_main_context_default). Submission (any promise settling, any callback
 * registered with this dispatcher) is safe from any thread: the job is queued
 * and the dispatcher's GSource (priority G_PRIORITY_DEFAULT, named
 * "vow dispatcher") is made ready, which wakes the context. Each dispatch of
 * the source runs the jobs that were queued when it began, so a chain that
 * keeps queueing work lets the context's other sources run in between.
 *
 * Returns +1: release it with vow_dispatcher_release. Promises and callbacks
 * that use it hold references of their own, and every queued job keeps it
 * alive too. The dispatcher does not keep context alive: destroying the
 * context closes the dispatcher (see the top of this header). When the last
 * reference goes, the GSource is destroyed (from whichever thread let go).
 *
 * Any thread. A library out of memory returns NULL (nothing was attached).
 */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_glib_dispatcher_new(GMainContext *VOW_NULLABLE context);

/**
 * Closes a dispatcher made by vow_glib_dispatcher_new: destroys its GSource
 * (g_source_destroy) and drops what is queued. Any thread, while you hold a
 * reference to d; from inside a job of d too. When it returns:
 * - the jobs still queued were dropped with vow_job_drop, oldest first, on
 *   this thread: their callbacks never run, their destroy functions run once,
 *   the promises they would have settled are cancelled;
 * - a job submitted from now on, from any thread, is dropped the same way, at
 *   once, inside the call that submitted it;
 * - no job of d starts any more; called from another thread while the
 *   context's thread is running a job of d, that one job finishes.
 * Does not release d: vow_dispatcher_release it as usual. If d is the
 * default dispatcher (vow_set_default_dispatcher), it stays the default
 * until replaced, and drops what reaches it.
 *
 * Returns VOW_OK; VOW_EALREADY if d was closed before, by this function or
 * because its context was destroyed (the queue was dropped then; nothing
 * happens now); VOW_EINVAL for NULL or a dispatcher that
 * vow_glib_dispatcher_new did not make (nothing happens). Each copy of
 * libvow-glib.a knows the dispatchers it made: close a dispatcher from the
 * program or shared library that made it.
 */
VOW_EXTERN int
vow_glib_dispatcher_close(vow_dispatcher *VOW_NULLABLE d);

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

#endif /* VOW_GLIB_H */
