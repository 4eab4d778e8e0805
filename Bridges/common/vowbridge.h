/*
 * vowbridge.h: what the event-loop bridges (Bridges/uv, Bridges/glib) share: a
 * dispatcher's state with its queue, its holds and its live requests, and the protocol
 * of a request. Internal: not installed; compiled into each bridge's archive
 * (Bridges/common/vowbridge.c), every name hidden.
 *
 * A bridge's state starts with a vowbridge, whose first field is the bridge's
 * vowbridge_ops; the state is the ctx of the dispatcher it makes, so that
 * vowbridge_of(d, ops) finds it from d through vow_dispatcher_host_context with the
 * bridges' own submit (a dispatcher of another host or the library's own is not
 * recognised, and its ctx is never read), then checks the ops (the other bridge's
 * dispatcher is not this one's).
 *
 *   the queue      jobs submitted to the dispatcher, a FIFO guarded by `lock`; the bridge
 *                  is told (ops->queued) so that it wakes its loop, and runs them with
 *                  vowbridge_run_jobs on the loop's thread, one at a time.
 *   holds          vow_uv_hold / vow_glib_hold: vowbridge_hold counts them (`holds`)
 *                  and watches the promise with vow_observe_on; the bridge is told when a
 *                  hold begins or ends (ops->hold_changed) so that its loop stays alive.
 *   requests       a promise that waits for the loop (a uv request, a GLib source, a GIO
 *                  call) is a vowbridge_req on the state's `live` list, so closing
 *                  cancels it. A request is freed when the loop's part (the bridge calls
 *                  vowbridge_req_finish) and its cancel registration have let go: `refs`
 *                  counts the two.
 *   closing        vowbridge_close: no job runs any more, the queue is dropped, every
 *                  live request is cancelled.
 *
 * The state is freed (ops->free) when the dispatcher, every hold, every request and
 * whatever the bridge counts itself (its loop handle) have let go: `refs` counts them.
 * `lock` is recursive (GLib's g_source_destroy, called under it, may call back into it).
 * No job, callback or destroy of the user's runs under it.
 */
#ifndef VOW_BRIDGE_H
#define VOW_BRIDGE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vow.h"

#if defined(__GNUC__) || defined(__clang__)
#  define VOW_BRIDGE_HIDDEN __attribute__((visibility("hidden")))
#  define VOW_BRIDGE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define VOW_BRIDGE_HIDDEN
#  define VOW_BRIDGE_PRINTF(f, a)
#endif

typedef struct vowbridge vowbridge;
typedef struct vowbridge_req vowbridge_req;
typedef struct vowbridge_timer vowbridge_timer;

/* A job and what runs it, as submit received them. */
typedef struct vowbridge_item {
    vow_job run;
    void *job;
} vowbridge_item;

/* A FIFO of items: a ring buffer that grows (guarded by the state's lock). */
typedef struct vowbridge_queue {
    vowbridge_item *items;
    size_t head, count, capacity;
} vowbridge_queue;

/* What makes one bridge differ from the other. */
typedef struct vowbridge_ops {
    const char *name; /* "vow_uv", "vow_glib": misuse lines */
    /* Under the lock: a job was queued (was_empty: the queue was empty before). */
    void (*queued)(vowbridge *b, bool was_empty);
    /* Under the lock, not closed: a hold began (holds already counted) or ended. */
    void (*hold_changed)(vowbridge *b, bool began);
    /* Under the lock, once: the dispatcher closes (`closed` is set already). */
    void (*closing)(vowbridge *b);
    /* The last reference went: frees what the bridge added, and the state. */
    void (*free)(vowbridge *b);
    /* Once per request, on the loop's thread (uv) or any thread (GLib), only while the
       request is live: stops what it waits for; the bridge then finishes it. */
    void (*req_stop)(vowbridge_req *req);
    /* Frees what the bridge added to a request (its memory itself is freed after). */
    void (*req_free)(vowbridge_req *req);
    /* Stops an armed timer of the loop (vow_dispatcher_new_with_timers) that will not
       fire: the bridge frees it (and gives back its reference of the state) when the
       loop lets go of it. Not under the lock; on the loop's thread for libuv. */
    void (*timer_stop)(vowbridge_timer *t);
} vowbridge_ops;

/* A bridge's ops, from the static functions its dispatcher file defines by these names
   (queued, hold_changed, closing, free_state, timer_stop) and its request functions. */
#define VOW_BRIDGE_OPS(bridge_name, req_stop_function, req_free_function)                                   \
    {                                                                                                       \
        .name = bridge_name, .queued = queued, .hold_changed = hold_changed, .closing = closing,            \
        .free = free_state, .req_stop = req_stop_function, .req_free = req_free_function,                   \
        .timer_stop = timer_stop,                                                                           \
    }

struct vowbridge {
    const vowbridge_ops *ops; /* first: vowbridge_of reads it through the dispatcher's ctx */
    pthread_mutex_t lock;      /* recursive; guards everything below; never held while a job runs */
    vowbridge_queue queue;
    bool closed;               /* no job runs any more; later submits are dropped */
    int holds;                 /* holds that have not ended */
    int refs;                  /* the dispatcher's, each hold's and request's, the bridge's own */
    vowbridge_req *live;      /* requests still pending */
    vowbridge_timer *armed;   /* the loop's timers armed for the library, not yet run or dropped */
    pthread_t owner;           /* the loop's thread, as last seen (the bridge sets it, under the lock) */
    bool owner_known;
};

struct vowbridge_req {
    vowbridge *b;             /* a reference of b's refs */
    vow_dispatcher *d;         /* borrowed: the cancel registration holds d */
    vow_resolver *resolver;    /* +1 until the request finished */
    atomic_int refs;           /* the loop's part, the cancel registration, a close at work */
    bool stopped;              /* ops->req_stop was called, or will not be (under b->lock) */
    bool done;                 /* finished: off the live list (under b->lock) */
    vowbridge_req *prev, *next;
    void *ctx;                 /* the caller's, for the call's functions (vow_uv_queue_work, ...) */
    void (*destroy)(void *ctx); /* runs once, when the request finishes (NULL: nothing to run) */
};

/* A timer of the loop armed for the library (vow_timer_arm): the bridge's timer starts
   with it. run(job) when it fires; vow_job_drop(job) when it never will. */
struct vowbridge_timer {
    vow_job run;
    void *job;
    bool done;                 /* fired, cancelled or dropped: off the armed list (under b->lock) */
    vowbridge_timer *prev, *next;
};

/* ---- the state ----------------------------------------------------------------------- */

/* Initialises b (refs 1: the dispatcher's); 0, or an errno. */
VOW_BRIDGE_HIDDEN int vowbridge_init(vowbridge *b, const vowbridge_ops *ops);
/* The dispatcher's submit and destroy-time helpers (ctx: the state). */
VOW_BRIDGE_HIDDEN void vowbridge_submit(void *ctx, vow_job run, void *job);
/* The state of a dispatcher made by the bridge of ops, or NULL (no misuse line for NULL). */
VOW_BRIDGE_HIDDEN vowbridge *vowbridge_of(vow_dispatcher *d, const vowbridge_ops *ops);
VOW_BRIDGE_HIDDEN void vowbridge_retain(vowbridge *b);
VOW_BRIDGE_HIDDEN void vowbridge_release(vowbridge *b);
/* Runs at most budget jobs of the queue, one at a time, stopping when b closes. */
VOW_BRIDGE_HIDDEN void vowbridge_run_jobs(vowbridge *b, size_t budget);
/* Closes b: VOW_OK, or VOW_EALREADY if it was closed (nothing happens). */
VOW_BRIDGE_HIDDEN int vowbridge_close(vowbridge *b);
/* True when b's loop thread is unknown or is this thread. */
VOW_BRIDGE_HIDDEN bool vowbridge_on_owner(vowbridge *b);
/* A call that libuv or GLib allows only on the loop's thread: off it (as b last saw it),
   one misuse line names function and the fix (vow_report_misuse). The call goes on. */
VOW_BRIDGE_HIDDEN void vowbridge_check_thread(vowbridge *b, const char *function);

/* ---- the loop's timers (vow_dispatcher_new_with_timers) ------------------------------ */

/* Puts t on b's armed list, with the job the library gave arm (b gains a reference, which
   the bridge gives back when it frees t). */
VOW_BRIDGE_HIDDEN void vowbridge_timer_armed(vowbridge *b, vowbridge_timer *t, vow_job run, void *job);
/* arm could not make a timer (memory ran out): the job is dropped from the queue, later
   (vow.h: never inside arm). */
VOW_BRIDGE_HIDDEN void vowbridge_timer_unarmed(vowbridge *b, vow_job run, void *job);
/* The loop's timer t fired: runs its job unless it was cancelled or dropped meanwhile. */
VOW_BRIDGE_HIDDEN void vowbridge_timer_fired(vowbridge *b, vowbridge_timer *t);
/* The loop let go of t without firing it (a GLib context destroyed): drops its job, unless
   it fired, was cancelled or dropped. */
VOW_BRIDGE_HIDDEN void vowbridge_timer_gone(vowbridge *b, vowbridge_timer *t);
/* Both bridges' vow_timer_cancel (ctx: the state; host_timer: what arm returned): stops
   the timer (ops->timer_stop) and drops its job, unless it fired or was dropped. */
VOW_BRIDGE_HIDDEN void vowbridge_timer_cancel(void *ctx, void *host_timer);
/* seconds (finite, not negative) as whole units of unit seconds, rounded up (a timer never
   fires early), at most max. */
VOW_BRIDGE_HIDDEN uint64_t vowbridge_timer_due(double seconds, double unit, uint64_t max);

/* ---- holds ----------------------------------------------------------------------------- */

/* vow_uv_hold, vow_glib_hold: VOW_OK, VOW_EINVAL, VOW_EALREADY (see the headers). */
VOW_BRIDGE_HIDDEN int vowbridge_hold(vow_dispatcher *d, const vowbridge_ops *ops, vow_promise *p);

/* ---- requests -------------------------------------------------------------------------- */

/* A new request of size bytes (a struct that starts with vowbridge_req, zeroed) on d, a
   dispatcher of the bridge of ops that is not closed, with its pending promise (made at
   site_file:site_line; NULL file: "C") in *p_out; NULL (and *p_out NULL) otherwise, or
   when memory runs out. Not live yet: the bridge prepares it, then calls
   vowbridge_req_start. */
VOW_BRIDGE_HIDDEN vowbridge_req *vowbridge_req_new(vow_dispatcher *d, const vowbridge_ops *ops, size_t size,
                                                     vow_promise **p_out, const char *site_file, int site_line);
/* Puts req on the live list and registers its cancel handler (cancelling the promise
   stops the request). If b closed meanwhile, the request is cancelled and stopped now. */
VOW_BRIDGE_HIDDEN void vowbridge_req_start(vowbridge_req *req);
/* The loop's part is over: off the live list; the request's destroy(ctx) runs; a promise
   still pending is cancelled; the resolver and the loop's reference go. */
VOW_BRIDGE_HIDDEN void vowbridge_req_finish(vowbridge_req *req);
/* Stops req (ops->req_stop) unless it was stopped or finished. */
VOW_BRIDGE_HIDDEN void vowbridge_req_stop(vowbridge_req *req);
/* A call that takes a ctx and destroy made no request: runs destroy(ctx), returns NULL. */
VOW_BRIDGE_HIDDEN vow_promise *vowbridge_no_request(void *ctx, void (*destroy)(void *ctx));
/* The loop refused the request at once: rejects, finishes, and returns p. */
VOW_BRIDGE_HIDDEN vow_promise *vowbridge_req_refused(vowbridge_req *req, vow_promise *p, vow_error *e);

/* ---- settling -------------------------------------------------------------------------- */

/* Fulfils r with v (released; NULL: the NULL value). True if r was still pending. */
VOW_BRIDGE_HIDDEN bool vowbridge_fulfil(vow_resolver *r, vow_value *v);
/* Rejects r with e (released; NULL, memory ran out: left to vowbridge_req_finish). */
VOW_BRIDGE_HIDDEN void vowbridge_reject(vow_resolver *r, vow_error *e);
/* An error (+1) whose message is printf's format: NULL only if memory ran out. */
VOW_BRIDGE_HIDDEN vow_error *vowbridge_error(const char *domain, int code, const char *format, ...)
    VOW_BRIDGE_PRINTF(3, 4);

/* ---- the plain names ------------------------------------------------------------------- */

/* Defines each row of a bridge's promise table (VOW_UV_PROMISE_MAKERS, ...) as its plain
   name, which calls its _site twin with no site (the promise records "C"). */
#define VOW_BRIDGE_DEFINE_PLAIN_(name, parameters, arguments)                                               \
    vow_promise *name(VOW_SITE_UNPAREN_ parameters)                                                         \
    {                                                                                                       \
        return name##_site(NULL, 0, VOW_SITE_UNPAREN_ arguments);                                           \
    }

#endif /* VOW_BRIDGE_H */
