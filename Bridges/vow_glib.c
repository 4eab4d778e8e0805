/*
 * vow_glib.c: the GLib bridge (include/vow_glib.h), built into libvow-glib.a.
 *
 * One state per dispatcher, and one GSource that runs its queue:
 *
 *   submit (any thread)   queues the job under the state's lock; on the queue's
 *                         empty -> non-empty edge it makes the source ready
 *                         (g_source_set_ready_time(source, 0), which wakes the
 *                         context).
 *   dispatch (context)    un-readies the source, then runs the jobs queued when
 *                         it began, one at a time, outside the lock.
 *   close (any thread)    marks the state closed, takes the queue, destroys the
 *                         source and drops what it took.
 *   source_destroyed      the source's callback notify: GLib calls it when the
 *                         source is destroyed, by close, by destroy, or by the
 *                         context's destruction: drops what is queued.
 *   destroy (any thread)  the vow_dispatcher is gone: destroys the source.
 *
 * The state holds a reference to the source, so the GSource stays valid memory
 * until the state is freed; every GLib call on it is made under the state's
 * lock while `gone` is false. The source-destroyed notify needs that lock to set
 * `gone`, and GLib calls it before a dying context is freed, so a context that
 * is being destroyed on another thread is still there when we touch it. The lock
 * is recursive because g_source_destroy, called under it, runs the notify on
 * this thread. GLib never calls this file with its context lock held, so taking
 * the context lock under ours cannot deadlock.
 *
 * Holds (vow_glib_hold) count in `holds`; vow_glib_run iterates the context
 * while one lasts. A hold ends in the destroy of its vow_observe_on
 * registration, which wakes the context.
 *
 * Requests (vow_glib_timeout, vow_glib_async) are `vow_glib__req`s on the
 * state's list of live requests (under the lock), so that close can cancel
 * them. A request is freed when its source or GIO call (finished) and its
 * cancel registration have let go of it: `refs` counts them.
 *
 * The state is freed when the dispatcher (destroy), the source (its notify),
 * every hold and every request have let go of it: `refs` counts them.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* PTHREAD_MUTEX_RECURSIVE */
/* This file defines the plain names and their _site twins: built with VOW_DEBUG_SITES
   (a program's CFLAGS), the header's macros would rename the definitions. */
#undef VOW_DEBUG_SITES
#include "vow_glib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "bridge_queue.h"

typedef struct vow_glib__req vow_glib__req;

typedef struct vow_glib__state {
    pthread_mutex_t lock; /* recursive; guards everything below; never held while a job runs */
    vow__queue queue;
    GSource *source;      /* a reference of ours, dropped when the state is freed */
    bool closed;          /* no job runs any more; later submits are dropped */
    bool gone;            /* the source was destroyed: no GLib call on it any more */
    bool dispatching;     /* a thread runs the queue now (`dispatcher`) */
    pthread_t dispatcher;
    int holds;            /* holds that have not ended */
    int refs;             /* the dispatcher's, the source's, each hold's and request's */
    vow_glib__req *live;  /* requests still pending */
    vow__registry_entry entry;
} vow_glib__state;

typedef struct vow_glib__source {
    GSource base;
    vow_glib__state *st;
} vow_glib__source;

static vow__registry vow_glib__registry = {PTHREAD_MUTEX_INITIALIZER, NULL};

static void vow_glib__cancel_live(vow_glib__state *st);

static void
vow_glib__release(vow_glib__state *st)
{
    pthread_mutex_lock(&st->lock);
    bool last = --st->refs == 0;
    pthread_mutex_unlock(&st->lock);
    if (!last) return;
    if (st->source != NULL) g_source_unref(st->source);
    pthread_mutex_destroy(&st->lock);
    free(st->queue.items);
    free(st);
}

static void
vow_glib__submit(void *ctx, vow_job run, void *job)
{
    vow_glib__state *st = ctx;
    pthread_mutex_lock(&st->lock);
    if (st->closed || st->gone) {
        pthread_mutex_unlock(&st->lock);
        vow_job_drop(job); /* a closed loop: the job is finished now (vow.h allows it inside submit) */
        return;
    }
    bool was_empty = st->queue.count == 0;
    if (!vow__queue_push(&st->queue, run, job)) {
        pthread_mutex_unlock(&st->lock);
        vow_job_drop(job); /* a closed loop: the job is finished now (vow.h allows it inside submit) */
        return;
    }
    if (was_empty) g_source_set_ready_time(st->source, 0);
    pthread_mutex_unlock(&st->lock);
}

static gboolean
vow_glib__dispatch(GSource *source, GSourceFunc callback, gpointer user_data)
{
    /* GLib holds the callback (and so the state's source reference) while this runs. */
    vow_glib__state *st = ((vow_glib__source *)source)->st;
    (void)callback;
    (void)user_data;
    pthread_mutex_lock(&st->lock);
    size_t budget = 0;
    if (!st->closed && !st->gone) {
        g_source_set_ready_time(source, -1);
        budget = st->queue.count;
    }
    st->dispatching = true;
    st->dispatcher = pthread_self();
    pthread_mutex_unlock(&st->lock);

    /* One job at a time, so that a job that closes the dispatcher stops the rest. */
    while (budget-- > 0) {
        vow__item item;
        pthread_mutex_lock(&st->lock);
        bool got = !st->closed && !st->gone && vow__queue_pop(&st->queue, &item);
        pthread_mutex_unlock(&st->lock);
        if (!got) break;
        item.run(item.job);
    }

    pthread_mutex_lock(&st->lock);
    st->dispatching = false;
    /* Jobs queued while these ran found the queue non-empty and did not make us ready. */
    if (!st->closed && !st->gone && st->queue.count > 0) g_source_set_ready_time(source, 0);
    pthread_mutex_unlock(&st->lock);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs vow_glib__funcs = {
    .dispatch = vow_glib__dispatch,
};

/* The source's callback: never called (dispatch runs the queue); it carries the notify. */
static gboolean
vow_glib__never_called(gpointer data)
{
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* The callback's notify: the source was destroyed (any thread; GLib's context lock is not held). */
static void
vow_glib__source_destroyed(gpointer data)
{
    vow_glib__state *st = data;
    vow__queue queued;
    pthread_mutex_lock(&st->lock);
    st->gone = true;
    st->closed = true;
    vow__queue_take_all(&st->queue, &queued);
    pthread_mutex_unlock(&st->lock);
    vow__queue_drop_all(&queued);
    vow_glib__cancel_live(st);
    vow_glib__release(st);
}

static void
vow_glib__destroy(void *ctx)
{
    vow_glib__state *st = ctx;
    vow__registry_remove(&vow_glib__registry, &st->entry);
    pthread_mutex_lock(&st->lock);
    st->closed = true;
    if (st->source != NULL && !st->gone) g_source_destroy(st->source);
    pthread_mutex_unlock(&st->lock);
    vow_glib__release(st);
}

vow_dispatcher *
vow_glib_dispatcher_new(GMainContext *context)
{
    if (context == NULL) context = g_main_context_default();
    vow_glib__state *st = calloc(1, sizeof *st);
    if (st == NULL) return NULL;
    pthread_mutexattr_t recursive;
    pthread_mutexattr_init(&recursive);
    pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
    int rc = pthread_mutex_init(&st->lock, &recursive);
    pthread_mutexattr_destroy(&recursive);
    if (rc != 0) {
        free(st);
        return NULL;
    }
    st->refs = 1; /* the dispatcher's */
    vow_dispatcher *d = vow_dispatcher_new(vow_glib__submit, st, vow_glib__destroy);
    if (d == NULL) return NULL; /* vow_glib__destroy ran and freed st */

    GSource *source = g_source_new(&vow_glib__funcs, sizeof(vow_glib__source));
    ((vow_glib__source *)source)->st = st;
    g_source_set_name(source, "vow dispatcher");
    g_source_set_priority(source, G_PRIORITY_DEFAULT);
    pthread_mutex_lock(&st->lock);
    st->source = source; /* g_source_new's reference becomes the state's */
    st->refs++;          /* the source's, given back by vow_glib__source_destroyed */
    pthread_mutex_unlock(&st->lock);
    g_source_set_callback(source, vow_glib__never_called, st, vow_glib__source_destroyed);
    g_source_attach(source, context);
    vow__registry_add(&vow_glib__registry, &st->entry, d, st);
    return d;
}

int
vow_glib_dispatcher_close(vow_dispatcher *d)
{
    if (d == NULL) return VOW_EINVAL;
    vow_glib__state *st = vow__registry_find(&vow_glib__registry, d);
    if (st == NULL) return VOW_EINVAL;
    vow__queue queued;
    pthread_mutex_lock(&st->lock);
    if (st->closed) {
        pthread_mutex_unlock(&st->lock);
        return VOW_EALREADY;
    }
    st->closed = true;
    vow__queue_take_all(&st->queue, &queued);
    if (!st->gone) g_source_destroy(st->source); /* may run the notify here (the lock is recursive) */
    pthread_mutex_unlock(&st->lock);
    /* Dropping cancels promises, which may submit more to d: those find it closed. */
    vow__queue_drop_all(&queued);
    vow_glib__cancel_live(st);
    return VOW_OK;
}

/* ---- holds ----------------------------------------------------------------------------- */

static void
vow_glib__hold_seen(void *ctx)
{
    (void)ctx; /* the hold ends in vow_glib__hold_end, right after */
}

/* A hold ends (the watch's destroy: after its job ran, or when it was dropped). Any thread. */
static void
vow_glib__hold_end(void *ctx)
{
    vow_glib__state *st = ctx;
    pthread_mutex_lock(&st->lock);
    /* Wake a vow_glib_run blocked in the context (from another thread, or a dropped job). */
    if (--st->holds == 0 && !st->gone) g_main_context_wakeup(g_source_get_context(st->source));
    pthread_mutex_unlock(&st->lock);
    vow_glib__release(st);
}

int
vow_glib_hold(vow_dispatcher *d, vow_promise *p)
{
    if (d == NULL || p == NULL) return VOW_EINVAL;
    vow_glib__state *st = vow__registry_find(&vow_glib__registry, d);
    if (st == NULL) return VOW_EINVAL;
    pthread_mutex_lock(&st->lock);
    if (st->closed) {
        pthread_mutex_unlock(&st->lock);
        return VOW_EALREADY;
    }
    st->holds++;
    st->refs++; /* the hold's, given back by vow_glib__hold_end */
    pthread_mutex_unlock(&st->lock);
    /* On failure vow_observe_on runs vow_glib__hold_end before returning. */
    return vow_observe_on(d, p, vow_glib__hold_seen, st, vow_glib__hold_end);
}

int
vow_glib_run(vow_dispatcher *d)
{
    if (d == NULL) return VOW_EINVAL;
    vow_glib__state *st = vow__registry_find(&vow_glib__registry, d);
    if (st == NULL) return VOW_EINVAL;
    pthread_mutex_lock(&st->lock);
    if (st->closed || st->gone || st->holds == 0) {
        pthread_mutex_unlock(&st->lock);
        return VOW_OK;
    }
    if (st->dispatching && pthread_equal(st->dispatcher, pthread_self())) {
        pthread_mutex_unlock(&st->lock);
        return VOW_EINVAL; /* inside one of d's callbacks: d's source cannot run again */
    }
    GMainContext *context = g_main_context_ref(g_source_get_context(st->source));
    st->refs++; /* the run's */
    pthread_mutex_unlock(&st->lock);
    int rc = VOW_EINVAL;
    if (g_main_context_acquire(context)) {
        for (;;) {
            pthread_mutex_lock(&st->lock);
            bool held = !st->closed && !st->gone && st->holds > 0;
            pthread_mutex_unlock(&st->lock);
            if (!held) break;
            g_main_context_iteration(context, TRUE);
        }
        g_main_context_release(context);
        rc = VOW_OK;
    }
    g_main_context_unref(context);
    vow_glib__release(st);
    return rc;
}

/* ---- requests -------------------------------------------------------------------------- */

enum { VOW_GLIB__TIMEOUT, VOW_GLIB__ASYNC };

struct vow_glib__req {
    int kind;
    bool stopped;               /* cancelled through the source or the cancellable (under st->lock) */
    bool done;                  /* off the live list (under st->lock) */
    atomic_int refs;            /* the source's or GIO call's, the cancel registration's, close's */
    vow_glib__state *st;        /* a reference of the state's refs */
    vow_resolver *resolver;     /* +1 until the request finished */
    GSource *source;            /* VOW_GLIB__TIMEOUT: a reference of ours */
    GCancellable *cancellable;  /* VOW_GLIB__ASYNC: a reference of ours */
    vow_glib_finish finish;
    void *ctx;
    void (*destroy)(void *ctx);
    vow_glib__req *prev, *next; /* st->live */
};

static void
vow_glib__req_unref(void *ctx)
{
    vow_glib__req *req = ctx;
    if (atomic_fetch_sub(&req->refs, 1) != 1) return;
    if (req->source != NULL) g_source_unref(req->source);
    if (req->cancellable != NULL) g_object_unref(req->cancellable);
    vow_glib__release(req->st);
    free(req);
}

/* The request is over: off the live list; a promise still pending (its source went with a
   closed dispatcher or a destroyed context) is cancelled; the resolver and the request's
   reference go. */
static void
vow_glib__req_finish(vow_glib__req *req)
{
    vow_glib__state *st = req->st;
    pthread_mutex_lock(&st->lock);
    if (!req->done) {
        req->done = true;
        if (req->prev != NULL) req->prev->next = req->next; else st->live = req->next;
        if (req->next != NULL) req->next->prev = req->prev;
        req->prev = req->next = NULL;
    }
    pthread_mutex_unlock(&st->lock);
    vow_error *cancelled = vow_error_cancelled();
    vow_resolver_reject(req->resolver, cancelled); /* VOW_EALREADY unless nothing settled it */
    vow_error_release(cancelled);
    vow_resolver_release(req->resolver);
    req->resolver = NULL;
    vow_glib__req_unref(req);
}

/* Stops what req waits for (any thread): destroys the timeout's source, cancels the GIO
   call. Its notify or callback then finishes it. */
static void
vow_glib__req_stop(vow_glib__req *req)
{
    pthread_mutex_lock(&req->st->lock);
    bool stop = !req->stopped && !req->done;
    req->stopped = true;
    pthread_mutex_unlock(&req->st->lock);
    if (!stop) return;
    if (req->kind == VOW_GLIB__TIMEOUT) {
        g_source_destroy(req->source); /* runs the notify (here, or after a dispatch in progress) */
    } else {
        g_cancellable_cancel(req->cancellable);
    }
}

/* The cancel handler (in d's context, through vow_resolver_on_cancel_on). */
static void
vow_glib__req_cancelled(void *ctx)
{
    vow_glib__req_stop(ctx);
}

/* Closing or a destroyed context: every pending request is cancelled. */
static void
vow_glib__cancel_live(vow_glib__state *st)
{
    vow_error *cancelled = vow_error_cancelled();
    for (;;) {
        vow_glib__req *req = NULL;
        pthread_mutex_lock(&st->lock);
        for (vow_glib__req *r = st->live; r != NULL; r = r->next) {
            if (!r->stopped) {
                req = r;
                atomic_fetch_add(&req->refs, 1); /* close's, while it works on it */
                break;
            }
        }
        pthread_mutex_unlock(&st->lock);
        if (req == NULL) break;
        vow_resolver *resolver = vow_resolver_retain(req->resolver);
        vow_resolver_reject(resolver, cancelled);
        vow_resolver_release(resolver);
        vow_glib__req_stop(req);
        vow_glib__req_unref(req);
    }
    vow_error_release(cancelled);
}

static gboolean vow_glib__on_timeout(gpointer data);
static void vow_glib__timeout_gone(gpointer data);

/* A new request on d with its pending promise in *p_out (made at site_file:site_line; NULL
   file: the site "C") and d's context in *context_out (borrowed: valid while the caller
   keeps d open); NULL if d is not an open dispatcher of this bridge. A timeout's source is
   attached, an async call's cancellable made, before the request is on the live list (a
   close on another thread may stop it from then on). */
static vow_glib__req *
vow_glib__req_new(vow_dispatcher *d, int kind, guint interval_ms, vow_promise **p_out,
                  GMainContext **context_out, const char *site_file, int site_line)
{
    *p_out = NULL;
    if (d == NULL) return NULL;
    vow_glib__state *st = vow__registry_find(&vow_glib__registry, d);
    if (st == NULL) return NULL;
    vow_glib__req *req = calloc(1, sizeof *req);
    if (req == NULL) return NULL;
    req->kind = kind;
    req->st = st;
    atomic_init(&req->refs, 2);
    pthread_mutex_lock(&st->lock);
    if (st->closed || st->gone) {
        pthread_mutex_unlock(&st->lock);
        free(req);
        return NULL;
    }
    st->refs++; /* the request's, given back when it is freed */
    *context_out = g_source_get_context(st->source);
    *p_out = vow_promise_pending_site(site_file, site_line, &req->resolver);
    if (kind == VOW_GLIB__TIMEOUT) {
        req->source = g_timeout_source_new(interval_ms);
        g_source_set_name(req->source, "vow timeout");
        g_source_set_callback(req->source, vow_glib__on_timeout, req, vow_glib__timeout_gone);
        g_source_attach(req->source, *context_out);
    } else {
        req->cancellable = g_cancellable_new();
    }
    req->next = st->live;
    if (st->live != NULL) st->live->prev = req;
    st->live = req;
    pthread_mutex_unlock(&st->lock);
    /* The cancel registration's reference goes in its destroy (vow_glib__req_unref). */
    vow_resolver_on_cancel_on(req->resolver, d, vow_glib__req_cancelled, req, vow_glib__req_unref);
    return req;
}

static gboolean
vow_glib__on_timeout(gpointer data)
{
    vow_glib__req *req = data;
    vow_value *nothing = vow_value_null();
    vow_resolver_fulfill(req->resolver, nothing);
    vow_value_release(nothing);
    return G_SOURCE_REMOVE; /* the notify finishes the request */
}

/* The timeout's notify: it fired, or was destroyed (cancelled, closed, context gone). */
static void
vow_glib__timeout_gone(gpointer data)
{
    vow_glib__req_finish(data);
}

vow_promise *
vow_glib_timeout_site(const char *site_file, int site_line, vow_dispatcher *d, guint interval_ms)
{
    vow_promise *p;
    GMainContext *context;
    return vow_glib__req_new(d, VOW_GLIB__TIMEOUT, interval_ms, &p, &context, site_file, site_line) != NULL ? p : NULL;
}

static void
vow_glib__async_ready(GObject *source_object, GAsyncResult *result, gpointer user_data)
{
    vow_glib__req *req = user_data;
    GError *error = NULL;
    vow_value *value = req->finish(req->ctx, source_object, result, &error);
    if (error != NULL) {
        vow_error *e = vow_error_new(g_quark_to_string(error->domain), error->code, error->message);
        vow_resolver_reject(req->resolver, e); /* a cancelled promise answers VOW_EALREADY */
        vow_error_release(e);
        g_error_free(error);
    } else if (value != NULL) {
        vow_resolver_fulfill(req->resolver, value);
    } else {
        vow_value *nothing = vow_value_null();
        vow_resolver_fulfill(req->resolver, nothing);
        vow_value_release(nothing);
    }
    vow_value_release(value);
    if (req->destroy != NULL) req->destroy(req->ctx);
    req->destroy = NULL;
    vow_glib__req_finish(req);
}

vow_promise *
vow_glib_async_site(const char *site_file, int site_line, vow_dispatcher *d, vow_glib_start start,
                    vow_glib_finish finish, void *ctx, void (*destroy)(void *ctx))
{
    vow_promise *p = NULL;
    GMainContext *context = NULL;
    vow_glib__req *req = start != NULL && finish != NULL
        ? vow_glib__req_new(d, VOW_GLIB__ASYNC, 0, &p, &context, site_file, site_line)
        : NULL;
    if (req != NULL && !g_main_context_acquire(context)) {
        /* Another thread owns the context: GIO could not call back there. The promise is
           never handed out: it is settled quietly (fulfilled with the NULL value) before
           it goes, so that finishing the request does not reject it with a cancellation
           that would be reported as unhandled for a promise the caller never got. */
        vow_value *nothing = vow_value_null();
        vow_resolver_fulfill(req->resolver, nothing);
        vow_value_release(nothing);
        vow_promise_release(p);
        p = NULL;
        req->destroy = NULL;
        vow_glib__req_finish(req);
        req = NULL;
    }
    if (req == NULL) {
        if (destroy != NULL) destroy(ctx);
        return NULL;
    }
    req->finish = finish;
    req->ctx = ctx;
    req->destroy = destroy;
    g_main_context_push_thread_default(context);
    start(ctx, req->cancellable, vow_glib__async_ready, req);
    g_main_context_pop_thread_default(context);
    g_main_context_release(context);
    return p;
}

/* ---- The plain names: each calls its _site twin with no site (the promise records "C") -- */

vow_promise *
vow_glib_timeout(vow_dispatcher *d, guint interval_ms)
{
    return vow_glib_timeout_site(NULL, 0, d, interval_ms);
}

vow_promise *
vow_glib_async(vow_dispatcher *d, vow_glib_start start, vow_glib_finish finish, void *ctx, void (*destroy)(void *ctx))
{
    return vow_glib_async_site(NULL, 0, d, start, finish, ctx, destroy);
}
