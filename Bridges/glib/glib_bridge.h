/*
 * glib_bridge.h: the GLib bridge's own internals (include/vow_glib.h), shared by its files:
 *
 *   glib_dispatcher.c  the dispatcher: its GSource, the queue run in the context,
 *                      closing, holds and vow_glib_run, the context's timers
 *   glib_requests.c    the requests (vowglib_req over vowbridge_req): vow_glib_timeout,
 *                      vow_glib_async; the plain names of the calls
 *
 * The state of a dispatcher (vowglib_state, over vowbridge; Bridges/common/vowbridge.h),
 * and one GSource that runs its queue:
 *
 *   submit (any thread)   queues the job; on the queue's empty -> non-empty edge it makes
 *                         the source ready (g_source_set_ready_time(source, 0), which
 *                         wakes the context).
 *   dispatch (context)    un-readies the source, then runs the jobs queued when it began,
 *                         one at a time, outside the lock.
 *   close (any thread)    vowbridge_close: destroys the source, drops what is queued,
 *                         cancels the live requests.
 *   source_destroyed      the source's callback notify: GLib calls it when the source is
 *                         destroyed, by close, by destroy, or by the context's
 *                         destruction: closes the state (if nobody did).
 *   destroy (any thread)  the vow_dispatcher is gone: closes the state.
 *
 * The state holds a reference to the source, so the GSource stays valid memory until the
 * state is freed; every GLib call on it is made under the state's lock while `gone` is
 * false. The source-destroyed notify needs that lock to set `gone`, and GLib calls it
 * before a dying context is freed, so a context that is being destroyed on another thread
 * is still there when we touch it. The lock is recursive because g_source_destroy, called
 * under it, runs the notify on this thread. GLib never calls this bridge with its context
 * lock held, so taking the context lock under ours cannot deadlock.
 *
 * Holds (vow_glib_hold) count in the state's `holds`; vow_glib_run iterates the context
 * while one lasts; a hold that ends wakes the context.
 *
 * The state's refs count the dispatcher, the source (given back by its notify), every
 * hold, request, armed timer and running vow_glib_run.
 */
#ifndef VOW_GLIB_BRIDGE_H
#define VOW_GLIB_BRIDGE_H

#define _POSIX_C_SOURCE 200809L
/* These files define the plain names and their _site twins: built with VOW_DEBUG_SITES
   (a program's CFLAGS), the header's macros would rename the definitions. */
#undef VOW_DEBUG_SITES
#include "vow_glib.h"

#include "../common/vowbridge.h"

typedef struct vowglib_state {
    vowbridge base;      /* first: the dispatcher's ctx */
    GSource *source;      /* a reference of ours, dropped when the state is freed */
    bool gone;            /* the source was destroyed: no GLib call on it any more */
    bool dispatching;     /* a thread runs the queue now (base.owner) */
} vowglib_state;

VOW_BRIDGE_HIDDEN extern const vowbridge_ops vowglib_ops;

/* Defined in glib_requests.c (the ops of a request). */
VOW_BRIDGE_HIDDEN void vowglib_req_stop(vowbridge_req *req);
VOW_BRIDGE_HIDDEN void vowglib_req_free(vowbridge_req *req);

#endif /* VOW_GLIB_BRIDGE_H */
