/* test_uv_hostile.c: the libuv bridge used the way a careless user or an attacker would,
 * each check taken from vow_uv.h's words (issue 32): bad arguments, holds on settled and
 * wrong handles, a timer that never fires, requests libuv refuses, a read of a directory,
 * closing from inside a job, releasing without closing, submissions from other threads.
 * Nothing crashes or leaks, and the loop always ends (plain, valgrind, ASan). */
#define _GNU_SOURCE
#define VOW_NO_NONNULL
#include "uv_support.h"
#include <netdb.h>

static atomic_int lines;
static void count_line(void *ctx, const char *line) { (void)ctx; (void)line; atomic_fetch_add(&lines, 1); }

static void close_inside(void *ctx, const vow_value *v, vow_result *out) {
    (void)v; (void)out;
    CHECK_EQ_INT(vow_uv_dispatcher_close(ctx), VOW_OK);
    CHECK_EQ_INT(vow_uv_dispatcher_close(ctx), VOW_EALREADY);
}

static vow_value *work_null(void *ctx, vow_error **e) { (void)ctx; (void)e; return NULL; }

static void
t_uv_misuse(void)
{
    vow_set_misuse_handler(count_line, NULL, NULL);
    atomic_store(&lines, 0);
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    CHECK(vow_uv_dispatcher_new(NULL) == NULL);
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_dispatcher_close(vow_dispatcher_default()), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_hold(NULL, NULL), VOW_EINVAL);
    vow_value *v = vow_value_int(1);
    vow_promise *done = vow_promise_fulfilled(v);
    CHECK_EQ_INT(vow_uv_hold(d, NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_hold(vow_dispatcher_default(), done), VOW_EINVAL);
    CHECK_EQ_INT(vow_uv_hold(d, (vow_promise *)v), VOW_EINVAL);
    CHECK_EQ_INT(atomic_load(&lines), 1);
    CHECK_EQ_INT(vow_uv_hold(d, done), VOW_OK);
    CHECK_EQ_INT(vow_uv_hold(d, done), VOW_OK);
    CHECK(run_bounded(&tl));
    /* work returning NULL, no error: the NULL value; destroy NULL */
    vow_promise *w = vow_uv_queue_work(d, work_null, NULL, NULL);
    CHECK(run_bounded(&tl));
    vow_value *got = vow_promise_value(w);
    CHECK_EQ_INT(vow_value_kind(got), VOW_KIND_NULL);
    vow_value_release(got);
    vow_promise_release(w);
    /* a never-firing timer, cancelled: the loop ends */
    vow_promise *forever = vow_uv_timer(d, UINT64_MAX);
    vow_promise *raced = vow_timeout(forever, 0.01);
    CHECK_EQ_INT(vow_uv_hold(d, raced), VOW_OK);
    CHECK(run_bounded(&tl));
    CHECK(vow_promise_is_cancelled(forever));
    vow_promise_release(forever);
    vow_promise_release(raced);
    /* getaddrinfo of nothing: libuv refuses: a rejection, not a crash */
    vow_promise *gai = vow_uv_getaddrinfo(d, NULL, NULL, NULL);
    if (gai != NULL) {
        CHECK(run_bounded(&tl));
        CHECK_EQ_INT(vow_promise_state(gai), VOW_REJECTED);
        CHECK_EQ_INT(vow_wait(gai, 0, NULL, NULL), VOW_REJECTED);
        vow_promise_release(gai);
    }
    /* read of a directory: a rejection */
    int dirfd = open("/tmp", O_RDONLY | O_DIRECTORY);
    vow_promise *rd = vow_uv_fs_read(d, dirfd, SIZE_MAX, 0);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(rd), VOW_REJECTED);
    CHECK_EQ_INT(vow_wait(rd, 0, NULL, NULL), VOW_REJECTED);
    vow_promise_release(rd);
    close(dirfd);
    /* read_file with max 0 */
    vow_promise *rf = vow_uv_fs_read_file(d, "/proc/self/stat", 0);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(rf), VOW_REJECTED);
    CHECK_EQ_INT(vow_wait(rf, 0, NULL, NULL), VOW_REJECTED);
    vow_promise_release(rf);
    /* a read cancelled before it started, then the fd closed */
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    vow_promise *pr = vow_uv_fs_read(d, fds[0], 10, -1);
    vow_cancel(pr);
    CHECK(run_bounded(&tl));
    CHECK(vow_promise_is_cancelled(pr));
    vow_promise_release(pr);
    close(fds[0]); close(fds[1]);
    /* close from inside a job of d; then requests answer NULL, hold EALREADY */
    vow_promise *j = vow_then_on(d, done, close_inside, NULL, d, NULL);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(j), VOW_FULFILLED);
    vow_promise_release(j);
    CHECK(vow_uv_timer(d, 1) == NULL);
    track *t = track_new();
    CHECK(vow_uv_queue_work(d, work_null, t, track_destroy) == NULL);
    CHECK_EQ_INT(track_destroyed(t), 1);
    CHECK_EQ_INT(vow_uv_hold(d, done), VOW_EALREADY);
    /* a job submitted after close: dropped at once, its promise cancelled */
    vow_promise *late = vow_then_on(d, done, NULL, NULL, NULL, NULL);
    CHECK(vow_promise_is_cancelled(late));
    vow_promise_release(late);
    vow_dispatcher_release(d);
    vow_promise_release(done);
    vow_value_release(v);
    close_loop(&tl);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

/* release without close: the handle is closed for you; a second dispatcher on the loop */
static void
t_uv_release_without_close(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    vow_dispatcher *d1 = vow_uv_dispatcher_new(&tl.loop);
    vow_dispatcher *d2 = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d1 && d2);
    vow_value *v = vow_value_int(2);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_promise *q = vow_then_on(d1, p, NULL, NULL, NULL, NULL);
    vow_dispatcher_release(d1); /* the queued job keeps it */
    CHECK_EQ_INT(vow_uv_hold(d2, q), VOW_OK);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(vow_promise_state(q), VOW_FULFILLED);
    vow_promise_release(q);
    vow_promise_release(p);
    vow_value_release(v);
    vow_uv_dispatcher_close(d2);
    vow_dispatcher_release(d2);
    close_loop(&tl);
}

/* submissions from other threads while the loop runs, and a hold that ends from another thread */
typedef struct threaded { vow_dispatcher *d; vow_resolver *r; atomic_int ran; } threaded;
static void count_run(void *ctx, const vow_value *v, vow_result *out) { (void)v; (void)out; atomic_fetch_add(&((threaded *)ctx)->ran, 1); }
static void *submitter(void *arg) {
    threaded *t = arg;
    vow_value *v = vow_value_int(3);
    vow_promise *p = vow_promise_fulfilled(v);
    for (int i = 0; i < 100; i++) vow_promise_release(vow_then_on(t->d, p, count_run, NULL, t, NULL));
    vow_promise_release(p);
    sleep_seconds(0.05);
    vow_resolver_fulfill(t->r, v);
    vow_value_release(v);
    return NULL;
}
static void
t_uv_threads(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    threaded t = {vow_uv_dispatcher_new(&tl.loop), NULL, 0};
    vow_promise *held = vow_promise_pending(&t.r);
    CHECK_EQ_INT(vow_uv_hold(t.d, held), VOW_OK);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, submitter, &t) == 0);
    CHECK(run_bounded(&tl));
    pthread_join(th, NULL);
    CHECK_EQ_INT(vow_promise_state(held), VOW_FULFILLED);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(atomic_load(&t.ran), 100);
    vow_resolver_release(t.r);
    vow_promise_release(held);
    vow_uv_dispatcher_close(t.d);
    vow_dispatcher_release(t.d);
    close_loop(&tl);
}

TEST_MAIN_BEGIN("test_uv_hostile")
RUN_TEST(t_uv_misuse);
RUN_TEST(t_uv_release_without_close);
RUN_TEST(t_uv_threads);
TEST_MAIN_END
