/*
 * vow_uv.c: the libuv bridge (include/vow_uv.h), built into libvow-uv.a.
 *
 * One state per dispatcher:
 *
 *   submit (any thread)   queues the job under the state's lock; on the queue's
 *                         empty -> non-empty edge, uv_async_send wakes the loop
 *                         (under the lock, so never after the handle began to
 *                         close); on the loop thread it also references the
 *                         handle, so the loop stays alive until the job ran.
 *   on_async (loop)       runs the jobs queued when it began, one at a time,
 *                         outside the lock; then unreferences the handle if
 *                         the queue is empty, else wakes itself again.
 *   close (loop)          marks the state closed, uv_close()s the handle and
 *                         drops what is queued; later submits drop their job
 *                         at once (vow_job_drop inside submit).
 *   destroy (any thread)  the vow_dispatcher is gone (no job left anywhere):
 *                         closes the handle if nobody did, on the loop thread
 *                         (at once if it is this thread, else at the next
 *                         wake-up).
 *
 * The state is freed when both the dispatcher (destroy) and the open handle
 * (its close callback) have let go of it: `refs` counts the two.
 */
#define _POSIX_C_SOURCE 200809L /* uv.h needs POSIX types under a strict -std */
#include "vow_uv.h"

#include <pthread.h>
#include <stdlib.h>

#include "bridge_queue.h"

typedef struct vow_uv__state {
    uv_async_t async;       /* async.data points back here */
    pthread_mutex_t lock;   /* guards everything below; never held while a job runs */
    vow__queue queue;
    pthread_t owner;        /* the loop thread, as last seen */
    bool handle_open;       /* uv_async_init succeeded and the handle was not closed yet */
    bool closed;            /* no job runs any more; later submits are dropped */
    bool orphaned;          /* destroy ran off the loop thread: on_async closes the handle */
    bool referenced;        /* the handle is uv_ref'ed (jobs queued) */
    int refs;               /* the dispatcher's and the open handle's */
    vow__registry_entry entry;
} vow_uv__state;

static vow__registry vow_uv__registry = {PTHREAD_MUTEX_INITIALIZER, NULL};

static void
vow_uv__release(vow_uv__state *st)
{
    pthread_mutex_lock(&st->lock);
    bool last = --st->refs == 0;
    pthread_mutex_unlock(&st->lock);
    if (!last) return;
    pthread_mutex_destroy(&st->lock);
    free(st->queue.items);
    free(st);
}

static void
vow_uv__on_close(uv_handle_t *handle)
{
    vow_uv__release(handle->data);
}

/* Loop thread, under the lock: starts closing the handle (the caller calls uv_close after unlocking). */
static bool
vow_uv__begin_close(vow_uv__state *st)
{
    bool was_open = st->handle_open;
    st->closed = true;
    st->handle_open = false;
    return was_open;
}

static void
vow_uv__submit(void *ctx, vow_job run, void *job)
{
    vow_uv__state *st = ctx;
    pthread_mutex_lock(&st->lock);
    if (st->closed) {
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
    if (was_empty) uv_async_send(&st->async);
    if (!st->referenced && pthread_equal(pthread_self(), st->owner)) {
        uv_ref((uv_handle_t *)&st->async);
        st->referenced = true;
    }
    pthread_mutex_unlock(&st->lock);
}

static void
vow_uv__on_async(uv_async_t *handle)
{
    vow_uv__state *st = handle->data;
    pthread_mutex_lock(&st->lock);
    st->owner = pthread_self();
    if (st->orphaned) {
        bool close_now = vow_uv__begin_close(st);
        pthread_mutex_unlock(&st->lock);
        if (close_now) uv_close((uv_handle_t *)handle, vow_uv__on_close);
        return;
    }
    size_t budget = st->queue.count;
    pthread_mutex_unlock(&st->lock);

    /* One job at a time, so that a job that closes the dispatcher stops the rest. */
    while (budget-- > 0) {
        vow__item item;
        pthread_mutex_lock(&st->lock);
        bool got = !st->closed && vow__queue_pop(&st->queue, &item);
        pthread_mutex_unlock(&st->lock);
        if (!got) break;
        item.run(item.job);
    }

    /* The state is still alive: the handle's reference goes only in its close callback,
       which runs in a later phase of the loop. */
    pthread_mutex_lock(&st->lock);
    if (!st->closed) {
        if (st->queue.count == 0) {
            if (st->referenced) uv_unref((uv_handle_t *)handle);
            st->referenced = false;
        } else {
            /* Jobs queued while these ran found the queue non-empty and did not wake us. */
            uv_async_send(handle);
            if (!st->referenced) uv_ref((uv_handle_t *)handle);
            st->referenced = true;
        }
    }
    pthread_mutex_unlock(&st->lock);
}

static void
vow_uv__destroy(void *ctx)
{
    vow_uv__state *st = ctx;
    vow__registry_remove(&vow_uv__registry, &st->entry);
    bool close_now = false;
    pthread_mutex_lock(&st->lock);
    if (st->handle_open && !st->closed) {
        if (pthread_equal(pthread_self(), st->owner)) {
            close_now = vow_uv__begin_close(st);
        } else {
            st->orphaned = true;
            uv_async_send(&st->async);
        }
    }
    pthread_mutex_unlock(&st->lock);
    if (close_now) uv_close((uv_handle_t *)&st->async, vow_uv__on_close);
    vow_uv__release(st);
}

vow_dispatcher *
vow_uv_dispatcher_new(uv_loop_t *loop)
{
    if (loop == NULL) return NULL;
    vow_uv__state *st = calloc(1, sizeof *st);
    if (st == NULL) return NULL;
    if (pthread_mutex_init(&st->lock, NULL) != 0) {
        free(st);
        return NULL;
    }
    st->owner = pthread_self();
    st->refs = 1; /* the dispatcher's */
    vow_dispatcher *d = vow_dispatcher_new(vow_uv__submit, st, vow_uv__destroy);
    if (d == NULL) return NULL; /* vow_uv__destroy ran and freed st */
    if (uv_async_init(loop, &st->async, vow_uv__on_async) != 0) {
        vow_dispatcher_release(d); /* nothing was submitted: destroy runs now and frees st */
        return NULL;
    }
    st->async.data = st;
    uv_unref((uv_handle_t *)&st->async); /* idle: keeps nothing alive */
    pthread_mutex_lock(&st->lock);
    st->handle_open = true;
    st->refs++; /* the open handle's, given back by vow_uv__on_close */
    pthread_mutex_unlock(&st->lock);
    vow__registry_add(&vow_uv__registry, &st->entry, d, st);
    return d;
}

int
vow_uv_dispatcher_close(vow_dispatcher *d)
{
    if (d == NULL) return VOW_EINVAL;
    vow_uv__state *st = vow__registry_find(&vow_uv__registry, d);
    if (st == NULL) return VOW_EINVAL;
    vow__queue queued;
    pthread_mutex_lock(&st->lock);
    if (st->closed) {
        pthread_mutex_unlock(&st->lock);
        return VOW_EALREADY;
    }
    st->owner = pthread_self();
    bool close_now = vow_uv__begin_close(st);
    vow__queue_take_all(&st->queue, &queued);
    pthread_mutex_unlock(&st->lock);
    if (close_now) uv_close((uv_handle_t *)&st->async, vow_uv__on_close);
    /* Dropping cancels promises, which may submit more to d: those find it closed. */
    vow__queue_drop_all(&queued);
    return VOW_OK;
}
