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
 * The state is freed when both the dispatcher (destroy) and the source (its
 * notify) have let go of it: `refs` counts the two.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* PTHREAD_MUTEX_RECURSIVE */
#include "vow_glib.h"

#include <pthread.h>
#include <stdlib.h>

#include "bridge_queue.h"

typedef struct vow_glib__state {
    pthread_mutex_t lock; /* recursive; guards everything below; never held while a job runs */
    vow__queue queue;
    GSource *source;      /* a reference of ours, dropped when the state is freed */
    bool closed;          /* no job runs any more; later submits are dropped */
    bool gone;            /* the source was destroyed: no GLib call on it any more */
    int refs;             /* the dispatcher's and the source's */
    vow__registry_entry entry;
} vow_glib__state;

typedef struct vow_glib__source {
    GSource base;
    vow_glib__state *st;
} vow_glib__source;

static vow__registry vow_glib__registry = {PTHREAD_MUTEX_INITIALIZER, NULL};

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
    return VOW_OK;
}
