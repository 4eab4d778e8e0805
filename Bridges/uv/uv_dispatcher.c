/*
 * uv_dispatcher.c: the libuv bridge's dispatcher (include/vow_uv.h): its uv_async_t, the
 * queue run on the loop, closing, holds. See uv_bridge.h.
 */
#include "uv_bridge.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void
on_close(uv_handle_t *handle)
{
    vowbridge_release(handle->data);
}

/* Loop thread, under the lock, handle open: references the handle or lets it go. */
static void
set_referenced(vowuv_state *st, bool wanted)
{
    if (wanted == st->referenced) return;
    if (wanted) {
        uv_ref((uv_handle_t *)&st->async);
    } else {
        uv_unref((uv_handle_t *)&st->async);
    }
    st->referenced = wanted;
}

/* Under the lock: whether this thread is the loop's (as last seen). */
static bool
on_loop_thread(vowuv_state *st)
{
    return pthread_equal(pthread_self(), st->base.owner);
}

static void
queued(vowbridge *b, bool was_empty)
{
    vowuv_state *st = (vowuv_state *)b;
    if (was_empty) uv_async_send(&st->async);
    if (on_loop_thread(st)) set_referenced(st, true);
}

static void
hold_changed(vowbridge *b, bool began)
{
    vowuv_state *st = (vowuv_state *)b;
    if (on_loop_thread(st)) {
        set_referenced(st, began || b->queue.count > 0 || b->holds > 0);
    } else if (began || (b->holds == 0 && b->queue.count == 0)) {
        uv_async_send(&st->async); /* on_async takes hold, or lets go, when the loop wakes */
    }
}

/* Under the lock (vowbridge_close, on the loop thread): the handles start closing. */
static void
closing(vowbridge *b)
{
    vowuv_state *st = (vowuv_state *)b;
    b->owner = pthread_self();
    if (st->ending_open) {
        st->ending_open = false;
        uv_close((uv_handle_t *)&st->ending, on_close);
    }
    if (!st->handle_open) return;
    st->handle_open = false;
    uv_close((uv_handle_t *)&st->async, on_close); /* its callback runs in a later phase */
}

/* ---- debug mode: uv_run ends while promises are pending --------------------------------- */

/* The check phase of every loop iteration (an unreferenced uv_check_t): when no active
   referenced handle and no request is left (the loop's public counts; handles still
   closing are not counted: their close callbacks run next, and a job they submit would
   count), uv_run(UV_RUN_DEFAULT) returns after this iteration. In debug mode, if the
   census then holds pending promises, one line says so and names the fix, once per end of
   the loop (the loop must have been alive again before it is said again). */
static void
on_check(uv_check_t *check)
{
    vowuv_state *st = check->data;
    if (check->loop->active_handles > 0 || check->loop->active_reqs.count > 0) {
        st->ending_said = false;
        return;
    }
    if (st->ending_said || !vow_debug_enabled()) return;
    st->ending_said = true;
    FILE *sink = fopen("/dev/null", "w"); /* the census, counted */
    size_t pending = sink != NULL ? vow_debug_dump_pending(sink) : 0;
    if (sink != NULL) fclose(sink);
    if (pending == 0) return;
    char line[400];
    snprintf(line, sizeof line,
             "returns (nothing keeps the loop alive) while %zu promise%s still pending "
             "(vow_debug_dump_pending lists them): to run the loop until one settles, hold it with "
             "vow_uv_hold(d, p)", pending, pending == 1 ? " is" : "s are");
    vow_report_misuse("uv_run", line);
}

static void
free_state(vowbridge *b)
{
    free(b);
}

/* ---- the loop's timers: vow_after, vow_timeout, vow_delay, vow_retry on d ------------- */

/* A uv_timer_t armed for the library. */
typedef struct uv_vow_timer {
    vowbridge_timer base; /* first */
    uv_timer_t handle;     /* handle.data: the state */
} uv_vow_timer;

static void
timer_closed(uv_handle_t *handle)
{
    vowuv_state *st = handle->data;
    free((char *)handle - offsetof(uv_vow_timer, handle));
    vowbridge_release(&st->base); /* the timer's */
}

static void
timer_fired(uv_timer_t *handle)
{
    uv_vow_timer *t = (uv_vow_timer *)((char *)handle - offsetof(uv_vow_timer, handle));
    vowbridge_timer_fired(handle->data, &t->base);
    uv_close((uv_handle_t *)handle, timer_closed);
}

/* vow_timer_arm (loop thread): a one-shot uv_timer_t on the loop, due in seconds from the
   loop's time now. NULL if memory ran out: the library's timer is dropped (its vow_after
   cancelled). */
static void *
timer_arm(void *ctx, double seconds, vow_job run, void *job)
{
    vowuv_state *st = ctx;
    uv_vow_timer *t = calloc(1, sizeof *t);
    if (t == NULL) {
        vowbridge_timer_unarmed(&st->base, run, job);
        return NULL;
    }
    uv_timer_init(st->loop, &t->handle);
    t->handle.data = st;
    vowbridge_timer_armed(&st->base, &t->base, run, job);
    uv_update_time(st->loop); /* counts from now, not from the loop's cached time */
    uv_timer_start(&t->handle, timer_fired, vowbridge_timer_due(seconds, 0.001, UINT64_MAX), 0);
    return t;
}

/* ops->timer_stop (loop thread): the timer will not fire; its close callback frees it. */
static void
timer_stop(vowbridge_timer *base)
{
    uv_vow_timer *t = (uv_vow_timer *)base;
    uv_timer_stop(&t->handle);
    uv_close((uv_handle_t *)&t->handle, timer_closed);
}

/* ---- the queue ------------------------------------------------------------------------- */

static void
on_async(uv_async_t *handle)
{
    vowuv_state *st = handle->data;
    vowbridge *b = &st->base;
    pthread_mutex_lock(&b->lock);
    b->owner = pthread_self();
    bool orphaned = st->orphaned;
    size_t budget = b->queue.count;
    pthread_mutex_unlock(&b->lock);
    if (orphaned) {
        vowbridge_close(b);
        return;
    }

    vowbridge_run_jobs(b, budget);

    /* The state is still alive: the handle's reference goes only in its close callback,
       which runs in a later phase of the loop. */
    pthread_mutex_lock(&b->lock);
    if (!b->closed) {
        /* Jobs queued while these ran found the queue non-empty and did not wake us. */
        if (b->queue.count > 0) uv_async_send(handle);
        set_referenced(st, b->queue.count > 0 || b->holds > 0);
    }
    pthread_mutex_unlock(&b->lock);
}

static void
destroy(void *ctx)
{
    vowuv_state *st = ctx;
    vowbridge *b = &st->base;
    bool close_now = false;
    pthread_mutex_lock(&b->lock);
    if (st->handle_open && !b->closed) {
        if (on_loop_thread(st)) {
            close_now = true;
        } else {
            st->orphaned = true;
            uv_async_send(&st->async);
        }
    }
    pthread_mutex_unlock(&b->lock);
    if (close_now) vowbridge_close(b);
    vowbridge_release(b);
}

vow_dispatcher *
vow_uv_dispatcher_new(uv_loop_t *loop)
{
    if (loop == NULL) return NULL;
    vowuv_state *st = calloc(1, sizeof *st);
    if (st == NULL) return NULL;
    if (vowbridge_init(&st->base, &vowuv_ops) != 0) {
        free(st);
        return NULL;
    }
    st->base.owner = pthread_self();
    st->base.owner_known = true;
    st->loop = loop;
    vow_dispatcher *d = vow_dispatcher_new_with_timers(vowbridge_submit, timer_arm, vowbridge_timer_cancel, st,
                                                        destroy);
    if (d == NULL) return NULL; /* destroy ran and freed st */
    if (uv_async_init(loop, &st->async, on_async) != 0) {
        vow_dispatcher_release(d); /* nothing was submitted: destroy runs now and frees st */
        return NULL;
    }
    st->async.data = st;
    uv_unref((uv_handle_t *)&st->async); /* idle: keeps nothing alive */
    uv_check_init(loop, &st->ending);
    st->ending.data = st;
    uv_check_start(&st->ending, on_check);
    uv_unref((uv_handle_t *)&st->ending);
    pthread_mutex_lock(&st->base.lock);
    st->handle_open = true;
    st->ending_open = true;
    st->base.refs += 2; /* the open handles', given back by on_close */
    pthread_mutex_unlock(&st->base.lock);
    return d;
}

int
vow_uv_dispatcher_close(vow_dispatcher *d)
{
    vowbridge *b = vowbridge_of(d, &vowuv_ops);
    if (b == NULL) return VOW_EINVAL;
    vowbridge_check_thread(b, "vow_uv_dispatcher_close"); /* uv_close: the loop's thread only */
    return vowbridge_close(b);
}

int
vow_uv_hold(vow_dispatcher *d, vow_promise *p)
{
    return vowbridge_hold(d, &vowuv_ops, p);
}

/* Defined in uv_requests.c. */
void vowuv_req_stop(vowbridge_req *req);
void vowuv_req_free(vowbridge_req *req);

const vowbridge_ops vowuv_ops = VOW_BRIDGE_OPS("vow_uv", vowuv_req_stop, vowuv_req_free);
