/*
 * uv_requests.c: a libuv request as a promise (vowuv_req over the shared vowbridge_req):
 * making it, its errors, stopping and freeing it; and the plain names of the calls, one
 * per row of VOW_UV_PROMISE_MAKERS (include/vow_uv.h). See uv_bridge.h.
 */
#include "uv_bridge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vowuv_req *
vowuv_req_new(vow_dispatcher *d, vow_promise **p_out, const char *site_file, int site_line,
               const char *function, const char *step, const char *what, ...)
{
    vowuv_req *req = (vowuv_req *)vowbridge_req_new(d, &vowuv_ops, sizeof(vowuv_req), p_out, site_file, site_line);
    if (req == NULL) return NULL;
    vowbridge_check_thread(req->base.b, function);
    vowuv_state *st = (vowuv_state *)req->base.b;
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
    vowbridge_req_start(&req->base);
    return req;
}

vow_error *
vowuv_error(const vowuv_req *req, int status)
{
    return vowbridge_error("uv", status, "%s(%s): %s", req->step, req->what != NULL ? req->what : "",
                            uv_strerror(status));
}

void
vowuv_reject(vowuv_req *req, int status)
{
    vowbridge_reject(req->base.resolver, vowuv_error(req, status));
}

vow_promise *
vowuv_refused(vowuv_req *req, vow_promise *p, int rc)
{
    return vowbridge_req_refused(&req->base, p, vowuv_error(req, rc));
}

static void
on_timer_closed(uv_handle_t *handle)
{
    vowbridge_req_finish(handle->data);
}

/* Loop thread (ops->req_stop): stops what req waits for. A thread-pool request not yet
   started is cancelled (its callback comes with UV_ECANCELED); one already running
   finishes. A timer is stopped and closed at once (its close callback finishes it). */
void
vowuv_req_stop(vowbridge_req *base)
{
    vowuv_req *req = (vowuv_req *)base;
    if (req->is_timer) {
        uv_timer_stop(&req->timer);
        uv_close((uv_handle_t *)&req->timer, on_timer_closed);
        return;
    }
    /* A close is left to finish: cancelled, it would leave the file open. */
    if (!req->closing) uv_cancel(&req->u.req);
}

void
vowuv_req_free(vowbridge_req *base)
{
    vowuv_req *req = (vowuv_req *)base;
    free(req->what);
    free(req->buf);
    vow_value_release(req->value);
    vow_error_release(req->error);
}

/* ---- the plain names: each calls its _site twin with no site (the promise records "C") -- */

VOW_UV_PROMISE_MAKERS(VOW_BRIDGE_DEFINE_PLAIN_)
