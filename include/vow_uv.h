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
 * A pending promise keeps nothing alive; only a queued job does.
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

#if defined(__clang__)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wnullability-extension"
#  pragma clang diagnostic ignored "-Wnullability-completeness"
#endif

#ifdef __cplusplus
extern "C" {
#endif

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
 * close. On the loop thread only (it calls uv_close), while you hold a
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

#endif /* VOW_UV_H */
