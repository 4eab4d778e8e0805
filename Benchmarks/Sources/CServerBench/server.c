/*
 * Bluebird's server benchmarks in C (see include/cserverbench.h): each upload is a small
 * program of fake database calls, written twice, with plain callbacks (a state struct per
 * request and a function per step, as C callback code is written) and with Vow promises
 * (one chain per request, its callbacks on the loop's dispatcher).
 *
 * The fake calls complete on the libuv loop through the libuv bridge's dispatcher: each
 * call is one job (vow_dispatch), the same fake layer in both versions. The callback
 * version lets go of the promise vow_dispatch returns at once and is called back from the
 * job; the promise version chains on it. Everything runs on the calling thread, inside
 * uv_run, as a Node.js server runs on its loop (the requests are started on it too).
 */
#define _POSIX_C_SOURCE 200809L
#include "cserverbench.h"
/* The C face by the library's own names (vowface_X), called directly: this program links
   the engine statically (VowSwiftOnly), as every measured copy of Vow did, so the C rows
   measure the C face as before the entry points existed (ARCHITECTURE.md, "One engine
   whatever the products"; a C program through libvow.so reaches the same functions through
   its PLT, the entry points being indirect functions). Older copies have no such names. */
#if __has_include("vow_face_names.h")
#  include "vow_face_names.h"
#endif
#include "vow_uv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the loop, the dispatcher and the fake database ------------------------------ */

static uv_loop_t server_loop;
static vow_dispatcher *loop_dispatcher; /* made once, on the thread that runs the trials */

enum { PARALLEL_QUERIES = 25 };

/* The requests of one run. */
struct server {
    long remaining;
    long failures;
    uint64_t clock; /* Bluebird's `new Date()` and uuid.v1(): a counter, so runs are identical */
};

static void request_finished(struct server *s, int failed) {
    if (failed) s->failures++;
    s->remaining--;
}

/* A fake database call: `done(ctx, NULL, out)` runs in a job of its own on the loop; the
   promise it returns settles from what `done` leaves in out. */
static vow_promise *fake_call(vow_on_value done, void *ctx) {
    return vow_dispatch(loop_dispatcher, done, ctx, NULL);
}

/* A fake call's job that returns nothing (the NULL value). */
static void returns_nothing(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    (void)value;
    (void)out;
}

/* The file name of a path (Bluebird's idOrPath.split('/')): the part after the last '/'. */
static const char *file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char upload_path[] = "/users/7/documents/report.txt";

/* Bluebird's version object: made from the blob and the file found (none). */
static long version_id(long blob_id, int has_file, long previous_id, uint64_t date) {
    long previous = has_file ? previous_id : 0;
    return (((7L * 31 + blob_id) * 31 + previous) * 31) + (long)date;
}

/* ---- doxbee with callbacks -------------------------------------------------------- */

/* One upload's state; each step is a function the fake call completes with. */
struct cb_upload {
    struct server *s;
    void (*next)(struct cb_upload *u, int error, long result); /* the step a call completes with */
    long result;                                               /* what the call in flight returns */
    long blob_id;
    long version_id;
    long file_id;
    int has_file;
    int pending; /* parallel: inserts still running */
    int failed;  /* parallel: one failed */
};

/* The job of a fake call made by the callback version: calls the step back. */
static void cb_call_done(void *ctx, const vow_value *value, vow_result *out) {
    (void)value;
    (void)out;
    struct cb_upload *u = ctx;
    u->next(u, 0, u->result);
}

/* A fake call that completes with `next(u, 0, result)`. */
static void cb_call(struct cb_upload *u, long result, void (*next)(struct cb_upload *, int, long)) {
    u->next = next;
    u->result = result;
    vow_promise_release(fake_call(cb_call_done, u));
}

static void cb_finish(struct cb_upload *u, int error) {
    request_finished(u->s, error);
    free(u);
}

static void cb_backoff(struct cb_upload *u, int error) {
    vow_promise_release(fake_call(returns_nothing, NULL)); /* tx.rollback(): nobody waits for it */
    cb_finish(u, error);
}

static void cb_committed(struct cb_upload *u, int error, long result) {
    (void)result;
    cb_finish(u, error);
}

static void cb_file_updated(struct cb_upload *u, int error, long result) {
    (void)result;
    if (error) return cb_backoff(u, error);
    cb_call(u, 0, cb_committed); /* tx.commit(done) */
}

static void cb_file_version_inserted(struct cb_upload *u, int error, long result) {
    (void)result;
    if (error) return cb_backoff(u, error);
    cb_call(u, 0, cb_file_updated); /* File.whereUpdate({id: fileId}, {version}).execWithin(tx) */
}

static void cb_after_file_exists(struct cb_upload *u, int error, long file_id) {
    if (error) return cb_backoff(u, error);
    u->file_id = file_id;
    cb_call(u, 0, cb_file_version_inserted); /* FileVersion.insert({fileId, versionId}).execWithin(tx) */
}

static void cb_query_ran(struct cb_upload *u, int error, long new_id) {
    cb_after_file_exists(u, error, new_id);
}

static void cb_version_inserted(struct cb_upload *u, int error, long result) {
    (void)result;
    if (error) return cb_backoff(u, error);
    if (u->has_file) return cb_after_file_exists(u, 0, u->file_id);
    long new_id = (long)++u->s->clock;
    /* self.createQuery(idOrPath, {id, name, version}, cb): the query at once, then run */
    (void)file_name(upload_path);
    cb_call(u, new_id, cb_query_ran); /* q.execWithin(tx) */
}

static void cb_file_found(struct cb_upload *u, int error, long found) {
    if (error) return cb_finish(u, error);
    u->has_file = found != 0;
    u->version_id = version_id(u->blob_id, u->has_file, 0, ++u->s->clock);
    cb_call(u, 0, cb_version_inserted); /* Version.insert(version).execWithin(tx) */
}

static void cb_blob_put(struct cb_upload *u, int error, long blob_id) {
    if (error) return cb_finish(u, error);
    u->blob_id = blob_id;
    cb_call(u, 0, cb_file_found); /* self.byUuidOrPath(idOrPath).get() (no file) */
}

static void cb_doxbee(struct server *s) {
    struct cb_upload *u = calloc(1, sizeof *u);
    u->s = s;
    cb_call(u, 1, cb_blob_put); /* blobManager.create(account).put(stream) */
}

/* ---- parallel with callbacks ------------------------------------------------------ */

static void cb_parallel_inserted(struct cb_upload *u, int error, long result) {
    (void)result;
    if (error) u->failed = 1;
    if (--u->pending > 0) return;
    /* The last insert (every callback shares u, so it lives until then). */
    if (u->failed) return cb_backoff(u, 1);
    vow_promise_release(fake_call(returns_nothing, NULL)); /* tx.commit(); done() */
    cb_finish(u, 0);
}

static void cb_parallel(struct server *s) {
    struct cb_upload *u = calloc(1, sizeof *u);
    u->s = s;
    u->pending = PARALLEL_QUERIES;
    for (int i = 0; i < PARALLEL_QUERIES; i++) {
        cb_call(u, 0, cb_parallel_inserted); /* FileVersion.insert({index: i}).execWithin(tx, callback) */
    }
}

/* ---- doxbee with promises --------------------------------------------------------- */

/* What the steps of one upload share (Bluebird's `var version, fileId, file`). */
struct p_upload {
    struct server *s;
    long version_id;
    long file_id;
    long new_id;
    int has_file;
};

/* Fake calls' jobs: what each call returns. */
static void p_returns_blob_id(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    (void)value;
    vow_value *id = vow_value_int(1);
    vow_result_return(out, id);
    vow_value_release(id);
}

static void p_after_join(void *ctx, const vow_value *both, vow_result *out) {
    struct p_upload *u = ctx;
    int64_t blob_id = 0;
    vow_value_get_int(vow_value_at(both, 0), &blob_id);
    u->has_file = vow_value_kind(vow_value_at(both, 1)) != VOW_KIND_NULL;
    u->version_id = version_id((long)blob_id, u->has_file, 0, ++u->s->clock);
    vow_result_adopt(out, fake_call(returns_nothing, NULL)); /* Version.insert(version).execWithin(tx) */
}

static void p_query_ran(void *ctx, const vow_value *value, vow_result *out) {
    (void)value;
    struct p_upload *u = ctx;
    vow_value *id = vow_value_int(u->new_id);
    vow_result_return(out, id); /* .then(() => newId) */
    vow_value_release(id);
}

static void p_run_query(void *ctx, const vow_value *query, vow_result *out) {
    (void)ctx;
    (void)query;
    vow_result_adopt(out, fake_call(returns_nothing, NULL)); /* q.execWithin(tx) */
}

static void p_after_version(void *ctx, const vow_value *value, vow_result *out) {
    (void)value;
    struct p_upload *u = ctx;
    if (u->has_file) {
        vow_value *id = vow_value_int(u->file_id);
        vow_result_return(out, id);
        vow_value_release(id);
        return;
    }
    u->new_id = (long)++u->s->clock;
    (void)file_name(upload_path);
    /* self.createQuery(idOrPath, {...}) (a promise of the query at once), .then(run), .then(newId) */
    vow_value *nothing = vow_value_null();
    vow_promise *query = vow_promise_fulfilled(nothing);
    vow_value_release(nothing);
    vow_promise *ran = vow_then_on(loop_dispatcher, query, p_run_query, NULL, u, NULL);
    vow_promise *id = vow_then_on(loop_dispatcher, ran, p_query_ran, NULL, u, NULL);
    vow_promise_release(query);
    vow_promise_release(ran);
    vow_result_adopt(out, id);
}

static void p_after_file_exists(void *ctx, const vow_value *file_id, vow_result *out) {
    struct p_upload *u = ctx;
    int64_t id = 0;
    vow_value_get_int(file_id, &id);
    u->file_id = (long)id;
    vow_result_adopt(out, fake_call(returns_nothing, NULL)); /* FileVersion.insert(...).execWithin(tx) */
}

static void p_after_file_version(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    (void)value;
    vow_result_adopt(out, fake_call(returns_nothing, NULL)); /* File.whereUpdate(...).execWithin(tx) */
}

static void p_commit(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    (void)value;
    vow_result_adopt(out, fake_call(returns_nothing, NULL)); /* tx.commit() */
}

static void p_rollback(void *ctx, const vow_error *error, vow_result *out) {
    (void)ctx;
    vow_promise_release(fake_call(returns_nothing, NULL)); /* tx.rollback() */
    vow_result_throw(out, error);
}

static void p_done(void *ctx, const vow_value *value, vow_result *out) {
    (void)value;
    (void)out;
    request_finished(ctx, 0);
}

static void p_failed(void *ctx, const vow_error *error, vow_result *out) {
    (void)error;
    (void)out;
    request_finished(ctx, 1);
}

/* parallel's last step: commits without waiting for it, and the request is done. */
static void p_commit_and_finish(void *ctx, const vow_value *value, vow_result *out) {
    (void)value;
    (void)out;
    vow_promise_release(fake_call(returns_nothing, NULL)); /* tx.commit() */
    request_finished(ctx, 0);
}

static void p_rollback_and_fail(void *ctx, const vow_error *error, vow_result *out) {
    (void)error;
    (void)out;
    vow_promise_release(fake_call(returns_nothing, NULL)); /* tx.rollback() */
    request_finished(ctx, 1);
}

/* Chains `step` (and `on_error`) after *p, replacing *p. */
static void chain(vow_promise **p, vow_on_value step, vow_on_error on_error, void *ctx, void (*destroy)(void *)) {
    vow_promise *next = vow_then_on(loop_dispatcher, *p, step, on_error, ctx, destroy);
    vow_promise_release(*p);
    *p = next;
}

static void p_doxbee(struct server *s) {
    struct p_upload *u = calloc(1, sizeof *u);
    u->s = s;
    vow_promise *both[2] = {
        fake_call(p_returns_blob_id, NULL), /* blobManager.create(account).put(stream) */
        fake_call(returns_nothing, NULL), /* self.byUuidOrPath(idOrPath).get() (no file) */
    };
    vow_promise *p = vow_when(both, 2); /* bluebird.join */
    vow_promise_release(both[0]);
    vow_promise_release(both[1]);
    chain(&p, p_after_join, NULL, u, NULL);
    chain(&p, p_after_version, NULL, u, NULL);
    chain(&p, p_after_file_exists, NULL, u, NULL);
    chain(&p, p_after_file_version, NULL, u, NULL);
    chain(&p, p_commit, p_rollback, u, free); /* the last step frees the upload's state */
    chain(&p, p_done, p_failed, s, NULL);
    vow_promise_release(p);
}

/* ---- parallel with promises ------------------------------------------------------- */

static void p_parallel(struct server *s) {
    vow_promise *queries[PARALLEL_QUERIES];
    for (int i = 0; i < PARALLEL_QUERIES; i++) {
        queries[i] = fake_call(returns_nothing, NULL); /* FileVersion.insert({index: i}).execWithin(tx) */
    }
    vow_promise *p = vow_when(queries, PARALLEL_QUERIES);
    for (int i = 0; i < PARALLEL_QUERIES; i++) vow_promise_release(queries[i]);
    chain(&p, p_commit_and_finish, p_rollback_and_fail, s, NULL); /* tx.commit(); done() */
    vow_promise_release(p);
}

/* ---- running -------------------------------------------------------------------- */

long csb_run(int workload, int promises, long requests) {
    if (!loop_dispatcher) {
        if (uv_loop_init(&server_loop) != 0) return -1;
        loop_dispatcher = vow_uv_dispatcher_new(&server_loop);
        if (!loop_dispatcher) return -1;
    }
    struct server s = {.remaining = requests};
    for (long i = 0; i < requests; i++) {
        if (workload == 0) {
            promises ? p_doxbee(&s) : cb_doxbee(&s);
        } else {
            promises ? p_parallel(&s) : cb_parallel(&s);
        }
    }
    /* Returns once no job is queued: every request finished. */
    uv_run(&server_loop, UV_RUN_DEFAULT);
    return s.remaining == 0 ? requests - s.failures : -1;
}
