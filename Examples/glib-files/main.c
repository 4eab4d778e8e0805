/*
 * Examples/glib-files: GIO's asynchronous file loading as promises on a GLib main context.
 *
 * vow_glib_async turns any _async / _finish pair into a promise: here
 * g_file_load_contents_async / _finish, one promise per file, all started at once and
 * gathered with vow_join. The results are reported by a callback that runs in the context
 * (vow_then_on with the GLib dispatcher). vow_glib_hold and vow_glib_run iterate the context
 * exactly until that report is done (a GMainLoop never ends by itself). A missing file
 * rejects with GIO's error: domain "g-io-error-quark", code G_IO_ERROR_NOT_FOUND. Last, a
 * 10 s GLib timeout is cut short by vow_timeout, which cancels it (its GSource is destroyed).
 *
 * Run from the repository's root (it loads two of the repository's files).
 */
#include <stdio.h>
#include <string.h>

#include <gio/gio.h>
#include <vow.h>
#include <vow_glib.h>

/* vow_glib_async's start: ctx is the path. Runs with the dispatcher's context as the
 * thread-default, so GIO calls back there. */
static void
load_start(void *path, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
    GFile *file = g_file_new_for_path(path);
    g_file_load_contents_async(file, cancellable, callback, user_data);
    g_object_unref(file);
}

/* vow_glib_async's finish: the file's bytes, or the GError (which rejects the promise). */
static vow_value *
load_finish(void *path, GObject *file, GAsyncResult *result, GError **error)
{
    char *contents = NULL;
    gsize length = 0;
    (void)path;
    if (!g_file_load_contents_finish(G_FILE(file), result, &contents, &length, NULL, error)) return NULL;
    vow_value *bytes = vow_value_bytes(contents, length);
    g_free(contents);
    return bytes;
}

/* Every file's outcome, in order: vow_join never rejects, a failure is an ERROR value. */
static void
report(void *ctx, const vow_value *results, vow_result *out)
{
    const char *const *paths = ctx;
    for (size_t i = 0; i < vow_value_count(results); i++) {
        const vow_value *r = vow_value_at(results, i);
        const vow_error *e = vow_value_get_error(r);
        if (e != NULL) {
            printf("%s: %s %lld: %s\n", paths[i], vow_error_domain(e), (long long)vow_error_code(e),
                   vow_error_message(e));
            continue;
        }
        size_t n = 0, lines = 0;
        const char *bytes = vow_value_get_bytes(r, &n);
        for (size_t k = 0; k < n; k++) lines += bytes[k] == '\n';
        printf("loaded %s: %zu bytes, %zu lines\n", paths[i], n, lines);
    }
    (void)out;
}

static void
timed_out(void *ctx, const vow_error *e, vow_result *out)
{
    printf("the slow step: %s\n", vow_error_message(e));
    (void)ctx, (void)out;
}

int
main(void)
{
    const char *paths[] = {"README.md", "Package.swift", "no-such-file.txt"};
    enum { N = sizeof paths / sizeof *paths };
    vow_dispatcher *d = vow_glib_dispatcher_new(NULL); /* the default main context */

    vow_promise *loads[N];
    for (size_t i = 0; i < N; i++) loads[i] = vow_glib_async(d, load_start, load_finish, (void *)paths[i], NULL);
    vow_promise *all = vow_join(loads, N);
    vow_promise *reported = vow_then_on(d, all, report, NULL, (void *)paths, NULL);
    vow_glib_hold(d, reported);
    vow_glib_run(d); /* iterates the context until the report ran */
    printf("vow_glib_run returned: the report %s\n", vow_promise_state(reported) == VOW_FULFILLED ? "ran" : "DID NOT RUN");

    /* A 10 s GLib timeout, allowed 50 ms: vow_timeout rejects, then cancels it. */
    vow_promise *slow = vow_glib_timeout(d, 10000);
    vow_promise *cut = vow_timeout(slow, 0.05);
    vow_promise *handled = vow_catch_on(d, cut, timed_out, NULL, NULL);
    vow_glib_hold(d, handled);
    vow_glib_hold(d, slow); /* until its cancellation too */
    vow_glib_run(d);
    printf("the 10 s timeout was cancelled: %s\n", vow_promise_is_cancelled(slow) ? "yes" : "no");

    for (size_t i = 0; i < N; i++) vow_promise_release(loads[i]);
    vow_promise *rest[] = {all, reported, slow, cut, handled};
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) vow_promise_release(rest[i]);
    vow_glib_dispatcher_close(d);
    vow_dispatcher_release(d);
    printf("glib example: ok\n");
    return 0;
}
