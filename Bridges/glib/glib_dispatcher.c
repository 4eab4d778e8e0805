/*
 * glib_dispatcher.c: the GLib bridge's dispatcher (include/vow_glib.h): its GSource, the
 * queue run in the context, closing, holds and vow_glib_run. See glib_bridge.h.
 */
#include "glib_bridge.h"

#include <stdlib.h>

typedef struct vow_glib_source {
    GSource base;
    vowglib_state *st;
} vow_glib_source;

static void
queued(vowbridge *b, bool was_empty)
{
    vowglib_state *st = (vowglib_state *)b;
    if (was_empty && !st->gone) g_source_set_ready_time(st->source, 0);
}

static void
hold_changed(vowbridge *b, bool began)
{
    vowglib_state *st = (vowglib_state *)b;
    /* Wake a vow_glib_run blocked in the context (from another thread, or a dropped job). */
    if (!began && b->holds == 0 && !st->gone) g_main_context_wakeup(g_source_get_context(st->source));
}

/* Under the lock, once: the source goes (its notify may run here: the lock is recursive). */
static void
closing(vowbridge *b)
{
    vowglib_state *st = (vowglib_state *)b;
    if (st->source != NULL && !st->gone) g_source_destroy(st->source);
}

static void
free_state(vowbridge *b)
{
    vowglib_state *st = (vowglib_state *)b;
    if (st->source != NULL) g_source_unref(st->source);
    free(st);
}

/* ---- the context's timers: vow_after, vow_timeout, vow_delay, vow_retry on d ---------- */

/* A timeout GSource armed for the library. */
typedef struct glib_vow_timer {
    vowbridge_timer base; /* first */
    vowglib_state *st;
    GSource *source;       /* borrowed: the context holds it while attached */
} glib_vow_timer;

static gboolean
timer_fired(gpointer data)
{
    glib_vow_timer *t = data;
    vowbridge_timer_fired(&t->st->base, &t->base);
    return G_SOURCE_REMOVE; /* timer_gone frees t */
}

/* The timeout's notify: it fired, or was destroyed (cancelled, closed, context gone). */
static void
timer_gone(gpointer data)
{
    glib_vow_timer *t = data;
    vowglib_state *st = t->st;
    /* The context went with the timer still armed: its job is dropped. */
    vowbridge_timer_gone(&st->base, &t->base);
    free(t);
    vowbridge_release(&st->base); /* the timer's */
}

/* vow_timer_arm (the context's thread): a one-shot timeout source in the context, due in
   seconds. NULL if memory ran out: the library's timer is dropped (its vow_after cancelled). */
static void *
timer_arm(void *ctx, double seconds, vow_job run, void *job)
{
    vowglib_state *st = ctx;
    glib_vow_timer *t = calloc(1, sizeof *t);
    pthread_mutex_lock(&st->base.lock);
    GMainContext *context = t != NULL && !st->gone ? g_source_get_context(st->source) : NULL;
    pthread_mutex_unlock(&st->base.lock);
    if (context == NULL) {
        free(t);
        vowbridge_timer_unarmed(&st->base, run, job);
        return NULL;
    }
    uint64_t ms = vowbridge_timer_due(seconds, 0.001, UINT64_MAX);
    t->source = ms <= G_MAXUINT ? g_timeout_source_new((guint)ms) /* over 49 days: whole seconds */
                                : g_timeout_source_new_seconds((guint)vowbridge_timer_due(seconds, 1, G_MAXUINT));
    t->st = st;
    vowbridge_timer_armed(&st->base, &t->base, run, job);
    g_source_set_name(t->source, "vow timer");
    g_source_set_callback(t->source, timer_fired, t, timer_gone);
    g_source_attach(t->source, context);
    g_source_unref(t->source); /* the context's reference keeps it while attached */
    return t;
}

/* ops->timer_stop (any thread): the source goes; its notify frees t. */
static void
timer_stop(vowbridge_timer *base)
{
    g_source_destroy(((glib_vow_timer *)base)->source);
}

/* ---- the queue ------------------------------------------------------------------------- */

static gboolean
dispatch(GSource *source, GSourceFunc callback, gpointer user_data)
{
    /* GLib holds the callback (and so the state's source reference) while this runs. */
    vowglib_state *st = ((vow_glib_source *)source)->st;
    vowbridge *b = &st->base;
    (void)callback;
    (void)user_data;
    pthread_mutex_lock(&b->lock);
    size_t budget = 0;
    if (!b->closed) {
        g_source_set_ready_time(source, -1);
        budget = b->queue.count;
    }
    st->dispatching = true;
    b->owner = pthread_self();
    b->owner_known = true;
    pthread_mutex_unlock(&b->lock);

    vowbridge_run_jobs(b, budget);

    pthread_mutex_lock(&b->lock);
    st->dispatching = false;
    /* Jobs queued while these ran found the queue non-empty and did not make us ready. */
    if (!b->closed && b->queue.count > 0) g_source_set_ready_time(source, 0);
    pthread_mutex_unlock(&b->lock);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs source_funcs = {
    .dispatch = dispatch,
};

/* The source's callback: never called (dispatch runs the queue); it carries the notify. */
static gboolean
never_called(gpointer data)
{
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* The callback's notify: the source was destroyed (any thread; GLib's context lock is not held). */
static void
source_destroyed(gpointer data)
{
    vowglib_state *st = data;
    pthread_mutex_lock(&st->base.lock);
    st->gone = true;
    pthread_mutex_unlock(&st->base.lock);
    vowbridge_close(&st->base); /* VOW_EALREADY when a close destroyed the source */
    vowbridge_release(&st->base);
}

static void
destroy(void *ctx)
{
    vowglib_state *st = ctx;
    vowbridge_close(&st->base);
    vowbridge_release(&st->base);
}

vow_dispatcher *
vow_glib_dispatcher_new(GMainContext *context)
{
    if (context == NULL) context = g_main_context_default();
    vowglib_state *st = calloc(1, sizeof *st);
    if (st == NULL) return NULL;
    if (vowbridge_init(&st->base, &vowglib_ops) != 0) {
        free(st);
        return NULL;
    }
    vow_dispatcher *d = vow_dispatcher_new_with_timers(vowbridge_submit, timer_arm, vowbridge_timer_cancel, st,
                                                        destroy);
    if (d == NULL) return NULL; /* destroy ran and freed st */

    GSource *source = g_source_new(&source_funcs, sizeof(vow_glib_source));
    ((vow_glib_source *)source)->st = st;
    g_source_set_name(source, "vow dispatcher");
    g_source_set_priority(source, G_PRIORITY_DEFAULT);
    pthread_mutex_lock(&st->base.lock);
    st->source = source; /* g_source_new's reference becomes the state's */
    st->base.refs++;     /* the source's, given back by source_destroyed */
    pthread_mutex_unlock(&st->base.lock);
    g_source_set_callback(source, never_called, st, source_destroyed);
    g_source_attach(source, context);
    return d;
}

int
vow_glib_dispatcher_close(vow_dispatcher *d)
{
    vowbridge *b = vowbridge_of(d, &vowglib_ops);
    return b != NULL ? vowbridge_close(b) : VOW_EINVAL;
}

int
vow_glib_hold(vow_dispatcher *d, vow_promise *p)
{
    return vowbridge_hold(d, &vowglib_ops, p);
}

int
vow_glib_run(vow_dispatcher *d)
{
    vowglib_state *st = (vowglib_state *)vowbridge_of(d, &vowglib_ops);
    if (st == NULL) return VOW_EINVAL;
    vowbridge *b = &st->base;
    pthread_mutex_lock(&b->lock);
    if (b->closed || b->holds == 0) {
        pthread_mutex_unlock(&b->lock);
        return VOW_OK;
    }
    if (st->dispatching && pthread_equal(b->owner, pthread_self())) {
        pthread_mutex_unlock(&b->lock);
        return VOW_EINVAL; /* inside one of d's callbacks: d's source cannot run again */
    }
    GMainContext *context = g_main_context_ref(g_source_get_context(st->source));
    b->refs++; /* the run's */
    pthread_mutex_unlock(&b->lock);
    int rc = VOW_EINVAL;
    if (g_main_context_acquire(context)) {
        for (;;) {
            pthread_mutex_lock(&b->lock);
            bool held = !b->closed && b->holds > 0;
            pthread_mutex_unlock(&b->lock);
            if (!held) break;
            g_main_context_iteration(context, TRUE);
        }
        g_main_context_release(context);
        rc = VOW_OK;
    }
    g_main_context_unref(context);
    vowbridge_release(b);
    return rc;
}

const vowbridge_ops vowglib_ops = VOW_BRIDGE_OPS("vow_glib", vowglib_req_stop, vowglib_req_free);
