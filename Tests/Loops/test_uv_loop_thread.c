/* test_uv_loop_thread.c: the libuv bridge tells the program what went wrong with its loop
 * (issue 35): a call off the loop's thread writes one misuse line that names the call, and
 * the call still works (none on the loop's thread); in debug mode, uv_run ending while
 * promises are pending says so and names vow_uv_hold; vow_dispatcher_context gives the
 * bridge's state back (no registry). */
#define _GNU_SOURCE
#include "uv_support.h"

/* The misuse lines written while a test runs. */
static pthread_mutex_t lines_lock = PTHREAD_MUTEX_INITIALIZER;
static char lines[8][512];
static int line_count;

static void
keep_line(void *ctx, const char *line)
{
    (void)ctx;
    pthread_mutex_lock(&lines_lock);
    if (line_count < 8) snprintf(lines[line_count], sizeof lines[0], "%s", line);
    line_count++;
    pthread_mutex_unlock(&lines_lock);
}

static int
lines_seen(void)
{
    pthread_mutex_lock(&lines_lock);
    int n = line_count;
    pthread_mutex_unlock(&lines_lock);
    return n;
}

typedef struct off_thread_call {
    vow_dispatcher *d;
    vow_promise *timer;
} off_thread_call;

static void *
call_off_the_loop(void *arg)
{
    off_thread_call *call = arg;
    call->timer = vow_uv_timer(call->d, 1);
    return NULL;
}

static void
test_a_request_off_the_loop_thread_says_so(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop); /* this thread is the loop's */
    REQUIRE(d != NULL);
    line_count = 0;
    vow_set_misuse_handler(keep_line, NULL, NULL);

    /* On the loop's thread: no line. */
    vow_promise *here = vow_uv_timer(d, 1);
    CHECK(here != NULL);
    CHECK_EQ_INT(lines_seen(), 0);

    /* From another thread: one line naming the call and the way to the loop... */
    off_thread_call call = {d, NULL};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, call_off_the_loop, &call) == 0);
    pthread_join(thread, NULL);
    CHECK_EQ_INT(lines_seen(), 1);
    CHECK(strncmp(lines[0], "vow: vow_uv_timer: called off the loop's thread", 47) == 0);
    CHECK(strstr(lines[0], "_on") != NULL);
    /* ... and the call still does what it says: a timer on the loop. */
    CHECK(call.timer != NULL);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(here), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(call.timer), VOW_FULFILLED);

    /* Closing from another thread is misuse too (uv_close): said, not done silently. */
    vow_set_misuse_handler(NULL, NULL, NULL);
    vow_promise_release(here);
    vow_promise_release(call.timer);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

/* vow_dispatcher_context: the bridge finds its state from the dispatcher's ctx, so a
   dispatcher of the program's own, whose ctx is its own memory, is not taken for one. */
static void
own_submit(void *ctx, vow_job run, void *job)
{
    (void)ctx;
    (void)run;
    vow_job_drop(job);
}

static void
test_dispatcher_context(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    CHECK(vow_dispatcher_context(d) != NULL); /* the bridge's state */
    CHECK(vow_dispatcher_context(vow_dispatcher_default()) == NULL);
    CHECK(vow_dispatcher_context(vow_dispatcher_inline()) == NULL);
    CHECK(vow_dispatcher_context(NULL) == NULL);
    static char mine[64] = "a program's own loop state";
    vow_dispatcher *own = vow_dispatcher_new(own_submit, mine, NULL);
    REQUIRE(own != NULL);
    CHECK(vow_dispatcher_context(own) == mine);
    CHECK_EQ_INT(vow_uv_dispatcher_close(own), VOW_EINVAL);
    vow_value *nothing = vow_value_null();
    vow_promise *done = vow_promise_fulfilled(nothing);
    CHECK_EQ_INT(vow_uv_hold(own, done), VOW_EINVAL);
    vow_promise_release(done);
    vow_value_release(nothing);
    CHECK(vow_uv_timer(own, 1) == NULL);
    vow_dispatcher_release(own);
    /* A ctx that is no pointer at all: the bridge never reads it (it asks
       vow_dispatcher_host_context with its own submit), so nothing faults. */
    vow_dispatcher *odd = vow_dispatcher_new(own_submit, (void *)(uintptr_t)1, NULL);
    REQUIRE(odd != NULL);
    CHECK(vow_dispatcher_host_context(odd, own_submit) == (void *)(uintptr_t)1);
    CHECK_EQ_INT(vow_uv_dispatcher_close(odd), VOW_EINVAL);
    CHECK(vow_uv_timer(odd, 1) == NULL);
    CHECK(vow_uv_fs_stat(odd, "/") == NULL);
    vow_dispatcher_release(odd);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_EALREADY);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

static void
ignore_value(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx, (void)value, (void)out;
}

static void
test_debug_mode_names_the_hold(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    vow_debug_set(true);
    line_count = 0;
    vow_set_misuse_handler(keep_line, NULL, NULL);

    /* A chain on the loop waits for a promise that nothing in the loop will settle. */
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *next = vow_then_on(d, p, ignore_value, NULL, NULL, NULL);
    vow_promise *tick = vow_uv_timer(d, 1); /* the loop runs until this fires, then ends */
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(tick), VOW_FULFILLED);
    vow_promise_release(tick);
    CHECK_EQ_INT(lines_seen(), 1);
    CHECK(strncmp(lines[0], "vow: uv_run: returns (nothing keeps the loop alive) while 2 promises are still pending", 84) == 0);
    CHECK(strstr(lines[0], "vow_uv_hold(d, p)") != NULL);

    /* Held and settled: the loop ends with nothing pending, and nothing is said. */
    CHECK_EQ_INT(vow_uv_hold(d, next), VOW_OK);
    vow_value *one = vow_value_int(1);
    vow_resolver_fulfill(r, one);
    vow_value_release(one);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(next), VOW_FULFILLED);
    CHECK_EQ_INT(lines_seen(), 1);

    /* Debug mode off: nothing is said. */
    vow_debug_set(false);
    vow_resolver *r2 = NULL;
    vow_promise *quiet = vow_promise_pending(&r2);
    vow_promise *quiet_next = vow_then_on(d, quiet, ignore_value, NULL, NULL, NULL);
    tick = vow_uv_timer(d, 1);
    CHECK(run_bounded(&tl));
    vow_promise_release(tick);
    CHECK_EQ_INT(lines_seen(), 1);
    vow_set_misuse_handler(NULL, NULL, NULL);

    vow_promise_release(p);
    vow_promise_release(next);
    vow_resolver_release(r);
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK); /* cancels quiet_next's job, if any */
    vow_cancel(quiet_next);
    vow_promise_release(quiet_next);
    vow_promise_release(quiet);
    vow_resolver_release(r2);
    vow_dispatcher_release(d);
    close_loop(&tl);
}

TEST_MAIN_BEGIN("test_uv_loop_thread")
    RUN_TEST(test_a_request_off_the_loop_thread_says_so);
    RUN_TEST(test_dispatcher_context);
    RUN_TEST(test_debug_mode_names_the_hold);
TEST_MAIN_END
