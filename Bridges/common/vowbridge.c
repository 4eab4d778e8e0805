/*
 * vowbridge.c: what the event-loop bridges share (vowbridge.h): the state's queue,
 * references and closing, holds, and the protocol of a request.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* PTHREAD_MUTEX_RECURSIVE */
#include "vowbridge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the queue ------------------------------------------------------------------------- */

/* Appends; false (and nothing changed) when memory runs out. */
static bool
queue_push(vowbridge_queue *q, vow_job run, void *job)
{
    if (q->count == q->capacity) {
        size_t capacity = q->capacity ? 2 * q->capacity : 16;
        vowbridge_item *grown = malloc(capacity * sizeof *grown);
        if (grown == NULL) return false;
        for (size_t i = 0; i < q->count; i++) grown[i] = q->items[(q->head + i) % q->capacity];
        free(q->items);
        q->items = grown;
        q->head = 0;
        q->capacity = capacity;
    }
    q->items[(q->head + q->count) % q->capacity] = (vowbridge_item){run, job};
    q->count++;
    return true;
}

/* Removes the oldest item into *out; false if empty. */
static bool
queue_pop(vowbridge_queue *q, vowbridge_item *out)
{
    if (q->count == 0) return false;
    *out = q->items[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    return true;
}

/* Drops every item of q, oldest first, and frees its storage. */
static void
queue_drop_all(vowbridge_queue *q)
{
    vowbridge_item item;
    while (queue_pop(q, &item)) vow_job_drop(item.job);
    free(q->items);
    memset(q, 0, sizeof *q);
}

/* ---- the state ------------------------------------------------------------------------- */

int
vowbridge_init(vowbridge *b, const vowbridge_ops *ops)
{
    pthread_mutexattr_t recursive;
    pthread_mutexattr_init(&recursive);
    pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
    int rc = pthread_mutex_init(&b->lock, &recursive);
    pthread_mutexattr_destroy(&recursive);
    if (rc != 0) return rc;
    b->ops = ops;
    b->refs = 1; /* the dispatcher's */
    return 0;
}

vowbridge *
vowbridge_of(vow_dispatcher *d, const vowbridge_ops *ops)
{
    if (d == NULL) return NULL;
    /* Only a dispatcher made with the bridges' own submit has a vowbridge for ctx; the
       library compares the function and never reads a stranger's ctx. */
    vowbridge *b = vow_dispatcher_host_context(d, vowbridge_submit);
    return b != NULL && b->ops == ops ? b : NULL;
}

void
vowbridge_retain(vowbridge *b)
{
    pthread_mutex_lock(&b->lock);
    b->refs++;
    pthread_mutex_unlock(&b->lock);
}

void
vowbridge_release(vowbridge *b)
{
    pthread_mutex_lock(&b->lock);
    bool last = --b->refs == 0;
    pthread_mutex_unlock(&b->lock);
    if (!last) return;
    pthread_mutex_destroy(&b->lock);
    free(b->queue.items);
    b->ops->free(b);
}

void
vowbridge_submit(void *ctx, vow_job run, void *job)
{
    vowbridge *b = ctx;
    pthread_mutex_lock(&b->lock);
    bool was_empty = b->queue.count == 0;
    if (b->closed || !queue_push(&b->queue, run, job)) {
        pthread_mutex_unlock(&b->lock);
        vow_job_drop(job); /* a closed loop: the job is finished now (vow.h allows it inside submit) */
        return;
    }
    b->ops->queued(b, was_empty);
    pthread_mutex_unlock(&b->lock);
}

void
vowbridge_run_jobs(vowbridge *b, size_t budget)
{
    /* One job at a time, so that a job that closes the dispatcher stops the rest. */
    while (budget-- > 0) {
        vowbridge_item item;
        pthread_mutex_lock(&b->lock);
        bool got = !b->closed && queue_pop(&b->queue, &item);
        pthread_mutex_unlock(&b->lock);
        if (!got) break;
        item.run(item.job);
    }
}

static void vowbridge_cancel_live(vowbridge *b);
static void vowbridge_drop_timers(vowbridge *b);

int
vowbridge_close(vowbridge *b)
{
    vowbridge_queue queued;
    pthread_mutex_lock(&b->lock);
    if (b->closed) {
        pthread_mutex_unlock(&b->lock);
        return VOW_EALREADY;
    }
    b->closed = true;
    queued = b->queue;
    memset(&b->queue, 0, sizeof b->queue);
    b->ops->closing(b);
    pthread_mutex_unlock(&b->lock);
    /* Dropping cancels promises, which may submit more to the dispatcher: those find it closed. */
    queue_drop_all(&queued);
    vowbridge_cancel_live(b);
    vowbridge_drop_timers(b);
    return VOW_OK;
}

bool
vowbridge_on_owner(vowbridge *b)
{
    pthread_mutex_lock(&b->lock);
    bool on = !b->owner_known || pthread_equal(b->owner, pthread_self());
    pthread_mutex_unlock(&b->lock);
    return on;
}

void
vowbridge_check_thread(vowbridge *b, const char *function)
{
    if (vowbridge_on_owner(b)) return;
    vow_report_misuse(function, "called off the loop's thread (the loop's own calls must be made on the thread "
                                "that runs it: reach it with the _on forms, e.g. vow_then_on(d, ...), "
                                "vow_when_limited_on(d, ...))");
}

/* ---- the loop's timers ----------------------------------------------------------------- */

void
vowbridge_timer_armed(vowbridge *b, vowbridge_timer *t, vow_job run, void *job)
{
    t->run = run;
    t->job = job;
    pthread_mutex_lock(&b->lock);
    b->refs++; /* the timer's, given back when the bridge frees it */
    t->next = b->armed;
    if (b->armed != NULL) b->armed->prev = t;
    b->armed = t;
    pthread_mutex_unlock(&b->lock);
}

/* Under the lock: takes t off the armed list, if it is still on it (not fired, cancelled
   or dropped). */
static bool
timer_take_locked(vowbridge *b, vowbridge_timer *t)
{
    if (t == NULL || t->done) return false;
    t->done = true;
    if (t->prev != NULL) t->prev->next = t->next; else b->armed = t->next;
    if (t->next != NULL) t->next->prev = t->prev;
    t->prev = t->next = NULL;
    return true;
}

/* Takes t (or, for NULL t, the first armed timer) off the armed list; NULL if there was
   none to take. */
static vowbridge_timer *
timer_take(vowbridge *b, vowbridge_timer *t)
{
    pthread_mutex_lock(&b->lock);
    if (t == NULL) t = b->armed;
    bool taken = timer_take_locked(b, t);
    pthread_mutex_unlock(&b->lock);
    return taken ? t : NULL;
}

/* t, taken: the loop stops it, the library's job is dropped. */
static void
timer_stop_and_drop(vowbridge *b, vowbridge_timer *t)
{
    void *job = t->job;
    b->ops->timer_stop(t); /* may free t */
    vow_job_drop(job);
}

static void
drop_job(void *job)
{
    vow_job_drop(job);
}

void
vowbridge_timer_unarmed(vowbridge *b, vow_job run, void *job)
{
    (void)run;
    vowbridge_submit(b, drop_job, job);
}

void
vowbridge_timer_fired(vowbridge *b, vowbridge_timer *t)
{
    if (timer_take(b, t) != NULL) t->run(t->job);
}

void
vowbridge_timer_gone(vowbridge *b, vowbridge_timer *t)
{
    if (timer_take(b, t) != NULL) vow_job_drop(t->job);
}

void
vowbridge_timer_cancel(void *ctx, void *host_timer)
{
    vowbridge *b = ctx;
    vowbridge_timer *t = host_timer; /* NULL: arm made none */
    if (t != NULL && timer_take(b, t) != NULL) timer_stop_and_drop(b, t);
}

uint64_t
vowbridge_timer_due(double seconds, double unit, uint64_t max)
{
    double units = seconds / unit;
    if (!(units < (double)max)) return max;
    uint64_t due = (uint64_t)units;
    return (double)due < units && due < max ? due + 1 : due;
}

/* Closing: the loop will never run the armed timers: each is stopped and its job dropped
   (a vow_after's promise is cancelled). */
static void
vowbridge_drop_timers(vowbridge *b)
{
    vowbridge_timer *t;
    while ((t = timer_take(b, NULL)) != NULL) timer_stop_and_drop(b, t);
}

/* ---- holds ----------------------------------------------------------------------------- */

/* The job of a hold's watch: nothing to do; the hold ends in hold_end. */
static void
hold_seen(void *ctx)
{
    (void)ctx;
}

/* A hold ends (the watch's destroy: after its job ran, or when it was dropped). Any thread. */
static void
hold_end(void *ctx)
{
    vowbridge *b = ctx;
    pthread_mutex_lock(&b->lock);
    b->holds--;
    if (!b->closed) b->ops->hold_changed(b, false);
    pthread_mutex_unlock(&b->lock);
    vowbridge_release(b);
}

int
vowbridge_hold(vow_dispatcher *d, const vowbridge_ops *ops, vow_promise *p)
{
    if (d == NULL || p == NULL) return VOW_EINVAL;
    vowbridge *b = vowbridge_of(d, ops);
    if (b == NULL) return VOW_EINVAL;
    pthread_mutex_lock(&b->lock);
    if (b->closed) {
        pthread_mutex_unlock(&b->lock);
        return VOW_EALREADY;
    }
    b->holds++;
    b->refs++; /* the hold's, given back by hold_end */
    b->ops->hold_changed(b, true);
    pthread_mutex_unlock(&b->lock);
    /* On failure vow_observe_on runs hold_end before returning. */
    return vow_observe_on(d, p, hold_seen, b, hold_end);
}

/* ---- requests -------------------------------------------------------------------------- */

static void
req_unref(void *ctx)
{
    vowbridge_req *req = ctx;
    if (atomic_fetch_sub(&req->refs, 1) != 1) return;
    vowbridge *b = req->b;
    b->ops->req_free(req);
    free(req);
    vowbridge_release(b);
}

/* The cancel handler (in the dispatcher's loop, through vow_resolver_on_cancel_on). */
static void
req_cancelled(void *ctx)
{
    vowbridge_req_stop(ctx);
}

vowbridge_req *
vowbridge_req_new(vow_dispatcher *d, const vowbridge_ops *ops, size_t size, vow_promise **p_out,
                   const char *site_file, int site_line)
{
    *p_out = NULL;
    vowbridge *b = vowbridge_of(d, ops);
    if (b == NULL) return NULL;
    vowbridge_req *req = calloc(1, size);
    if (req == NULL) return NULL;
    pthread_mutex_lock(&b->lock);
    if (b->closed) {
        pthread_mutex_unlock(&b->lock);
        free(req);
        return NULL;
    }
    b->refs++; /* the request's, given back when it is freed */
    pthread_mutex_unlock(&b->lock);
    req->b = b;
    req->d = d;
    atomic_init(&req->refs, 2);
    *p_out = vow_promise_pending_site(site_file, site_line, &req->resolver);
    return req;
}

void
vowbridge_req_start(vowbridge_req *req)
{
    vowbridge *b = req->b;
    pthread_mutex_lock(&b->lock);
    bool closed = b->closed;
    if (!closed && !req->done) { /* done: finished already (a GLib source that fired at once) */
        req->next = b->live;
        if (b->live != NULL) b->live->prev = req;
        b->live = req;
    }
    pthread_mutex_unlock(&b->lock);
    /* The cancel registration's reference goes in its destroy (req_unref). */
    vow_resolver_on_cancel_on(req->resolver, req->d, req_cancelled, req, req_unref);
    if (closed) { /* a close on another thread came first: it could not see req */
        vowbridge_reject(req->resolver, vow_error_cancelled());
        vowbridge_req_stop(req);
    }
}

void
vowbridge_req_finish(vowbridge_req *req)
{
    vowbridge *b = req->b;
    pthread_mutex_lock(&b->lock);
    if (!req->done) {
        req->done = true;
        if (req->prev != NULL) req->prev->next = req->next; else if (b->live == req) b->live = req->next;
        if (req->next != NULL) req->next->prev = req->prev;
        req->prev = req->next = NULL;
    }
    pthread_mutex_unlock(&b->lock);
    void (*destroy)(void *ctx) = req->destroy;
    req->destroy = NULL;
    if (destroy != NULL) destroy(req->ctx);
    /* Nothing settled it (its source went with a closed dispatcher or a destroyed context). */
    if (!vow_resolver_is_used(req->resolver)) vowbridge_reject(req->resolver, vow_error_cancelled());
    vow_resolver_release(req->resolver);
    req->resolver = NULL;
    req_unref(req);
}

void
vowbridge_req_stop(vowbridge_req *req)
{
    vowbridge *b = req->b;
    pthread_mutex_lock(&b->lock);
    bool stop = !req->stopped && !req->done;
    req->stopped = true;
    pthread_mutex_unlock(&b->lock);
    if (stop) b->ops->req_stop(req);
}

vow_promise *
vowbridge_no_request(void *ctx, void (*destroy)(void *ctx))
{
    if (destroy != NULL) destroy(ctx);
    return NULL;
}

vow_promise *
vowbridge_req_refused(vowbridge_req *req, vow_promise *p, vow_error *e)
{
    vowbridge_reject(req->resolver, e);
    vowbridge_req_finish(req);
    return p;
}

/* Closing: every live request is cancelled (its promise rejected, then the request stopped). */
static void
vowbridge_cancel_live(vowbridge *b)
{
    for (;;) {
        vowbridge_req *req = NULL;
        pthread_mutex_lock(&b->lock);
        for (vowbridge_req *r = b->live; r != NULL; r = r->next) {
            if (!r->stopped) {
                req = r;
                atomic_fetch_add(&req->refs, 1); /* close's, while it works on it */
                break;
            }
        }
        vow_resolver *resolver = req != NULL ? vow_resolver_retain(req->resolver) : NULL;
        pthread_mutex_unlock(&b->lock);
        if (req == NULL) break;
        vowbridge_reject(resolver, vow_error_cancelled());
        vow_resolver_release(resolver);
        vowbridge_req_stop(req);
        req_unref(req);
    }
}

/* ---- settling -------------------------------------------------------------------------- */

bool
vowbridge_fulfil(vow_resolver *r, vow_value *v)
{
    if (v == NULL) v = vow_value_null();
    int rc = vow_resolver_fulfill(r, v);
    vow_value_release(v);
    return rc == VOW_OK;
}

void
vowbridge_reject(vow_resolver *r, vow_error *e)
{
    if (e == NULL) return; /* out of memory: the request's end cancels the promise */
    vow_resolver_reject(r, e); /* a cancelled promise answers VOW_EALREADY: fine */
    vow_error_release(e);
}

vow_error *
vowbridge_error(const char *domain, int code, const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return vow_error_new(domain, code, message);
}
