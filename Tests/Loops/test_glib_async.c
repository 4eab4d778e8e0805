/* test_glib_async.c: vow_glib_async (any _async/_finish pair as a promise, shown with
 * g_file_load_contents_async) and vow_glib_timeout: values, GError domains, cancellation
 * through the GCancellable, destroy once, close cancels what is pending. */
#define _GNU_SOURCE
#include "glib_support.h"

#include <sys/stat.h>

static char dir[256];

static const char *
in_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void
make_files(void)
{
    snprintf(dir, sizeof dir, "/tmp/vow-glib-async-%d", (int)getpid());
    mkdir(dir, 0700);
    FILE *f = fopen(in_dir("poem.txt"), "w");
    fputs("I wandered lonely as a cloud\n", f);
    fclose(f);
}

static void
remove_files(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* The file to load (ctx of the start and finish functions), tracked. */
typedef struct load {
    track *t;
    GFile *file;
    atomic_int started, finished;
    int finish_saw_cancelled;
} load;

static load *
load_new(const char *path)
{
    load *l = calloc(1, sizeof *l);
    l->t = track_new();
    l->file = g_file_new_for_path(path);
    return l;
}

static void
load_destroy(void *ctx)
{
    load *l = ctx;
    g_object_unref(l->file);
    track_destroy(l->t); /* the test frees l after checking */
}

static void
load_start(void *ctx, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
    load *l = ctx;
    atomic_fetch_add(&l->started, 1);
    g_file_load_contents_async(l->file, cancellable, callback, user_data);
}

static vow_value *
load_finish(void *ctx, GObject *source, GAsyncResult *result, GError **error)
{
    load *l = ctx;
    atomic_fetch_add(&l->finished, 1);
    track_hit(l->t);
    char *contents = NULL;
    gsize length = 0;
    if (!g_file_load_contents_finish(G_FILE(source), result, &contents, &length, NULL, error)) {
        if (*error != NULL && g_error_matches(*error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) l->finish_saw_cancelled = 1;
        return NULL;
    }
    vow_value *v = vow_value_bytes(contents, length);
    g_free(contents);
    return v;
}

static void
run_until_settled(vow_dispatcher *d, vow_promise *p)
{
    CHECK_EQ_INT(vow_glib_hold(d, p), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK);
    CHECK(vow_promise_state(p) != VOW_PENDING);
}

static void
test_load_contents(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    load *ok = load_new(in_dir("poem.txt")), *missing = load_new(in_dir("no-such-file.txt"));
    vow_promise *p = vow_glib_async(d, load_start, load_finish, ok, load_destroy);
    vow_promise *q = vow_glib_async(d, load_start, load_finish, missing, load_destroy);
    REQUIRE(p != NULL && q != NULL);
    CHECK_EQ_INT(atomic_load(&ok->started), 1); /* start runs inside the call */
    CHECK_EQ_INT(atomic_load(&ok->finished), 0);
    run_until_settled(d, p);
    run_until_settled(d, q);
    vow_value *v = vow_promise_value(p);
    size_t n = 0;
    const char *bytes = vow_value_get_bytes(v, &n);
    CHECK_EQ_INT(n, 29);
    CHECK(bytes != NULL && memcmp(bytes, "I wandered", 10) == 0);
    vow_value_release(v);
    CHECK(ok->t->on_main); /* finish ran in the context, on this thread */
    vow_error *e = vow_promise_error(q);
    CHECK_EQ_STR(vow_error_domain(e), "g-io-error-quark");
    CHECK_EQ_INT(vow_error_code(e), G_IO_ERROR_NOT_FOUND);
    CHECK(e != NULL && strstr(vow_error_message(e), "No such file") != NULL);
    vow_error_release(e);
    CHECK_EQ_INT(vow_wait(q, 0, NULL, NULL), VOW_REJECTED);
    CHECK_DESTROYED_ONCE(ok->t);
    CHECK_DESTROYED_ONCE(missing->t);
    free(ok);
    free(missing);
    vow_promise_release(p);
    vow_promise_release(q);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);
}

/* Cancelling the promise cancels the GCancellable: finish sees G_IO_ERROR_CANCELLED. */
static void
test_cancel(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    load *l = load_new(in_dir("poem.txt"));
    vow_promise *p = vow_glib_async(d, load_start, load_finish, l, load_destroy);
    vow_cancel(p);
    CHECK(vow_promise_is_cancelled(p));
    CHECK(iterate_until(ctx, &l->finished, 1));
    CHECK_EQ_INT(l->finish_saw_cancelled, 1);
    CHECK(vow_promise_is_cancelled(p)); /* stays cancelled */
    CHECK_DESTROYED_ONCE(l->t);
    free(l);
    vow_promise_release(p);
    /* Through a timeout: a slow load would be cut the same way; a timer here. */
    vow_promise *slow = vow_glib_timeout(d, 60000);
    vow_promise *limited = vow_timeout(slow, 0.02);
    CHECK_EQ_INT(wait_promise(limited, NULL, NULL), VOW_REJECTED);
    CHECK_EQ_INT(wait_promise(slow, NULL, NULL), VOW_REJECTED);
    CHECK(vow_promise_is_cancelled(slow));
    drain_context(ctx); /* the cancel handler destroys the timeout's source in the context */
    vow_promise_release(slow);
    vow_promise_release(limited);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);
}

static void
test_timeout(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    double start = now_seconds();
    vow_promise *t = vow_glib_timeout(d, 30);
    run_until_settled(d, t);
    CHECK(now_seconds() - start >= 0.029);
    CHECK_EQ_INT(vow_promise_state(t), VOW_FULFILLED);
    vow_promise_release(t);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);
}

/* Closing the dispatcher cancels what is pending; destroying the context does too. */
static void
test_close_and_context_destroyed(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    load *l = load_new(in_dir("poem.txt"));
    vow_promise *loading = vow_glib_async(d, load_start, load_finish, l, load_destroy);
    vow_promise *timer = vow_glib_timeout(d, 60000);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    CHECK(vow_promise_is_cancelled(loading));
    CHECK(vow_promise_is_cancelled(timer));
    CHECK(vow_glib_timeout(d, 1) == NULL);
    track *refused = track_new();
    CHECK(vow_glib_async(d, load_start, load_finish, refused, track_destroy) == NULL);
    CHECK_EQ_INT(track_destroyed(refused), 1);
    CHECK(iterate_until(ctx, &l->finished, 1)); /* GIO still calls back; finish runs */
    CHECK_DESTROYED_ONCE(l->t);
    free(l);
    vow_promise_release(loading);
    vow_promise_release(timer);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);

    ctx = g_main_context_new();
    d = vow_glib_dispatcher_new(ctx);
    timer = vow_glib_timeout(d, 60000);
    g_main_context_unref(ctx); /* the last reference: the context and its sources go */
    CHECK(vow_promise_is_cancelled(timer));
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_EALREADY);
    vow_promise_release(timer);
    vow_dispatcher_release(d);
}

static void
test_bad_input(void)
{
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);
    track *a = track_new(), *b = track_new(), *c = track_new(), *e = track_new();
    CHECK(vow_glib_async(NULL, load_start, load_finish, a, track_destroy) == NULL);
    CHECK(vow_glib_async(d, NULL, load_finish, b, track_destroy) == NULL);
    CHECK(vow_glib_async(d, load_start, NULL, c, track_destroy) == NULL);
    CHECK(vow_glib_async(vow_dispatcher_default(), load_start, load_finish, e, track_destroy) == NULL);
    CHECK_EQ_INT(track_destroyed(a) + track_destroyed(b) + track_destroyed(c) + track_destroyed(e), 4);
    CHECK(vow_glib_timeout(NULL, 1) == NULL);
    CHECK(vow_glib_timeout(vow_dispatcher_default(), 1) == NULL);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);
}

/* A context that another thread owns (it runs a GMainLoop there): vow_glib_async returns NULL
   and runs destroy, and reports nothing. Before, the promise it had made (and never handed
   out) was rejected with a cancellation when the request finished, and the unhandled-error
   handler saw that cancellation. */
static void
test_context_owned_elsewhere(void)
{
    unhandled_counter_install();
    loop_thread lt;
    REQUIRE(loop_thread_start(&lt));
    vow_dispatcher *d = vow_glib_dispatcher_new(lt.ctx);
    REQUIRE(d != NULL);
    load *l = load_new(in_dir("poem.txt"));
    CHECK(vow_glib_async(d, load_start, load_finish, l, load_destroy) == NULL);
    CHECK_EQ_INT(atomic_load(&l->started), 0); /* start never ran */
    CHECK_DESTROYED_ONCE(l->t);
    flush_default();
    CHECK_EQ_INT(unhandled_count(), 0);
    free(l);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    loop_thread_stop(&lt);
    drain_context(lt.ctx);
    loop_thread_free(&lt);
    CHECK_EQ_INT(unhandled_count(), 0);
}

TEST_MAIN_BEGIN("test_glib_async")
    make_files();
    RUN_TEST(test_load_contents);
    RUN_TEST(test_cancel);
    RUN_TEST(test_timeout);
    RUN_TEST(test_close_and_context_destroyed);
    RUN_TEST(test_bad_input);
    RUN_TEST(test_context_owned_elsewhere);
    remove_files();
TEST_MAIN_END
