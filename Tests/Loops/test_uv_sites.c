/* test_uv_sites.c: the debug sites of the libuv bridge. Compiled with VOW_DEBUG_SITES, so
 * every vow_uv_* call that returns a promise goes through its _site twin and, with debug
 * mode on, the promise records this file and line in the census; the plain function
 * (called as (vow_uv_timer)(...), which the function-like macro leaves alone) and a twin
 * given no file record "C". */
#define _GNU_SOURCE
#define VOW_DEBUG_SITES
#include "uv_support.h"

static void
test_requests_record_their_sites(void)
{
    vow_debug_set(true);
    test_loop tl;
    CHECK(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    CHECK(d != NULL);

    int timer_line = __LINE__; vow_promise *timer = vow_uv_timer(d, 60000);
    int read_file_line = __LINE__; vow_promise *read_file = vow_uv_fs_read_file(d, "/proc/self/status", 1 << 20);
    int work_line = __LINE__; vow_promise *work = vow_uv_queue_work(d, NULL, NULL, NULL); /* NULL work: no promise */
    vow_promise *plain = (vow_uv_timer)(d, 60000);
    vow_promise *no_file = vow_uv_timer_site(NULL, 42, d, 60000);
    CHECK(timer != NULL);
    CHECK(read_file != NULL);
    CHECK(work == NULL);
    CHECK(plain != NULL);
    CHECK(no_file != NULL);

    size_t count = 0;
    char *text = dump_pending(&count);
    CHECK_EQ_INT(count, 4);
    CHECK_EQ_INT(count_lines_containing(text, site_of(timer_line)), 1);
    CHECK_EQ_INT(count_lines_containing(text, site_of(read_file_line)), 1);
    CHECK_EQ_INT(count_lines_containing(text, site_of(work_line)), 0);
    CHECK_EQ_INT(count_lines_containing(text, "C: pending for"), 2); /* plain and no_file */
    if (ts_failures) printf("census:\n%s", text);
    free(text);

    /* The twins are the requests themselves: the file is read, the timers stop when
       cancelled, and the loop ends. */
    vow_cancel(timer);
    vow_cancel(plain);
    vow_cancel(no_file);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(read_file), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(timer), VOW_REJECTED);
    vow_promise_release(timer);
    vow_promise_release(read_file);
    vow_promise_release(plain);
    vow_promise_release(no_file);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    close_loop(&tl);

    text = dump_pending(&count);
    CHECK_EQ_INT(count, 0);
    free(text);
    vow_debug_set(false);
}

TEST_MAIN_BEGIN("test_uv_sites")
    RUN_TEST(test_requests_record_their_sites);
TEST_MAIN_END
