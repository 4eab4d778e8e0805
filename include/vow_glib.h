/*
 * vow_glib.h: Vow on a GLib main context. A dispatcher whose jobs run in the
 * thread that iterates a GMainContext (g_main_loop_run, g_main_context_iteration),
 * through a GSource attached to that context.
 *
 *     cc app.c $(pkg-config --cflags --libs vow-glib)
 *
 * links libvow-glib.a (this bridge), GLib and GIO (2.64 or later; GIO for
 * GCancellable and GAsyncResult, used by vow_glib_async) and libvow.so.
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
 * wakes nobody (its source is never ready while no job is queued). To run
 * exactly until some work is done, hold its promise and run the dispatcher:
 * `vow_glib_hold(d, p); vow_glib_run(d);` (below).
 *
 * Closing. The dispatcher stops running jobs when it is closed with
 * vow_glib_dispatcher_close, when its context is destroyed (the last
 * g_main_context_unref), or when its last reference goes. Jobs still queued
 * then, and jobs submitted afterwards, are dropped with vow_job_drop: their
 * callbacks never run, their destroy functions run once, the promises they
 * would have settled are cancelled. A closed dispatcher never touches its
 * context again, so it may outlive it.
 *
 * Time. The dispatcher brings the context's own timers
 * (vow_dispatcher_new_with_timers): vow_after, vow_timeout, vow_delay and
 * vow_retry's pauses called where d is the default dispatcher
 * (vow_set_default_dispatcher(d)), and Swift's after(seconds:on: d), timeout,
 * delay and retry likewise, each attach a timeout GSource (named "vow
 * timer"; g_timeout_source_new, whole seconds beyond 49 days, never early)
 * to the context and fire in the context's thread, on GLib's monotonic
 * clock, not the library's real clock. A timer no longer needed (its
 * promise settled or was cancelled) is destroyed at once. Closing the
 * dispatcher, or destroying its context, destroys every timer still armed
 * and cancels its promise (a vow_after rejects with VOW_ERROR_CANCELLED).
 * (Before 0.3.0 these timers ran on the library's real clock.)
 *
 * The bridge knows its dispatchers by their context
 * (vow_dispatcher_host_context), as vow_uv.h says ("Finding the state").
 * (vow_uv.h's debug-mode line for a loop that ends with promises pending
 * has no GLib counterpart: a GMainLoop does not end by itself; a program
 * that forgets vow_glib_hold waits in vow_glib_run for nothing instead of
 * returning early: vow_glib_run returns at once when nothing is held.)
 */
#ifndef VOW_GLIB_H
#define VOW_GLIB_H

#include <gio/gio.h>
#include <glib.h>

#include "vow.h"

VOW_BEGIN_DECLS

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

/* ======================================================================
 * Running until a promise settles
 * ====================================================================== */

/**
 * Holds d until p settles: vow_glib_run(d) iterates d's context for as long
 * as a hold on d lasts. (A GMainLoop never ends by itself, so where libuv's
 * uv_run returns when nothing is left, GLib needs a caller that iterates
 * until the work is done: vow_glib_run is that caller, GIO's
 * `while (!done) g_main_context_iteration (context, TRUE);`.) Hold the last
 * promise of the work. A hold watches p with vow_observe_on: it is not a
 * handler (p's rejection, unhandled, is still reported once), does not keep
 * p wanted or alive, and starts a lazy p. When p settles the hold ends in
 * d's context, after the callbacks d already had queued.
 *
 * A program that runs a GMainLoop instead quits it itself when p settles,
 * without becoming a handler either:
 * `vow_observe_on(d, p, quit_loop, loop, NULL)` with
 * `static void quit_loop(void *loop) { g_main_loop_quit(loop); }`.
 *
 * Holds count: holding a second promise (or the same one twice) lasts until
 * both holds ended. Closing d, or destroying its context, ends every hold.
 * Returns VOW_OK (p already settled: the hold ends at the context's next
 * iteration); VOW_EINVAL for NULL d or p, a dispatcher that
 * vow_glib_dispatcher_new did not make, or a p that is not a vow_promise (a
 * misuse line from vow_observe_on); VOW_EALREADY if d was closed (nothing is
 * held). Any thread.
 */
VOW_EXTERN int
vow_glib_hold(vow_dispatcher *VOW_NULLABLE d, vow_promise *VOW_NULLABLE p);

/**
 * Iterates d's context (g_main_context_iteration, blocking) until no hold on
 * d lasts, so it returns exactly when the held work is done: the GLib
 * counterpart of uv_run(loop, UV_RUN_DEFAULT) with vow_uv_hold. Returns at
 * once when nothing is held. Every source of the context runs meanwhile, not
 * only d's. Closing d, or destroying its context, ends the holds and so the
 * run.
 *
 * Returns VOW_OK when no hold is left (or d was closed); VOW_EINVAL for NULL
 * d, a dispatcher that vow_glib_dispatcher_new did not make, a context that
 * another thread owns (g_main_context_acquire failed), or a call from inside
 * one of d's own callbacks (d's source cannot run again while it is
 * dispatching: the run would never end). Call it on the thread that iterates
 * the context, or while no thread does.
 */
VOW_EXTERN int
vow_glib_run(vow_dispatcher *VOW_NULLABLE d);

/* ======================================================================
 * GLib sources and GIO calls as promises
 *
 * Each call returns a promise (+1) settled in d's context. Cancelling it
 * (vow_cancel, a vow_timeout, a race it lost) stops what it waits for: the
 * timeout's GSource is destroyed, the GIO call's GCancellable is cancelled.
 * Closing d cancels what it started that is still pending, the same way.
 * NULL d, a dispatcher that vow_glib_dispatcher_new did not make or that was
 * closed, or a NULL function return NULL (a destroy given runs before the
 * call returns).
 * ====================================================================== */

/**
 * A GLib timeout in d's context (g_timeout_source_new): fulfils with the NULL
 * value interval_ms milliseconds from now. Cancelling the promise destroys
 * the source. Any thread.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_glib_timeout(vow_dispatcher *VOW_NULLABLE d, guint interval_ms);

/**
 * Starts a GIO-style asynchronous call: called once, inside vow_glib_async,
 * with d's context pushed as the thread-default context. It must start one
 * `_async` call with cancellable, callback and user_data, as in
 * `g_file_load_contents_async(ctx, cancellable, callback, user_data)`, or
 * arrange for callback(source, result, user_data) to be called exactly once
 * in that context some other way (every GIO _async function does).
 */
typedef void (*vow_glib_start)(void *VOW_NULLABLE ctx, GCancellable *VOW_NULLABLE cancellable,
                               GAsyncReadyCallback VOW_NULLABLE callback, gpointer VOW_NULLABLE user_data);

/**
 * Finishes it: called once, in d's context, with the GAsyncResult (borrowed);
 * calls the matching `_finish` and returns the value to fulfil with (+1, the
 * reference passes to the library; NULL: the NULL value), or sets *error and
 * returns NULL to reject (a value returned with *error set is released).
 */
typedef vow_value *VOW_NULLABLE (*vow_glib_finish)(void *VOW_NULLABLE ctx, GObject *VOW_NULLABLE source_object,
                                                   GAsyncResult *VOW_NULLABLE result,
                                                   GError *VOW_NULLABLE *VOW_NULLABLE error);

/**
 * Any `_async` / `_finish` pair as a promise: start(ctx, cancellable,
 * callback, user_data) runs now; when GIO calls back, finish(ctx, source,
 * result, &error) runs and its value fulfils the promise, or its GError
 * rejects it with domain g_quark_to_string(error->domain) (for instance
 * "g-io-error-quark"), code error->code and message error->message.
 * Cancelling the promise cancels the GCancellable handed to start; GIO then
 * calls back with G_IO_ERROR_CANCELLED (or with a result that came first),
 * finish still runs, and what it made is released. destroy(ctx) runs exactly
 * once, in d's context right after finish ran; when this call fails, before
 * it returns (start never runs then).
 *
 * Call it on the thread that iterates d's context (or while no thread does):
 * it acquires the context to push it as the thread-default, which GIO uses to
 * call back there. A context that another thread owns returns NULL: start
 * never runs, destroy runs before the call returns, one misuse line says so
 * ("vow: vow_glib_async: another thread owns d's context ..."), and no error
 * is reported (no promise was handed out, so none is left to reject).
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_glib_async(vow_dispatcher *VOW_NULLABLE d, vow_glib_start VOW_NULLABLE start, vow_glib_finish VOW_NULLABLE finish,
               void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/* ======================================================================
 * Debug sites: the _site twins of the calls above, as vow.h's, made from
 * this table as vow_uv.h's VOW_UV_PROMISE_MAKERS.
 * ====================================================================== */

/** The promise-returning calls of this header: see VOW_UV_PROMISE_MAKERS (vow_uv.h). */
#define VOW_GLIB_PROMISE_MAKERS(X)                                                                          \
    X(vow_glib_timeout, (vow_dispatcher *VOW_NULLABLE d, guint interval_ms), (d, interval_ms))              \
    X(vow_glib_async,                                                                                       \
      (vow_dispatcher *VOW_NULLABLE d, vow_glib_start VOW_NULLABLE start, vow_glib_finish VOW_NULLABLE finish, \
       void *VOW_NULLABLE ctx, void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                       \
      (d, start, finish, ctx, destroy))                                                                     \
    /* (every row ends with a backslash; the table ends here) */

VOW_GLIB_PROMISE_MAKERS(VOW_DECLARE_SITE_TWIN_)

VOW_END_DECLS

/* VOW_DEBUG_SITES: as vow.h's (vow_uv.h). */
/* BEGIN generated by scripts/generate-bridge-sites.sh from VOW_GLIB_PROMISE_MAKERS: do not edit */
#ifdef VOW_DEBUG_SITES
#  define vow_glib_timeout(...) vow_glib_timeout_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_glib_async(...)   vow_glib_async_site(__FILE__, __LINE__, __VA_ARGS__)
#endif
/* END generated */

#endif /* VOW_GLIB_H */
