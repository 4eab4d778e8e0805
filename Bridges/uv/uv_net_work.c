/*
 * uv_net_work.c: the libuv bridge's other requests (include/vow_uv.h): name resolution
 * (vow_uv_getaddrinfo), work on libuv's thread pool (vow_uv_queue_work) and a libuv timer
 * (vow_uv_timer). See uv_bridge.h.
 */
#include "uv_bridge.h"

#include <stdio.h>

/* ---- getaddrinfo ----------------------------------------------------------------------- */

static void
free_addrinfo(void *ai)
{
    uv_freeaddrinfo(ai);
}

/* text, quoted for an error message ("NULL" for NULL; cut to fit). */
static void
quoted(char *out, size_t size, const char *text)
{
    if (text == NULL) {
        snprintf(out, size, "NULL");
    } else {
        snprintf(out, size, "\"%s\"", text);
    }
}

static void
on_getaddrinfo(uv_getaddrinfo_t *gai, int status, struct addrinfo *res)
{
    vowuv_req *req = gai->data;
    if (status < 0) {
        vowuv_reject(req, status);
        uv_freeaddrinfo(res); /* NULL, or a list libuv still handed over */
    } else {
        /* Cancelled meanwhile: the value is released at once, which frees the list. */
        vow_value *v = vow_value_pointer(res, free_addrinfo);
        if (v == NULL) {
            uv_freeaddrinfo(res);
            vowuv_reject(req, UV_ENOMEM);
        } else {
            vowbridge_fulfil(req->base.resolver, v);
        }
    }
    vowbridge_req_finish(&req->base);
}

vow_promise *
vow_uv_getaddrinfo_site(const char *site_file, int site_line, vow_dispatcher *d, const char *node,
                        const char *service, const struct addrinfo *hints)
{
    vow_promise *p;
    char node_text[128], service_text[64];
    quoted(node_text, sizeof node_text, node);
    quoted(service_text, sizeof service_text, service);
    vowuv_req *req = vowuv_req_new(d, &p, site_file, site_line, "vow_uv_getaddrinfo", "uv_getaddrinfo", "%s, %s", node_text, service_text);
    if (req == NULL) return NULL;
    int rc = uv_getaddrinfo(req->loop, &req->u.getaddrinfo, on_getaddrinfo, node, service, hints);
    return rc < 0 ? vowuv_refused(req, p, rc) : p;
}

/* ---- queue_work ------------------------------------------------------------------------ */

static void
work(uv_work_t *w)
{
    vowuv_req *req = w->data;
    req->value = req->work(req->base.ctx, &req->error);
}

static void
after_work(uv_work_t *w, int status)
{
    vowuv_req *req = w->data;
    if (status < 0) {
        vowuv_reject(req, status); /* UV_ECANCELED: cancelled before it ran */
    } else if (req->error != NULL) {
        vow_resolver_reject(req->base.resolver, req->error);
    } else {
        vowbridge_fulfil(req->base.resolver, vow_value_retain(req->value));
    }
    /* destroy(ctx) runs in finish; what the work made is released with the request
       (vowuv_req_free). */
    vowbridge_req_finish(&req->base);
}

vow_promise *
vow_uv_queue_work_site(const char *site_file, int site_line, vow_dispatcher *d, vow_uv_work fn, void *ctx,
                       void (*destroy)(void *ctx))
{
    vow_promise *p;
    vowuv_req *req = fn != NULL ? vowuv_req_new(d, &p, site_file, site_line, "vow_uv_queue_work", "uv_queue_work", "%s", "") : NULL;
    if (req == NULL) return vowbridge_no_request(ctx, destroy);
    req->work = fn;
    req->base.ctx = ctx;
    req->base.destroy = destroy; /* runs in finish, also when libuv refuses */
    int rc = uv_queue_work(req->loop, &req->u.work, work, after_work);
    return rc < 0 ? vowuv_refused(req, p, rc) : p;
}

/* ---- timer ----------------------------------------------------------------------------- */

static void
on_timer(uv_timer_t *timer)
{
    vowuv_req *req = timer->data;
    vowbridge_fulfil(req->base.resolver, vow_value_null());
    vowbridge_req_stop(&req->base); /* closes the timer; its close callback finishes */
}

vow_promise *
vow_uv_timer_site(const char *site_file, int site_line, vow_dispatcher *d, uint64_t timeout_ms)
{
    vow_promise *p;
    vowuv_req *req = vowuv_req_new(d, &p, site_file, site_line, "vow_uv_timer", "uv_timer_start", "%llu ms",
                                     (unsigned long long)timeout_ms);
    if (req == NULL) return NULL;
    req->is_timer = true;
    uv_timer_init(req->loop, &req->timer);
    uv_update_time(req->loop);
    uv_timer_start(&req->timer, on_timer, timeout_ms, 0);
    return p;
}
