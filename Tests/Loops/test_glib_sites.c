/* test_glib_sites.c: the debug sites of the GLib bridge. Compiled with VOW_DEBUG_SITES, so
 * every vow_glib_* call that returns a promise goes through its _site twin and, with debug
 * mode on, the promise records this file and line in the census; the plain function
 * (called as (vow_glib_timeout)(...), which the function-like macro leaves alone) and a
 * twin given no file record "C". */
#define _GNU_SOURCE
#define VOW_DEBUG_SITES
#include "glib_support.h"

static void
test_requests_record_their_sites(void)
{
    vow_debug_set(true);
    GMainContext *ctx = g_main_context_new();
    vow_dispatcher *d = vow_glib_dispatcher_new(ctx);
    REQUIRE(d != NULL);

    int timeout_line = __LINE__; vow_promise *timeout = vow_glib_timeout(d, 60000);
    track *refused = track_new();
    int async_line = __LINE__; vow_promise *async = vow_glib_async(d, NULL, NULL, refused, track_destroy);
    vow_promise *plain = (vow_glib_timeout)(d, 60000);
    vow_promise *no_file = vow_glib_timeout_site(NULL, 42, d, 60000);
    CHECK(timeout != NULL);
    CHECK(async == NULL); /* no start: nothing started, destroy ran */
    CHECK_EQ_INT(track_destroyed(refused), 1);
    CHECK(plain != NULL);
    CHECK(no_file != NULL);

    size_t count = 0;
    char *text = dump_pending(&count);
    CHECK_EQ_INT(count, 3);
    CHECK_EQ_INT(count_lines_containing(text, site_of(timeout_line)), 1);
    CHECK_EQ_INT(count_lines_containing(text, site_of(async_line)), 0);
    CHECK_EQ_INT(count_lines_containing(text, "C: pending for"), 2); /* plain and no_file */
    if (ts_failures) printf("census:\n%s", text);
    free(text);

    /* The twins are the requests themselves: a short one fires in the context. */
    int short_line = __LINE__; vow_promise *quick = vow_glib_timeout(d, 1);
    text = dump_pending(&count);
    CHECK_EQ_INT(count_lines_containing(text, site_of(short_line)), 1);
    free(text);
    CHECK_EQ_INT(vow_glib_hold(d, quick), VOW_OK);
    CHECK_EQ_INT(vow_glib_run(d), VOW_OK); /* iterates ctx until quick settled */
    CHECK_EQ_INT(vow_promise_state(quick), VOW_FULFILLED);

    vow_cancel(timeout);
    vow_cancel(plain);
    vow_cancel(no_file);
    drain_context(ctx); /* the cancel handlers destroy the timeouts' sources in the context */
    CHECK(vow_promise_is_cancelled(timeout));
    vow_promise_release(timeout);
    vow_promise_release(plain);
    vow_promise_release(no_file);
    vow_promise_release(quick);
    CHECK_EQ_INT(vow_glib_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    drain_context(ctx);
    g_main_context_unref(ctx);

    text = dump_pending(&count);
    CHECK_EQ_INT(count, 0);
    free(text);
    vow_debug_set(false);
}

TEST_MAIN_BEGIN("test_glib_sites")
    RUN_TEST(test_requests_record_their_sites);
TEST_MAIN_END
