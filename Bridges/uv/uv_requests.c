/*
 * uv_requests.c: a libuv request as a promise (vow_uv_req over the shared vow_bridge_req):
 * making it, its errors, stopping and freeing it; and the plain names of the calls, one
 * per row of VOW_UV_PROMISE_MAKERS (include/vow_uv.h). See uv_bridge.h.
 */
#include "uv_bridge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vow_uv_req *
vow_uv_req_new(vow_dispatcher *d, vow_promise **p_out, const char *site_file, int site_line,
               const char *function, const char *step, const char *what, ...)
{
    vow_uv_req *req = (vow_uv_req *)vow_bridge_req_new(d, &vow_uv_ops, sizeof(vow_uv_req), p_out, site_file, site_line);
    if (req == NULL) return NULL;
    vow_bridge_check_thread(req->base.b, function);
    vow_uv_state *st = (vow_uv_state *)req->base.b;
    req->loop = st->loop;
    req->file = -1;
    req->step = step;
    req->u.req.data = req;
    req->timer.data = req;
    char text[256];
    va_list args;
    va_start(args, what);
    vsnprintf(text, sizeof text, what, args);
    va_end(args);
    req->what = malloc(strlen(text) + 1);
    if (req->what != NULL) strcpy(req->what, text);
    vow_bridge_req_start(&req->base);
    return req;
}

vow_error *
vow_uv_error(const vow_uv_req *req, int status)
{
    return vow_bridge_error("uv", status, "%s(%s): %s", req->step, req->what != NULL ? req->what : "",
                            uv_strerror(status));
}

void
vow_uv_reject(vow_uv_req *req, int status)
{
    vow_bridge_reject(req->base.resolver, vow_uv_error(req, status));
}

vow_promise *
vow_uv_refused(vow_uv_req *req, vow_promise *p, int rc)
{
    return vow_bridge_req_refused(&req->base, p, vow_uv_error(req, rc));
}

static void
on_timer_closed(uv_handle_t *handle)
{
    vow_bridge_req_finish(handle->data);
}

/* Loop thread (ops->req_stop): stops what req waits for. A thread-pool request not yet
   started is cancelled (its callback comes with UV_ECANCELED); one already running
   finishes. A timer is stopped and closed at once (its close callback finishes it). */
void
vow_uv_req_stop(vow_bridge_req *base)
{
    vow_uv_req *req = (vow_uv_req *)base;
    if (req->is_timer) {
        uv_timer_stop(&req->timer);
        uv_close((uv_handle_t *)&req->timer, on_timer_closed);
        return;
    }
    /* A close is left to finish: cancelled, it would leave the file open. */
    if (!req->closing) uv_cancel(&req->u.req);
}

void
vow_uv_req_free(vow_bridge_req *base)
{
    vow_uv_req *req = (vow_uv_req *)base;
    free(req->what);
    free(req->buf);
    vow_value_release(req->value);
    vow_error_release(req->error);
}

/* ---- the plain names: each calls its _site twin with no site (the promise records "C") -- */

VOW_UV_PROMISE_MAKERS(VOW_BRIDGE_DEFINE_PLAIN_)
