/*
 * vow_uv.h: Vow on a libuv loop. A dispatcher whose jobs run on the thread
 * that runs uv_run(loop, ...), woken from any thread through a uv_async_t.
 *
 *     cc app.c $(pkg-config --cflags --libs vow-uv)
 *
 * links libvow-uv.a (this bridge), libuv and libvow.so. libvow.so itself
 * does not depend on libuv. The conventions of vow.h hold here too (+1
 * returns, borrowed arguments, NULL never crashes, status codes). uv.h needs
 * POSIX declarations: under a strict -std=c99 or -std=c11, define
 * _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before the first #include.
 *
 * A loop's life with a Vow dispatcher:
 *
 *     uv_loop_t loop;
 *     uv_loop_init(&loop);
 *     vow_dispatcher *d = vow_uv_dispatcher_new(&loop);   // on the loop thread
 *     ... vow_then_on(d, p, on_value, on_error, ctx, destroy) ...
 *     uv_run(&loop, UV_RUN_DEFAULT);                       // callbacks run in here
 *     vow_uv_dispatcher_close(d);      // later jobs are dropped: their promises are cancelled
 *     vow_dispatcher_release(d);
 *     uv_run(&loop, UV_RUN_DEFAULT);   // runs the close callback of the dispatcher's handle
 *     uv_loop_close(&loop);            // 0: nothing of Vow's is left open
 *
 * Keeping the loop alive. The dispatcher's uv_async_t is unreferenced
 * (uv_unref) while no job is queued, so it never keeps uv_run(UV_RUN_DEFAULT)
 * from returning on its own. A queued job references it until the loop has
 * run it: a job submitted on the loop thread (from a callback of the loop,
 * or before uv_run) references the handle at once, so uv_run does not return
 * before it ran, even if it was submitted from the close callback of the
 * loop's last handle. A job submitted from another thread wakes the loop and
 * runs while the loop runs; libuv lets no other thread reference a handle, so
 * such a job does not start a loop that has nothing else to do: whatever
 * produces results on other threads keeps the loop alive meanwhile, as libuv
 * asks of any cross-thread work (a uv_work_t, a handle of the program's own).
 * A pending promise keeps nothing alive by itself; a queued job does, and so
 * does a hold: vow_uv_hold(d, p) keeps the loop running until p settles, which
 * is what a program needs when p is settled by Swift, a Vow timer or another
 * thread (see "Keeping the loop alive until a promise settles" below). The
 * requests of this bridge (vow_uv_fs_*, ...) keep it alive as libuv's own do.
 *
 * Forgetting the hold. In debug mode (vow_debug_set(true), VOW_DEBUG=1,
 * Swift's VowRuntime.debugMode), when uv_run is about to return because
 * nothing keeps the loop alive while promises made in debug mode are still
 * pending, one line says so through the misuse handler: "vow: uv_run:
 * returns (nothing keeps the loop alive) while 2 promises are still pending
 * (vow_debug_dump_pending lists them): to run the loop until one settles,
 * hold it with vow_uv_hold(d, p)". The dispatcher watches the end of the
 * loop with an unreferenced uv_check_t (it keeps nothing alive and is closed
 * with the dispatcher's handle): at the check phase of an iteration after
 * which no active referenced handle and no request is left, it counts the
 * census (every pending promise of the process made in debug mode, not only
 * this loop's); once per end of the loop. Off debug mode it costs one branch
 * per iteration. After uv_run returns, vow_wait(p, 0, NULL, &error) takes a
 * promise's outcome without waiting (VOW_PENDING if it is not settled).
 *
 * Time. The dispatcher brings the loop's own timers
 * (vow_dispatcher_new_with_timers): vow_after, vow_timeout, vow_delay and
 * vow_retry's pauses called where d is the default dispatcher
 * (vow_set_default_dispatcher(d)), and Swift's after(seconds:on: d), timeout,
 * delay and retry likewise, each start a uv_timer_t on the loop (counted
 * from the loop's time when the timer is armed, never early) and fire on the
 * loop's thread, so they follow the loop's clock (uv_now), not the library's
 * real clock. Like any uv_timer_t, an armed timer keeps uv_run going until it
 * fires or is stopped: a timer no longer needed (its promise settled or was
 * cancelled, a vow_timeout whose promise won) is stopped and closed on the
 * loop's thread at once, so it keeps nothing alive. Closing the dispatcher
 * stops every timer still armed and cancels its promise (a vow_after rejects
 * with VOW_ERROR_CANCELLED); uv_loop_close then finds nothing of Vow's open.
 * (Before 0.3.0 these timers ran on the library's real clock and kept
 * nothing alive.)
 *
 * Misuse. libuv lets only the loop's thread start a request or close a
 * handle. A request (vow_uv_fs_*, vow_uv_getaddrinfo, vow_uv_queue_work,
 * vow_uv_timer) or vow_uv_dispatcher_close called on another thread writes
 * one misuse line (vow.h, "Misuse lines": "vow: vow_uv_fs_open: called off
 * the loop's thread ...", naming the _on forms that reach the loop, e.g.
 * vow_when_limited_on(d, ...) instead of vow_when_limited) and then goes on
 * as documented. The loop's thread is the thread that made the dispatcher
 * until the loop runs one of the dispatcher's callbacks, then the thread that
 * runs it; a program that makes its calls before the loop runs makes them on
 * the thread that will run it.
 *
 * Finding the state. The bridge knows its dispatchers by their submit
 * function (vow_dispatcher_host_context): a dispatcher of your own
 * (vow_dispatcher_new) or of the GLib bridge given to a call of this header
 * is refused as documented for that call (VOW_EINVAL, or NULL), whatever its
 * ctx; the bridge never reads another host's ctx.
 *
 * The handle. The dispatcher owns one uv_async_t on the loop: never close it
 * yourself. A shutdown that closes every handle with uv_walk must first call
 * vow_uv_dispatcher_close; the usual walk skips the handle then, because it
 * is already closing (`if (!uv_is_closing(h)) uv_close(h, NULL);`).
 */
#ifndef VOW_UV_H
#define VOW_UV_H

#include <uv.h>

#include "vow.h"

VOW_BEGIN_DECLS

/**
 * A dispatcher whose jobs run on loop's thread, inside uv_run(loop, ...), in
 * submission order, one at a time. Submission (any promise settling, any
 * callback registered with this dispatcher) is safe from any thread: the job
 * is queued and the loop is woken through a uv_async_t that the dispatcher
 * adds to loop. Each wake-up runs the jobs that were queued when it began, so
 * a chain that keeps queueing work does not starve the loop's I/O. See the
 * top of this header for when the handle keeps uv_run from returning.
 *
 * Returns +1: release it with vow_dispatcher_release. Promises and callbacks
 * that use it hold references of their own, and every queued job keeps it
 * alive too. When the last reference goes without vow_uv_dispatcher_close,
 * the handle is closed for you on the loop thread: at once if the reference
 * went there, else when the loop next wakes; call vow_uv_dispatcher_close
 * before uv_loop_close to be sure nothing is left open.
 *
 * Call it on the loop's thread (the thread that runs uv_run for loop), or on
 * any thread while no thread runs loop, as libuv asks for uv_async_init; that
 * thread is taken as the loop thread until the loop runs one of the
 * dispatcher's callbacks. NULL loop, a failing uv_async_init or a library out
 * of memory return NULL; nothing is then left open on loop once it has run
 * its close callbacks.
 */
VOW_EXTERN vow_dispatcher *VOW_NULLABLE
vow_uv_dispatcher_new(uv_loop_t *VOW_NULLABLE loop);

/**
 * Closes a dispatcher made by vow_uv_dispatcher_new, so that its loop can
 * close. On the loop thread only (it calls uv_close; from another thread a
 * misuse line, see the top), while you hold a
 * reference to d; from inside a job of d too. When it returns:
 * - the jobs still queued were dropped with vow_job_drop, oldest first, on
 *   this thread: their callbacks never run, their destroy functions run once,
 *   the promises they would have settled are cancelled;
 * - a job submitted from now on, from any thread, is dropped the same way, at
 *   once, inside the call that submitted it: it never runs, and never touches
 *   the loop;
 * - the dispatcher's uv_async_t is closing: the loop's next uv_run runs its
 *   close callback (a closing handle keeps uv_run going until then), and
 *   uv_loop_close returns 0 afterwards if nothing else is open. From then on
 *   the dispatcher never touches the loop again, so it may outlive it.
 * Does not release d: vow_dispatcher_release it as usual, before or after the
 * loop closes. If d is the default dispatcher (vow_set_default_dispatcher),
 * it stays the default until replaced, and drops what reaches it.
 *
 * Returns VOW_OK; VOW_EALREADY if d was closed before (nothing happens);
 * VOW_EINVAL for NULL or a dispatcher that vow_uv_dispatcher_new did not
 * make (nothing happens). Each copy of libvow-uv.a knows the dispatchers it
 * made: close a dispatcher from the program or shared library that made it.
 */
VOW_EXTERN int
vow_uv_dispatcher_close(vow_dispatcher *VOW_NULLABLE d);

/* ======================================================================
 * Keeping the loop alive until a promise settles
 * ====================================================================== */

/**
 * Holds d's loop alive until p settles: while the hold lasts, the
 * dispatcher's uv_async_t stays referenced, so uv_run(loop, UV_RUN_DEFAULT)
 * does not return even if what settles p runs outside libuv (a Vow timer,
 * Swift work on the background pool, another thread). When p settles, the
 * hold ends on the loop thread, after the callbacks d already had queued; the
 * loop then ends as soon as nothing else (a handle, a request, another hold)
 * keeps it, so `uv_run(loop, UV_RUN_DEFAULT)` returns exactly when the work
 * is done. Hold the last promise of the work (the end of the chain, or a
 * vow_join of several). A hold watches p with vow_observe_on: it is not a
 * handler (p's rejection, unhandled, is still reported once), does not keep
 * p wanted or alive, and starts a lazy p.
 *
 * Holds count: each call holds until its own p settles, so holding a second
 * promise (or the same one twice) keeps the loop until both holds ended.
 * Closing d (vow_uv_dispatcher_close) ends every hold at once: the handle is
 * closed, and the holds' later endings do nothing. p already settled: VOW_OK,
 * and the hold ends at the loop's next turn.
 *
 * Returns VOW_OK; VOW_EINVAL for NULL d or p, a dispatcher that
 * vow_uv_dispatcher_new did not make, or a p that is not a vow_promise (a
 * misuse line from vow_observe_on); VOW_EALREADY if d was closed (nothing is
 * held). Call it on the loop thread (or while no thread runs the loop), as
 * for uv_ref: from another thread the hold counts, but it can only take hold
 * when the loop next wakes, and cannot restart a uv_run that returned.
 */
VOW_EXTERN int
vow_uv_hold(vow_dispatcher *VOW_NULLABLE d, vow_promise *VOW_NULLABLE p);

/* ======================================================================
 * libuv requests as promises
 *
 * Each call starts one libuv request on d's loop and returns a promise (+1)
 * settled from the request's callback, on the loop thread. A failure
 * rejects with domain "uv", code libuv's negative status (UV_ENOENT, ...)
 * and a message that names the libuv call, its argument and libuv's words,
 * `uv_fs_open("/etc/shadow"): permission denied` (a path or host as given,
 * a file as "file 7"; the words are uv_strerror(status)), also when libuv
 * refuses the request at once. Cancelling the promise (vow_cancel, a vow_timeout, a race it lost)
 * cancels the request: uv_cancel for a request still waiting for the thread
 * pool (one already running finishes, and what it produced is freed: a file
 * it opened is closed, the addrinfo list freed, the work's value released),
 * uv_timer_stop for a timer. Closing d cancels the requests it started that
 * are still pending, the same way. Every request's memory (the uv_fs_t, the
 * buffers) is freed exactly once, on the loop thread, however it ends.
 *
 * Call them on the loop thread (see "Misuse" at the top), as libuv
 * asks of every request. NULL d, a dispatcher that vow_uv_dispatcher_new did
 * not make or that was closed, a NULL path or function return NULL (nothing
 * started; a destroy given runs before the call returns). Requests keep the
 * loop alive while they are pending, as libuv's own do.
 * ====================================================================== */

/**
 * uv_fs_open(path, flags, mode): fulfils with the file descriptor (an INT).
 * Cancelled after the file was opened, the library closes it. Close a file
 * you got with vow_uv_fs_close (or uv_fs_close).
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_fs_open(vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE path, int flags, int mode);

/**
 * uv_fs_read of up to length bytes of file at offset (-1: the file's current
 * position, which the read moves on): fulfils with the BYTES read (fewer at
 * the end of the file, none at its end). length 0 fulfils with empty BYTES.
 * An offset below -1 is refused: the promise rejects with domain "uv", code
 * UV_EINVAL and a message that names the offset. The buffer is sized by what
 * can be read, never by length alone (a length of SIZE_MAX costs nothing):
 * the request first fstats file, then reads, for a regular file, at most
 * what lies between the position and the end of the file as fstat saw it,
 * and from anything else (a pipe, a socket, a device) at most 64 KiB, one
 * read's worth (read again for more). Cancelling the promise cancels the
 * step in progress.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_fs_read(vow_dispatcher *VOW_NULLABLE d, uv_file file, size_t length, int64_t offset);

/**
 * uv_fs_close(file): fulfils with the NULL value. Cancelling the promise
 * does not cancel the close (the file would stay open): it still happens.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_fs_close(vow_dispatcher *VOW_NULLABLE d, uv_file file);

/**
 * uv_fs_stat(path): fulfils with a POINTER to a copy of the uv_stat_t
 * (`const uv_stat_t *st = vow_value_get_pointer(v)`), freed with the value.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_fs_stat(vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE path);

/** uv_fs_fstat(file): as vow_uv_fs_stat, for an open file. */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_fs_fstat(vow_dispatcher *VOW_NULLABLE d, uv_file file);

/**
 * The whole of a file, as one promise: opens path read-only, reads it to its
 * end, closes it, and fulfils with its BYTES (the file is closed before the
 * promise settles, whatever happened). max_bytes is the most it reads: a
 * file longer than that rejects with UV_EFBIG (message
 * `vow_uv_fs_read_file("big.log"): file too large`), found from the file's
 * size before any buffer is made, or while reading for a file whose size
 * says nothing (/proc); 0 accepts only an empty file; SIZE_MAX means no
 * limit (the buffer still grows only with what is read). Cancelled, it cancels the step in progress and still closes
 * the file. One request at a time, so it costs one thread-pool slot.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_fs_read_file(vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE path, size_t max_bytes);

/**
 * uv_getaddrinfo(node, service, hints): fulfils with a POINTER to the
 * struct addrinfo list (`const struct addrinfo *ai = vow_value_get_pointer(v)`),
 * freed with uv_freeaddrinfo when the value goes. node or service may be
 * NULL (not both, as getaddrinfo asks); hints may be NULL and is copied.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_getaddrinfo(vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE node,
                   const char *VOW_NULLABLE service, const struct addrinfo *VOW_NULLABLE hints);

/**
 * The work of vow_uv_queue_work, run on libuv's thread pool: returns the
 * value to fulfil with (+1, the reference passes to the library; NULL: the
 * NULL value), or sets *error (+1) and returns NULL to reject. A value
 * returned with *error set is released and the promise rejects with the
 * error: the error wins, as with a GIO _finish function (vow_glib_finish).
 * It must not touch the loop (it runs on a pool thread).
 */
typedef vow_value *VOW_NULLABLE (*vow_uv_work)(void *VOW_NULLABLE ctx, vow_error *VOW_NULLABLE *VOW_NONNULL error);

/**
 * uv_queue_work: runs work(ctx, &error) on libuv's thread pool and settles
 * with what it returns. destroy(ctx) runs exactly once, on the loop thread:
 * after work ran, or when it never will (cancelled while still queued, or
 * this call failed: then before it returns). Cancelled while work runs, work
 * finishes and its value or error is released. A value returned while the
 * promise was cancelled is released.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_queue_work(vow_dispatcher *VOW_NULLABLE d, vow_uv_work VOW_NULLABLE work, void *VOW_NULLABLE ctx,
                  void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx));

/**
 * A libuv timer: fulfils with the NULL value timeout_ms milliseconds from now
 * (counted from the call: the loop's cached time is updated first). The
 * timer keeps the loop alive, as any uv_timer_t does; cancelling the promise
 * stops it.
 */
VOW_EXTERN vow_promise *VOW_NULLABLE
vow_uv_timer(vow_dispatcher *VOW_NULLABLE d, uint64_t timeout_ms);

/* ======================================================================
 * Debug sites: the _site twins of the calls above, as vow.h's (vow.h,
 * "Debug mode: where every promise was made"), made from this table.
 * ====================================================================== */

/**
 * VOW_UV_PROMISE_MAKERS(X): one row per function above that returns a
 * promise, X(name, (parameters), (arguments)), written as vow.h's
 * VOW_PROMISE_MAKERS. From each row the preprocessor declares the twin
 * name_site(const char *file, int line, parameters...), the same call that
 * also records file:line as the promise's site when debug mode is on (NULL
 * file: "C"), and scripts/generate-bridge-sites.sh writes the
 * VOW_DEBUG_SITES macro at the end of this header.
 */
#define VOW_UV_PROMISE_MAKERS(X)                                                                            \
    X(vow_uv_fs_open, (vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE path, int flags, int mode), \
      (d, path, flags, mode))                                                                               \
    X(vow_uv_fs_read, (vow_dispatcher *VOW_NULLABLE d, uv_file file, size_t length, int64_t offset),        \
      (d, file, length, offset))                                                                            \
    X(vow_uv_fs_close, (vow_dispatcher *VOW_NULLABLE d, uv_file file), (d, file))                           \
    X(vow_uv_fs_stat, (vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE path), (d, path))           \
    X(vow_uv_fs_fstat, (vow_dispatcher *VOW_NULLABLE d, uv_file file), (d, file))                           \
    X(vow_uv_fs_read_file, (vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE path, size_t max_bytes), \
      (d, path, max_bytes))                                                                                 \
    X(vow_uv_getaddrinfo,                                                                                   \
      (vow_dispatcher *VOW_NULLABLE d, const char *VOW_NULLABLE node, const char *VOW_NULLABLE service,     \
       const struct addrinfo *VOW_NULLABLE hints),                                                          \
      (d, node, service, hints))                                                                            \
    X(vow_uv_queue_work,                                                                                    \
      (vow_dispatcher *VOW_NULLABLE d, vow_uv_work VOW_NULLABLE work, void *VOW_NULLABLE ctx,               \
       void (*VOW_NULLABLE destroy)(void *VOW_NULLABLE ctx)),                                               \
      (d, work, ctx, destroy))                                                                              \
    X(vow_uv_timer, (vow_dispatcher *VOW_NULLABLE d, uint64_t timeout_ms), (d, timeout_ms))                 \
    /* (every row ends with a backslash; the table ends here) */

VOW_UV_PROMISE_MAKERS(VOW_DECLARE_SITE_TWIN_)

VOW_END_DECLS

/* VOW_DEBUG_SITES: as vow.h's, function-like (&vow_uv_timer and (vow_uv_timer)(d, 10)
   still name the plain function). */
/* BEGIN generated by scripts/generate-bridge-sites.sh from VOW_UV_PROMISE_MAKERS: do not edit */
#ifdef VOW_DEBUG_SITES
#  define vow_uv_fs_open(...)      vow_uv_fs_open_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_fs_read(...)      vow_uv_fs_read_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_fs_close(...)     vow_uv_fs_close_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_fs_stat(...)      vow_uv_fs_stat_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_fs_fstat(...)     vow_uv_fs_fstat_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_fs_read_file(...) vow_uv_fs_read_file_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_getaddrinfo(...)  vow_uv_getaddrinfo_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_queue_work(...)   vow_uv_queue_work_site(__FILE__, __LINE__, __VA_ARGS__)
#  define vow_uv_timer(...)        vow_uv_timer_site(__FILE__, __LINE__, __VA_ARGS__)
#endif
/* END generated */

#endif /* VOW_UV_H */
