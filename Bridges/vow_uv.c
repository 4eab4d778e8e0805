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
 * Holds (vow_uv_hold) count in `holds`: the handle stays referenced while a job
 * is queued or a hold lasts. A hold ends in the destroy of its vow_observe_on
 * registration (after the job that tells it ran on the loop, or when that job
 * is dropped): off the loop thread it only wakes the loop, which unreferences.
 *
 * Requests (vow_uv_fs_*, getaddrinfo, queue_work, timer) are `vow_uv__req`s on
 * the state's list of live requests (loop thread only), so close can cancel
 * them. A request is freed when both libuv (its callback, or a timer's close
 * callback) and its cancel registration (vow_resolver_on_cancel_on's destroy)
 * have let go: `refs` counts the two.
 *
 * The state is freed when the dispatcher (destroy), the open handle (its close
 * callback), every hold and every request have let go of it: `refs` counts them.
 */
#define _POSIX_C_SOURCE 200809L /* uv.h needs POSIX types under a strict -std */
/* This file defines the plain names and their _site twins: built with VOW_DEBUG_SITES
   (a program's CFLAGS), the header's macros would rename the definitions. */
#undef VOW_DEBUG_SITES
#include "vow_uv.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bridge_queue.h"

typedef struct vow_uv__req vow_uv__req;

typedef struct vow_uv__state {
    uv_async_t async;       /* async.data points back here */
    pthread_mutex_t lock;   /* guards everything below; never held while a job runs */
    vow__queue queue;
    pthread_t owner;        /* the loop thread, as last seen */
    bool handle_open;       /* uv_async_init succeeded and the handle was not closed yet */
    bool closed;            /* no job runs any more; later submits are dropped */
    bool orphaned;          /* destroy ran off the loop thread: on_async closes the handle */
    bool referenced;        /* the handle is uv_ref'ed (jobs queued, or holds) */
    int holds;              /* holds that have not ended */
    int refs;               /* the dispatcher's, the open handle's, each hold's and request's */
    vow_uv__req *live;      /* requests still pending (loop thread only) */
    vow__registry_entry entry;
} vow_uv__state;

static vow__registry vow_uv__registry = {PTHREAD_MUTEX_INITIALIZER, NULL};

static void vow_uv__cancel_live(vow_uv__state *st);

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

/* Loop thread, under the lock, handle open: references the handle or lets it go. */
static void
vow_uv__set_referenced(vow_uv__state *st, bool wanted)
{
    if (wanted == st->referenced) return;
    if (wanted) {
        uv_ref((uv_handle_t *)&st->async);
    } else {
        uv_unref((uv_handle_t *)&st->async);
    }
    st->referenced = wanted;
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
    if (pthread_equal(pthread_self(), st->owner)) vow_uv__set_referenced(st, true);
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
        /* Jobs queued while these ran found the queue non-empty and did not wake us. */
        if (st->queue.count > 0) uv_async_send(handle);
        vow_uv__set_referenced(st, st->queue.count > 0 || st->holds > 0);
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
    vow_uv__cancel_live(st);
    return VOW_OK;
}

/* ---- holds ----------------------------------------------------------------------------- */

/* The job of a hold's watch: nothing to do; the hold ends in vow_uv__hold_end. */
static void
vow_uv__hold_seen(void *ctx)
{
    (void)ctx;
}

/* A hold ends (the watch's destroy: after its job ran, or when it was dropped). Any thread. */
static void
vow_uv__hold_end(void *ctx)
{
    vow_uv__state *st = ctx;
    pthread_mutex_lock(&st->lock);
    st->holds--;
    if (!st->closed) {
        if (pthread_equal(pthread_self(), st->owner)) {
            vow_uv__set_referenced(st, st->queue.count > 0 || st->holds > 0);
        } else if (st->holds == 0 && st->queue.count == 0) {
            uv_async_send(&st->async); /* the loop lets go of the handle in on_async */
        }
    }
    pthread_mutex_unlock(&st->lock);
    vow_uv__release(st);
}

int
vow_uv_hold(vow_dispatcher *d, vow_promise *p)
{
    if (d == NULL || p == NULL) return VOW_EINVAL;
    vow_uv__state *st = vow__registry_find(&vow_uv__registry, d);
    if (st == NULL) return VOW_EINVAL;
    pthread_mutex_lock(&st->lock);
    if (st->closed) {
        pthread_mutex_unlock(&st->lock);
        return VOW_EALREADY;
    }
    st->holds++;
    st->refs++; /* the hold's, given back by vow_uv__hold_end */
    if (pthread_equal(pthread_self(), st->owner)) {
        vow_uv__set_referenced(st, true);
    } else {
        uv_async_send(&st->async); /* on_async takes hold when the loop wakes */
    }
    pthread_mutex_unlock(&st->lock);
    /* On failure vow_observe_on runs vow_uv__hold_end before returning. */
    return vow_observe_on(d, p, vow_uv__hold_seen, st, vow_uv__hold_end);
}

/* ---- requests -------------------------------------------------------------------------- */

enum { VOW_UV__FS, VOW_UV__READ_FILE, VOW_UV__GETADDRINFO, VOW_UV__WORK, VOW_UV__TIMER };

struct vow_uv__req {
    union {
        uv_req_t req;
        uv_fs_t fs;
        uv_getaddrinfo_t getaddrinfo;
        uv_work_t work;
    } u;
    uv_timer_t timer;
    int kind;
    bool done;               /* libuv's part is over, or a timer was stopped (loop thread) */
    bool closing;            /* the request in flight closes a file: never cancelled */
    atomic_int refs;         /* libuv's and the cancel registration's */
    vow_uv__state *st;       /* a reference of the state's refs */
    uv_loop_t *loop;
    vow_resolver *resolver;  /* +1 until libuv's part is over */
    vow_uv__req *prev, *next; /* st->live, while not done */
    /* vow_uv_fs_read, vow_uv_fs_read_file */
    char *buf;
    size_t len, cap, max;    /* fs_read: max is the length asked for */
    int64_t offset;          /* fs_read: where to read (-1: the file's current position) */
    uv_file file;            /* fs_read: the file; read_file: the open file, or -1 */
    int status;              /* read_file: the first failure, or 0 */
    /* vow_uv_queue_work */
    vow_uv_work work;
    void *ctx;
    void (*destroy)(void *ctx);
    vow_value *value;
    vow_error *error;
};

static void
vow_uv__req_unref(void *ctx)
{
    vow_uv__req *req = ctx;
    if (atomic_fetch_sub(&req->refs, 1) != 1) return;
    free(req->buf);
    vow_value_release(req->value);
    vow_error_release(req->error);
    vow_uv__release(req->st);
    free(req);
}

/* Rejects with the uv error for status (a cancelled promise answers VOW_EALREADY: fine). */
static void
vow_uv__reject_status(vow_resolver *r, int status)
{
    vow_error *e = vow_error_new("uv", status, uv_strerror(status));
    vow_resolver_reject(r, e);
    vow_error_release(e);
}

/* Fulfils with v (released); false if the promise was settled already (cancelled). A NULL
   v (memory ran out making it) rejects with UV_ENOMEM. */
static bool
vow_uv__fulfil(vow_resolver *r, vow_value *v)
{
    if (v == NULL) {
        vow_uv__reject_status(r, UV_ENOMEM);
        return false;
    }
    int rc = vow_resolver_fulfill(r, v);
    vow_value_release(v);
    return rc == VOW_OK;
}

/* Loop thread: libuv's part of req is over. Takes it off the live list, lets go of the
   resolver (the promise was settled before) and of libuv's reference. */
static void
vow_uv__req_finish(vow_uv__req *req)
{
    if (!req->done) {
        req->done = true;
        if (req->prev != NULL) req->prev->next = req->next; else req->st->live = req->next;
        if (req->next != NULL) req->next->prev = req->prev;
        req->prev = req->next = NULL;
    }
    vow_resolver_release(req->resolver);
    req->resolver = NULL;
    vow_uv__req_unref(req);
}

static void
vow_uv__on_timer_closed(uv_handle_t *handle)
{
    vow_uv__req_finish(handle->data);
}

/* Loop thread: stops what req waits for. A thread-pool request not yet started is
   cancelled (its callback comes with UV_ECANCELED); one already running finishes. A timer
   is stopped and closed at once. */
static void
vow_uv__req_stop(vow_uv__req *req)
{
    if (req->done) return;
    if (req->kind == VOW_UV__TIMER) {
        req->done = true; /* finish runs from the close callback */
        if (req->prev != NULL) req->prev->next = req->next; else req->st->live = req->next;
        if (req->next != NULL) req->next->prev = req->prev;
        req->prev = req->next = NULL;
        uv_timer_stop(&req->timer);
        uv_close((uv_handle_t *)&req->timer, vow_uv__on_timer_closed);
        return;
    }
    /* A close is left to finish: cancelled, it would leave the file open. */
    if (!req->closing) uv_cancel(&req->u.req);
}

/* The cancel handler (loop thread, through vow_resolver_on_cancel_on). */
static void
vow_uv__req_cancelled(void *ctx)
{
    vow_uv__req_stop(ctx);
}

/* Loop thread (vow_uv_dispatcher_close): every pending request is cancelled. */
static void
vow_uv__cancel_live(vow_uv__state *st)
{
    vow_error *cancelled = vow_error_cancelled();
    vow_uv__req *next;
    for (vow_uv__req *req = st->live; req != NULL; req = next) {
        next = req->next;
        vow_resolver_reject(req->resolver, cancelled);
        vow_uv__req_stop(req);
    }
    vow_error_release(cancelled);
}

/* A new request on d's loop with its pending promise in *p_out, made at site_file:site_line
   (NULL file: the site "C"); NULL if d is not an open dispatcher of this bridge (or memory
   ran out). */
static vow_uv__req *
vow_uv__req_new(vow_dispatcher *d, int kind, vow_promise **p_out, const char *site_file, int site_line)
{
    *p_out = NULL;
    if (d == NULL) return NULL;
    vow_uv__state *st = vow__registry_find(&vow_uv__registry, d);
    if (st == NULL) return NULL;
    vow_uv__req *req = calloc(1, sizeof *req);
    if (req == NULL) return NULL;
    pthread_mutex_lock(&st->lock);
    if (st->closed) {
        pthread_mutex_unlock(&st->lock);
        free(req);
        return NULL;
    }
    st->refs++; /* the request's, given back when it is freed */
    pthread_mutex_unlock(&st->lock);
    req->st = st;
    req->loop = st->async.loop;
    req->kind = kind;
    req->file = -1;
    atomic_init(&req->refs, 2);
    *p_out = vow_promise_pending_site(site_file, site_line, &req->resolver);
    req->u.req.data = req;
    req->timer.data = req;
    req->next = st->live;
    if (st->live != NULL) st->live->prev = req;
    st->live = req;
    /* The cancel registration's reference goes in its destroy (vow_uv__req_unref). */
    vow_resolver_on_cancel_on(req->resolver, d, vow_uv__req_cancelled, req, vow_uv__req_unref);
    return req;
}

/* libuv refused the request at once: the promise rejects with its status. */
static vow_promise *
vow_uv__refused(vow_uv__req *req, vow_promise *p, int status)
{
    vow_uv__reject_status(req->resolver, status);
    vow_uv__req_finish(req);
    return p;
}

static void
vow_uv__free_pointer(void *p)
{
    free(p);
}

static vow_value *
vow_uv__stat_value(const uv_stat_t *statbuf)
{
    uv_stat_t *copy = malloc(sizeof *copy);
    if (copy == NULL) return NULL;
    *copy = *statbuf;
    return vow_value_pointer(copy, vow_uv__free_pointer);
}

/* Closes file now, on this thread (the rare path: a file opened for a cancelled promise). */
static void
vow_uv__close_now(uv_loop_t *loop, uv_file file)
{
    uv_fs_t close_req;
    uv_fs_close(loop, &close_req, file, NULL);
    uv_fs_req_cleanup(&close_req);
}

/* The callback of the single fs requests (open, read, close, stat, fstat). */
static void
vow_uv__on_fs(uv_fs_t *fs)
{
    vow_uv__req *req = fs->data;
    ssize_t result = fs->result;
    if (result < 0) {
        vow_uv__reject_status(req->resolver, (int)result);
    } else {
        switch (fs->fs_type) {
        case UV_FS_OPEN:
            if (!vow_uv__fulfil(req->resolver, vow_value_int(result))) vow_uv__close_now(req->loop, (uv_file)result);
            break;
        case UV_FS_READ:
            vow_uv__fulfil(req->resolver, vow_value_bytes(req->buf, (size_t)result));
            break;
        case UV_FS_STAT:
        case UV_FS_FSTAT:
            vow_uv__fulfil(req->resolver, vow_uv__stat_value(&fs->statbuf));
            break;
        default:
            vow_uv__fulfil(req->resolver, vow_value_null());
            break;
        }
    }
    uv_fs_req_cleanup(fs);
    vow_uv__req_finish(req);
}

vow_promise *
vow_uv_fs_open_site(const char *site_file, int site_line, vow_dispatcher *d, const char *path, int flags, int mode)
{
    if (path == NULL) return NULL;
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__FS, &p, site_file, site_line);
    if (req == NULL) return NULL;
    int rc = uv_fs_open(req->loop, &req->u.fs, path, flags, mode, vow_uv__on_fs);
    return rc < 0 ? vow_uv__refused(req, p, rc) : p;
}

/* fs_read reads at most this much at once from a file that is not a regular file (a pipe,
   a socket, a device), whose size says nothing of what one read returns. */
#define VOW_UV__READ_CHUNK ((size_t)64 * 1024)

/* The fstat before a read (loop thread): the buffer is sized by what can be read, then the
   read starts (its callback is vow_uv__on_fs). */
static void
vow_uv__read_sized(uv_fs_t *fs)
{
    vow_uv__req *req = fs->data;
    ssize_t result = fs->result;
    bool regular = result == 0 && S_ISREG(fs->statbuf.st_mode);
    uint64_t size = fs->statbuf.st_size;
    uv_fs_req_cleanup(fs);
    if (result < 0) {
        vow_uv__reject_status(req->resolver, (int)result);
        vow_uv__req_finish(req);
        return;
    }
    if (vow_resolver_is_used(req->resolver)) { /* cancelled meanwhile */
        vow_uv__req_finish(req);
        return;
    }
    /* A regular file: what lies between the position and its end, as fstat saw it. */
    size_t cap = req->max < VOW_UV__READ_CHUNK ? req->max : VOW_UV__READ_CHUNK;
    if (regular) {
        int64_t start = req->offset >= 0 ? req->offset : (int64_t)lseek(req->file, 0, SEEK_CUR);
        if (start >= 0) {
            uint64_t left = size > (uint64_t)start ? size - (uint64_t)start : 0;
            cap = left < req->max ? (size_t)left : req->max;
        }
    }
    if (cap == 0) {
        vow_uv__fulfil(req->resolver, vow_value_bytes(NULL, 0));
        vow_uv__req_finish(req);
        return;
    }
    req->buf = malloc(cap);
    if (req->buf == NULL) {
        vow_uv__reject_status(req->resolver, UV_ENOMEM);
        vow_uv__req_finish(req);
        return;
    }
    uv_buf_t buf = uv_buf_init(req->buf, (unsigned int)(cap > UINT32_MAX ? UINT32_MAX : cap));
    int rc = uv_fs_read(req->loop, &req->u.fs, req->file, &buf, 1, req->offset, vow_uv__on_fs);
    if (rc < 0) {
        vow_uv__reject_status(req->resolver, rc);
        vow_uv__req_finish(req);
    }
}

vow_promise *
vow_uv_fs_read_site(const char *site_file, int site_line, vow_dispatcher *d, uv_file file, size_t length, int64_t offset)
{
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__FS, &p, site_file, site_line);
    if (req == NULL) return NULL;
    if (offset < -1) {
        char message[128];
        snprintf(message, sizeof message,
                 "vow_uv_fs_read: offset %lld is not a position (-1 reads at the file's current position)",
                 (long long)offset);
        vow_error *e = vow_error_new("uv", UV_EINVAL, message);
        vow_resolver_reject(req->resolver, e);
        vow_error_release(e);
        vow_uv__req_finish(req);
        return p;
    }
    req->file = file;
    req->offset = offset;
    req->max = length;
    int rc = uv_fs_fstat(req->loop, &req->u.fs, file, vow_uv__read_sized);
    return rc < 0 ? vow_uv__refused(req, p, rc) : p;
}

vow_promise *
vow_uv_fs_close_site(const char *site_file, int site_line, vow_dispatcher *d, uv_file file)
{
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__FS, &p, site_file, site_line);
    if (req == NULL) return NULL;
    req->closing = true;
    int rc = uv_fs_close(req->loop, &req->u.fs, file, vow_uv__on_fs);
    return rc < 0 ? vow_uv__refused(req, p, rc) : p;
}

vow_promise *
vow_uv_fs_stat_site(const char *site_file, int site_line, vow_dispatcher *d, const char *path)
{
    if (path == NULL) return NULL;
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__FS, &p, site_file, site_line);
    if (req == NULL) return NULL;
    int rc = uv_fs_stat(req->loop, &req->u.fs, path, vow_uv__on_fs);
    return rc < 0 ? vow_uv__refused(req, p, rc) : p;
}

vow_promise *
vow_uv_fs_fstat_site(const char *site_file, int site_line, vow_dispatcher *d, uv_file file)
{
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__FS, &p, site_file, site_line);
    if (req == NULL) return NULL;
    int rc = uv_fs_fstat(req->loop, &req->u.fs, file, vow_uv__on_fs);
    return rc < 0 ? vow_uv__refused(req, p, rc) : p;
}

/* ---- read_file: open, fstat, read to the end, close, one step at a time ----------------- */

static void vow_uv__read_file_step(uv_fs_t *fs);

/* Starts closing the file (or settles at once if none is open). */
static void
vow_uv__read_file_close(vow_uv__req *req)
{
    if (req->file >= 0) {
        req->closing = true;
        int rc = uv_fs_close(req->loop, &req->u.fs, req->file, vow_uv__read_file_step);
        req->file = -1;
        if (rc == 0) return;
        if (req->status == 0) req->status = rc;
    }
    /* Nothing open: settle now. */
    if (req->status < 0) {
        vow_uv__reject_status(req->resolver, req->status);
    } else {
        vow_uv__fulfil(req->resolver, vow_value_bytes(req->buf, req->len));
    }
    vow_uv__req_finish(req);
}

/* Reads the next piece into the buffer, growing it (up to max_bytes + 1, to see the end). */
static void
vow_uv__read_file_next(vow_uv__req *req)
{
    if (req->len == req->cap) {
        if (req->cap > req->max) {
            req->status = UV_EFBIG;
            vow_uv__read_file_close(req);
            return;
        }
        size_t cap = req->cap * 2 > req->max + 1 ? req->max + 1 : req->cap * 2;
        char *grown = realloc(req->buf, cap);
        if (grown == NULL) {
            req->status = UV_ENOMEM;
            vow_uv__read_file_close(req);
            return;
        }
        req->buf = grown;
        req->cap = cap;
    }
    size_t room = req->cap - req->len;
    uv_buf_t buf = uv_buf_init(req->buf + req->len, (unsigned int)(room > UINT32_MAX ? UINT32_MAX : room));
    int rc = uv_fs_read(req->loop, &req->u.fs, req->file, &buf, 1, (int64_t)req->len, vow_uv__read_file_step);
    if (rc < 0) {
        req->status = rc;
        vow_uv__read_file_close(req);
    }
}

static void
vow_uv__read_file_step(uv_fs_t *fs)
{
    vow_uv__req *req = fs->data;
    ssize_t result = fs->result;
    uv_fs_type type = fs->fs_type;
    uint64_t size = fs->statbuf.st_size;
    uv_fs_req_cleanup(fs);
    if (type == UV_FS_CLOSE) {
        if (result < 0 && req->status == 0) req->status = (int)result;
        vow_uv__read_file_close(req); /* the file is closed: settles */
        return;
    }
    if (result < 0 && req->status == 0) req->status = (int)result;
    if (type == UV_FS_OPEN && result >= 0) req->file = (uv_file)result;
    /* A failure, or the promise was cancelled meanwhile (a step already running finished):
       close the file, then settle. */
    if (req->status < 0 || vow_resolver_is_used(req->resolver)) {
        vow_uv__read_file_close(req);
        return;
    }
    int rc = 0;
    switch (type) {
    case UV_FS_OPEN:
        rc = uv_fs_fstat(req->loop, &req->u.fs, req->file, vow_uv__read_file_step);
        break;
    case UV_FS_FSTAT:
        if (size > req->max) {
            req->status = UV_EFBIG;
            vow_uv__read_file_close(req);
            return;
        }
        /* The size is a hint (a file may grow, /proc says 0): one byte more shows the end. */
        req->cap = (size > 0 ? (size_t)size : 4096) + 1;
        if (req->cap > req->max + 1) req->cap = req->max + 1;
        req->buf = malloc(req->cap);
        if (req->buf == NULL) {
            req->status = UV_ENOMEM;
            vow_uv__read_file_close(req);
            return;
        }
        vow_uv__read_file_next(req);
        return;
    case UV_FS_READ:
        if (result == 0) {
            vow_uv__read_file_close(req); /* the end of the file */
            return;
        }
        req->len += (size_t)result;
        vow_uv__read_file_next(req);
        return;
    default:
        return;
    }
    if (rc < 0) {
        req->status = rc;
        vow_uv__read_file_close(req);
    }
}

vow_promise *
vow_uv_fs_read_file_site(const char *site_file, int site_line, vow_dispatcher *d, const char *path, size_t max_bytes)
{
    if (path == NULL) return NULL;
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__READ_FILE, &p, site_file, site_line);
    if (req == NULL) return NULL;
    req->max = max_bytes < SIZE_MAX ? max_bytes : SIZE_MAX - 1; /* the buffer holds max + 1 */
    int rc = uv_fs_open(req->loop, &req->u.fs, path, O_RDONLY, 0, vow_uv__read_file_step);
    return rc < 0 ? vow_uv__refused(req, p, rc) : p;
}

/* ---- getaddrinfo ----------------------------------------------------------------------- */

static void
vow_uv__free_addrinfo(void *ai)
{
    uv_freeaddrinfo(ai);
}

static void
vow_uv__on_getaddrinfo(uv_getaddrinfo_t *gai, int status, struct addrinfo *res)
{
    vow_uv__req *req = gai->data;
    if (status < 0) {
        vow_uv__reject_status(req->resolver, status);
        uv_freeaddrinfo(res); /* NULL, or a list libuv still handed over */
    } else {
        /* Cancelled meanwhile: the value is released at once, which frees the list. */
        vow_uv__fulfil(req->resolver, vow_value_pointer(res, vow_uv__free_addrinfo));
    }
    vow_uv__req_finish(req);
}

vow_promise *
vow_uv_getaddrinfo_site(const char *site_file, int site_line, vow_dispatcher *d, const char *node, const char *service, const struct addrinfo *hints)
{
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__GETADDRINFO, &p, site_file, site_line);
    if (req == NULL) return NULL;
    int rc = uv_getaddrinfo(req->loop, &req->u.getaddrinfo, vow_uv__on_getaddrinfo, node, service, hints);
    return rc < 0 ? vow_uv__refused(req, p, rc) : p;
}

/* ---- queue_work ------------------------------------------------------------------------ */

static void
vow_uv__work(uv_work_t *work)
{
    vow_uv__req *req = work->data;
    req->value = req->work(req->ctx, &req->error);
}

static void
vow_uv__after_work(uv_work_t *work, int status)
{
    vow_uv__req *req = work->data;
    if (status < 0) {
        vow_uv__reject_status(req->resolver, status); /* UV_ECANCELED: cancelled before it ran */
    } else if (req->error != NULL) {
        vow_resolver_reject(req->resolver, req->error);
    } else if (req->value != NULL) {
        vow_resolver_fulfill(req->resolver, req->value);
    } else {
        vow_uv__fulfil(req->resolver, vow_value_null());
    }
    /* What the work made is released with the request (vow_uv__req_unref). */
    if (req->destroy != NULL) req->destroy(req->ctx);
    req->destroy = NULL;
    vow_uv__req_finish(req);
}

vow_promise *
vow_uv_queue_work_site(const char *site_file, int site_line, vow_dispatcher *d, vow_uv_work work, void *ctx, void (*destroy)(void *ctx))
{
    vow_promise *p;
    vow_uv__req *req = work != NULL ? vow_uv__req_new(d, VOW_UV__WORK, &p, site_file, site_line) : NULL;
    if (req == NULL) {
        if (destroy != NULL) destroy(ctx);
        return NULL;
    }
    req->work = work;
    req->ctx = ctx;
    req->destroy = destroy;
    int rc = uv_queue_work(req->loop, &req->u.work, vow_uv__work, vow_uv__after_work);
    if (rc < 0) {
        if (destroy != NULL) destroy(ctx);
        req->destroy = NULL;
        return vow_uv__refused(req, p, rc);
    }
    return p;
}

/* ---- timer ----------------------------------------------------------------------------- */

static void
vow_uv__on_timer(uv_timer_t *timer)
{
    vow_uv__req *req = timer->data;
    vow_uv__fulfil(req->resolver, vow_value_null());
    vow_uv__req_stop(req); /* closes the timer; finish runs from its close callback */
}

vow_promise *
vow_uv_timer_site(const char *site_file, int site_line, vow_dispatcher *d, uint64_t timeout_ms)
{
    vow_promise *p;
    vow_uv__req *req = vow_uv__req_new(d, VOW_UV__TIMER, &p, site_file, site_line);
    if (req == NULL) return NULL;
    uv_timer_init(req->loop, &req->timer);
    uv_update_time(req->loop);
    uv_timer_start(&req->timer, vow_uv__on_timer, timeout_ms, 0);
    return p;
}

/* ---- The plain names: each calls its _site twin with no site (the promise records "C") -- */

vow_promise *
vow_uv_fs_open(vow_dispatcher *d, const char *path, int flags, int mode)
{
    return vow_uv_fs_open_site(NULL, 0, d, path, flags, mode);
}

vow_promise *
vow_uv_fs_read(vow_dispatcher *d, uv_file file, size_t length, int64_t offset)
{
    return vow_uv_fs_read_site(NULL, 0, d, file, length, offset);
}

vow_promise *
vow_uv_fs_close(vow_dispatcher *d, uv_file file)
{
    return vow_uv_fs_close_site(NULL, 0, d, file);
}

vow_promise *
vow_uv_fs_stat(vow_dispatcher *d, const char *path)
{
    return vow_uv_fs_stat_site(NULL, 0, d, path);
}

vow_promise *
vow_uv_fs_fstat(vow_dispatcher *d, uv_file file)
{
    return vow_uv_fs_fstat_site(NULL, 0, d, file);
}

vow_promise *
vow_uv_fs_read_file(vow_dispatcher *d, const char *path, size_t max_bytes)
{
    return vow_uv_fs_read_file_site(NULL, 0, d, path, max_bytes);
}

vow_promise *
vow_uv_getaddrinfo(vow_dispatcher *d, const char *node, const char *service, const struct addrinfo *hints)
{
    return vow_uv_getaddrinfo_site(NULL, 0, d, node, service, hints);
}

vow_promise *
vow_uv_queue_work(vow_dispatcher *d, vow_uv_work work, void *ctx, void (*destroy)(void *ctx))
{
    return vow_uv_queue_work_site(NULL, 0, d, work, ctx, destroy);
}

vow_promise *
vow_uv_timer(vow_dispatcher *d, uint64_t timeout_ms)
{
    return vow_uv_timer_site(NULL, 0, d, timeout_ms);
}
