/*
 * glib_requests.c: the GLib bridge's requests (include/vow_glib.h) over the shared
 * vowbridge_req: a timeout's GSource (vow_glib_timeout) and a GIO call with its
 * GCancellable (vow_glib_async); the plain names of the calls, one per row of
 * VOW_GLIB_PROMISE_MAKERS. A request is finished by its source's notify or by GIO's
 * callback. See glib_bridge.h.
 */
#include "glib_bridge.h"

typedef struct vowglib_req {
    vowbridge_req base;        /* first */
    GSource *source;            /* vow_glib_timeout: a reference of ours */
    GCancellable *cancellable;  /* vow_glib_async: a reference of ours */
    vow_glib_finish finish;     /* with base.ctx and base.destroy */
} vowglib_req;

/* Stops what req waits for (any thread): destroys the timeout's source, cancels the GIO
   call. Its notify or callback then finishes it. */
void
vowglib_req_stop(vowbridge_req *base)
{
    vowglib_req *req = (vowglib_req *)base;
    if (req->source != NULL) {
        g_source_destroy(req->source); /* runs the notify (here, or after a dispatch in progress) */
    } else {
        g_cancellable_cancel(req->cancellable);
    }
}

void
vowglib_req_free(vowbridge_req *base)
{
    vowglib_req *req = (vowglib_req *)base;
    if (req->source != NULL) g_source_unref(req->source);
    if (req->cancellable != NULL) g_object_unref(req->cancellable);
}

/* A new request on d (not live yet: the caller prepares it, then vowbridge_req_start),
   with its pending promise in *p_out and d's context in *context_out (borrowed: valid
   while the caller keeps d open); NULL if d is not an open dispatcher of this bridge. */
static vowglib_req *
req_new(vow_dispatcher *d, vow_promise **p_out, GMainContext **context_out, const char *site_file, int site_line)
{
    vowglib_req *req = (vowglib_req *)vowbridge_req_new(d, &vowglib_ops, sizeof(vowglib_req), p_out,
                                                             site_file, site_line);
    if (req == NULL) return NULL;
    vowglib_state *st = (vowglib_state *)req->base.b;
    pthread_mutex_lock(&st->base.lock);
    *context_out = g_source_get_context(st->source); /* still attached: d was open just now */
    pthread_mutex_unlock(&st->base.lock);
    return req;
}

/* ---- vow_glib_timeout ------------------------------------------------------------------ */

static gboolean
on_timeout(gpointer data)
{
    vowglib_req *req = data;
    vowbridge_fulfil(req->base.resolver, vow_value_null());
    return G_SOURCE_REMOVE; /* the notify finishes the request */
}

/* The timeout's notify: it fired, or was destroyed (cancelled, closed, context gone). */
static void
timeout_gone(gpointer data)
{
    vowbridge_req_finish(data);
}

vow_promise *
vow_glib_timeout_site(const char *site_file, int site_line, vow_dispatcher *d, guint interval_ms)
{
    vow_promise *p;
    GMainContext *context;
    vowglib_req *req = req_new(d, &p, &context, site_file, site_line);
    if (req == NULL) return NULL;
    req->source = g_timeout_source_new(interval_ms);
    g_source_set_name(req->source, "vow timeout");
    g_source_set_callback(req->source, on_timeout, req, timeout_gone);
    g_source_attach(req->source, context);
    vowbridge_req_start(&req->base);
    return p;
}

/* ---- vow_glib_async -------------------------------------------------------------------- */

static void
async_ready(GObject *source_object, GAsyncResult *result, gpointer user_data)
{
    vowglib_req *req = user_data;
    GError *error = NULL;
    vow_value *value = req->finish(req->base.ctx, source_object, result, &error);
    if (error != NULL) {
        vowbridge_reject(req->base.resolver,
                          vow_error_new(g_quark_to_string(error->domain), error->code, error->message));
        g_error_free(error);
        vow_value_release(value);
    } else {
        vowbridge_fulfil(req->base.resolver, value);
    }
    vowbridge_req_finish(&req->base); /* runs destroy(ctx) */
}

vow_promise *
vow_glib_async_site(const char *site_file, int site_line, vow_dispatcher *d, vow_glib_start start,
                    vow_glib_finish finish, void *ctx, void (*destroy)(void *ctx))
{
    vow_promise *p = NULL;
    GMainContext *context = NULL;
    vowglib_req *req = start != NULL && finish != NULL ? req_new(d, &p, &context, site_file, site_line) : NULL;
    if (req != NULL) {
        req->cancellable = g_cancellable_new();
        vowbridge_req_start(&req->base);
        if (!g_main_context_acquire(context)) {
            /* Another thread owns the context: GIO could not call back there. The promise
               is never handed out: it is settled quietly (fulfilled with the NULL value)
               before it goes, so that finishing the request does not reject it with a
               cancellation that would be reported as unhandled for a promise the caller
               never got. The caller learns why from one misuse line. */
            vow_report_misuse("vow_glib_async", "another thread owns d's context (call it on the thread that "
                                                "iterates the context, or while none does): no promise made");
            vowbridge_fulfil(req->base.resolver, NULL);
            vow_promise_release(p);
            p = NULL;
            vowbridge_req_finish(&req->base);
            req = NULL;
        }
    }
    if (req == NULL) return vowbridge_no_request(ctx, destroy);
    req->finish = finish;
    req->base.ctx = ctx;
    req->base.destroy = destroy;
    g_main_context_push_thread_default(context);
    start(ctx, req->cancellable, async_ready, req);
    g_main_context_pop_thread_default(context);
    g_main_context_release(context);
    return p;
}

/* ---- the plain names: each calls its _site twin with no site (the promise records "C") -- */

VOW_GLIB_PROMISE_MAKERS(VOW_BRIDGE_DEFINE_PLAIN_)
