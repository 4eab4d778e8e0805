/*
 * uv_bridge.h: the libuv bridge's own internals (include/vow_uv.h), shared by its files:
 *
 *   uv_dispatcher.c   the dispatcher: its uv_async_t, the queue run on the loop, closing,
 *                     holds, the loop's timers (vow_dispatcher_new_with_timers), the
 *                     debug-mode line when uv_run ends with promises pending (a uv_check_t)
 *   uv_requests.c     a request as libuv sees it (vowuv_req over vowbridge_req), its
 *                     errors, stopping it; the plain names of the calls
 *   uv_fs.c           vow_uv_fs_*: open, read, close, stat, fstat, read_file
 *   uv_net_work.c     vow_uv_getaddrinfo, vow_uv_queue_work, vow_uv_timer
 *
 * The state of a dispatcher (vowuv_state, over vowbridge; Bridges/common/vowbridge.h):
 *
 *   submit (any thread)   queues the job; on the queue's empty -> non-empty edge,
 *                         uv_async_send wakes the loop (under the lock, so never after
 *                         the handle began to close); on the loop thread it also
 *                         references the handle, so the loop stays alive until the job ran.
 *   on_async (loop)       runs the jobs queued when it began, one at a time, outside the
 *                         lock; then unreferences the handle if the queue is empty and no
 *                         hold lasts, else wakes itself again.
 *   close (loop)          vowbridge_close: uv_close()s the handle, drops what is queued,
 *                         cancels the live requests; later submits drop their job at once.
 *   destroy (any thread)  the vow_dispatcher is gone (no job left anywhere): closes the
 *                         handle if nobody did, on the loop thread (at once if it is this
 *                         thread, else at the next wake-up).
 *
 * The state's refs count the dispatcher, the two open handles (the uv_async_t and the
 * uv_check_t, each given back by its close callback), every hold, request and armed timer.
 */
#ifndef VOW_UV_BRIDGE_H
#define VOW_UV_BRIDGE_H

#define _POSIX_C_SOURCE 200809L /* uv.h needs POSIX types under a strict -std */
/* These files define the plain names and their _site twins: built with VOW_DEBUG_SITES
   (a program's CFLAGS), the header's macros would rename the definitions. */
#undef VOW_DEBUG_SITES
#include "vow_uv.h"

#include "../common/vowbridge.h"

typedef struct vowuv_state {
    vowbridge base;        /* first: the dispatcher's ctx */
    uv_async_t async;       /* async.data points back here */
    uv_loop_t *loop;
    bool handle_open;       /* uv_async_init succeeded and the handle was not closed yet */
    bool orphaned;          /* destroy ran off the loop thread: on_async closes the handle */
    bool referenced;        /* the handle is uv_ref'ed (jobs queued, or holds) */
    uv_check_t ending;      /* debug mode: says when uv_run ends with promises pending */
    bool ending_open;       /* `ending` was started and not closed yet */
    bool ending_said;       /* said for this end of the loop (cleared while the loop is alive) */
} vowuv_state;

/* A request: the libuv request in flight, and what its steps need. */
typedef struct vowuv_req {
    vowbridge_req base;     /* first */
    union {
        uv_req_t req;
        uv_fs_t fs;
        uv_getaddrinfo_t getaddrinfo;
        uv_work_t work;
    } u;
    uv_timer_t timer;
    bool is_timer;           /* stopping closes `timer` (its close callback finishes) */
    bool closing;            /* the request in flight closes a file: never cancelled */
    uv_loop_t *loop;
    const char *step;        /* the libuv call in flight or that failed ("uv_fs_open"), for errors */
    char *what;              /* its argument as errors show it ("\"/etc/passwd\"", "file 7") */
    /* vow_uv_fs_read, vow_uv_fs_read_file */
    char *buf;
    size_t len, cap, max;    /* fs_read: max is the length asked for */
    int64_t offset;          /* fs_read: where to read (-1: the file's current position) */
    uv_file file;            /* fs_read: the file; read_file: the open file, or -1 */
    int status;              /* read_file: the first failure, or 0 */
    /* vow_uv_queue_work */
    vow_uv_work work;        /* with base.ctx and base.destroy */
    vow_value *value;
    vow_error *error;
} vowuv_req;

VOW_BRIDGE_HIDDEN extern const vowbridge_ops vowuv_ops;

/* A new request of the public call function on d's loop (live, its cancel handler
   registered) whose first libuv call is step, on the argument that what's format
   describes, with its pending promise in *p_out; NULL if d is not an open dispatcher of
   this bridge or memory ran out. Off the loop's thread: a misuse line, then as usual. */
VOW_BRIDGE_HIDDEN vowuv_req *vowuv_req_new(vow_dispatcher *d, vow_promise **p_out, const char *site_file,
                                             int site_line, const char *function, const char *step,
                                             const char *what, ...) VOW_BRIDGE_PRINTF(7, 8);
/* The uv error for status, naming the step and its argument:
   uv_fs_open("/etc/shadow"): permission denied. */
VOW_BRIDGE_HIDDEN vow_error *vowuv_error(const vowuv_req *req, int status);
/* Rejects req's promise with vowuv_error(req, status). */
VOW_BRIDGE_HIDDEN void vowuv_reject(vowuv_req *req, int status);
/* libuv refused the request at once (rc < 0): rejects and finishes; returns p. */
VOW_BRIDGE_HIDDEN vow_promise *vowuv_refused(vowuv_req *req, vow_promise *p, int rc);

#endif /* VOW_UV_BRIDGE_H */
