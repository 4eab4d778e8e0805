/*
 * test_host_jobs.c: the jobs a host's loop (vow_dispatcher_new) receives, as the host sees
 * them: since issue 35 a callback's job is the link itself (no object per job), so these
 * check that every rule of run(job) and vow_job_drop still holds for it: each job finished
 * once (a second run or drop is refused with a misuse line and changes nothing), a
 * vow_promise or a stray pointer is no job, the thread is marked as running the dispatcher
 * while a job runs, the dispatcher lives while its jobs are out, and a job cancelled while
 * queued runs nothing.
 */
/* This program passes stray pointers on purpose (the run-time answer). */
#define VOW_NO_NONNULL
#include "test_support.h"

/* ---- misuse lines ---------------------------------------------------------------------- */

/* The log (test_support.h) as the misuse handler for one test. */
static void
log_begin(misuse_log *log)
{
    misuse_log_init(log);
    vow_set_misuse_handler(misuse_log_line, log, NULL);
}

/* Lines go back to standard error; the log keeps what it got until misuse_log_free. */
static void
log_end(void)
{
    vow_set_misuse_handler(NULL, NULL, NULL);
}

/* ---- the host's queue, one job at a time ------------------------------------------------ */

/* Takes the oldest queued job out of q without running it; 0 if none. */
static int
take_job(host_queue *q, host_job *out)
{
    pthread_mutex_lock(&q->lock);
    int found = q->head != q->tail;
    if (found) *out = q->items[q->head++];
    pthread_mutex_unlock(&q->lock);
    return found;
}

/* ---- a job run or dropped twice ------------------------------------------------------------ */

/* The link is kept alive by the test's reference, so the second run reads live memory: it
 * must be refused (before issue 35 the job was an object of its own, freed by the first run). */
static void
test_link_job_run_twice_is_refused(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    vow_promise *dp = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    vow_value *v = vow_value_int(5);
    vow_resolver_fulfill(r, v);
    host_job job;
    REQUIRE(take_job(q, &job));
    /* The job keeps the dispatcher alive: releasing ours runs no destroy yet. */
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);
    job.run(job.job);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_DESTROYED_ONCE(t);
    CHECK_EQ_INT(vow_promise_state(dp), VOW_FULFILLED);
    /* The finished job let go of the dispatcher: its destroy ran, once. */
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);

    misuse_log log;
    log_begin(&log);
    job.run(job.job);
    vow_job_drop(job.job);
    log_end();
    CHECK_EQ_INT(log.count, 2);
    CHECK_EQ_STR(misuse_log_at(&log, 0), "vow: run(job): expected a job, got a released handle");
    CHECK_EQ_STR(misuse_log_at(&log, 1), "vow: vow_job_drop: expected a job, got a released handle");
    misuse_log_free(&log);
    /* Nothing else happened: the callback did not run again, the promise is as it was. */
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_EQ_INT(vow_promise_state(dp), VOW_FULFILLED);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    vow_value *got = NULL;
    CHECK_EQ_INT(vow_wait(dp, 0, &got, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK(vow_value_get_int(got, &i) == VOW_OK && i == 5);
    vow_value_release(got);

    vow_value_release(v);
    vow_promise_release(dp);
    vow_promise_release(p);
    vow_resolver_release(r);
    host_queue_free(q);
}

/* A dropped job dropped or run again: refused the same way; the promise stays cancelled. */
static void
test_link_job_dropped_twice_is_refused(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, track_on_value_pass, t, track_destroy);
    REQUIRE(p != NULL);
    host_job job;
    REQUIRE(take_job(q, &job));
    vow_job_drop(job.job);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(p, ts_wait_seconds(), NULL, &e), VOW_REJECTED);
    CHECK(e != NULL && vow_error_is_cancelled(e));
    vow_error_release(e);
    CHECK_DESTROYED_ONCE(t);

    misuse_log log;
    log_begin(&log);
    vow_job_drop(job.job);
    job.run(job.job);
    log_end();
    CHECK_EQ_INT(log.count, 2);
    CHECK_EQ_STR(misuse_log_at(&log, 0), "vow: vow_job_drop: expected a job, got a released handle");
    CHECK_EQ_STR(misuse_log_at(&log, 1), "vow: run(job): expected a job, got a released handle");
    misuse_log_free(&log);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);

    vow_promise_release(p);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

/* ---- what is no job ------------------------------------------------------------------------ */

/* A vow_promise that never was a job (a pending one, a link on the library's queue), and a
 * stray pointer: refused with one line each, and the promise is untouched. */
static void
test_promise_and_stray_pointer_are_no_job(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    /* A real job, for its run function. */
    vow_promise *real = vow_dispatch(d, track_on_value_pass, track_new(), track_destroy);
    host_job job;
    REQUIRE(take_job(q, &job));

    vow_resolver *r = NULL;
    vow_promise *pending = vow_promise_pending(&r);
    vow_value *v = vow_value_int(3);
    vow_promise *fulfilled = vow_promise_fulfilled(v);
    vow_promise *on_queue = vow_then(fulfilled, NULL, NULL, NULL, NULL);
    CHECK_EQ_INT(vow_wait(on_queue, ts_wait_seconds(), NULL, NULL), VOW_FULFILLED);
    _Alignas(16) unsigned char stray[64];
    memset(stray, 0x5a, sizeof stray);

    misuse_log log;
    log_begin(&log);
    job.run(pending);
    vow_job_drop(pending);
    job.run(on_queue);
    vow_job_drop(on_queue);
    job.run(stray);
    vow_job_drop(stray);
    log_end();
    CHECK_EQ_INT(log.count, 6);
    CHECK_EQ_STR(misuse_log_at(&log, 0), "vow: run(job): expected a job, got a vow_promise");
    CHECK_EQ_STR(misuse_log_at(&log, 1), "vow: vow_job_drop: expected a job, got a vow_promise");
    CHECK_EQ_STR(misuse_log_at(&log, 2), "vow: run(job): expected a job, got a vow_promise");
    CHECK_EQ_STR(misuse_log_at(&log, 3), "vow: vow_job_drop: expected a job, got a vow_promise");
    CHECK_EQ_STR(misuse_log_at(&log, 4), "vow: run(job): expected a job, got a pointer that is not a vow handle");
    CHECK_EQ_STR(misuse_log_at(&log, 5), "vow: vow_job_drop: expected a job, got a pointer that is not a vow handle");
    misuse_log_free(&log);
    /* The promises are as they were: the pending one still settles, and only once. */
    CHECK_EQ_INT(vow_promise_state(pending), VOW_PENDING);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_OK);
    CHECK_EQ_INT(vow_promise_state(pending), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(on_queue), VOW_FULFILLED);

    job.run(job.job);
    CHECK_EQ_INT(vow_promise_state(real), VOW_FULFILLED);
    vow_promise_release(real);
    vow_promise_release(on_queue);
    vow_promise_release(fulfilled);
    vow_promise_release(pending);
    vow_resolver_release(r);
    vow_value_release(v);
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

/* ---- the thread mark ----------------------------------------------------------------------- */

typedef struct waiter {
    vow_promise *behind; /* a promise whose callback is queued on the loop behind this job */
    vow_state state;
    int deadlock_error;
} waiter;

static void
wait_for_behind(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    waiter *w = ctx;
    vow_error *e = NULL;
    w->state = vow_wait(w->behind, -1, NULL, &e); /* no limit: VOW_DEADLOCK at once, or a hang */
    w->deadlock_error = e != NULL && vow_error_code(e) == VOW_ERROR_DEADLOCK;
    vow_error_release(e);
}

/* Inside a job of the loop, waiting for a callback queued behind it on the same loop answers
 * VOW_DEADLOCK at once: the thread is marked as running the dispatcher. */
static void
test_thread_marked_while_link_job_runs(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    waiter w = {0};
    vow_promise *first = vow_then_on(d, p, wait_for_behind, NULL, &w, NULL);
    w.behind = vow_then_on(d, p, NULL, NULL, NULL, NULL);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    CHECK_EQ_INT(host_run_until(q, w.behind, ts_wait_seconds()), VOW_FULFILLED);
    CHECK_EQ_INT(w.state, VOW_DEADLOCK);
    CHECK(w.deadlock_error);
    CHECK_EQ_INT(vow_promise_state(first), VOW_FULFILLED);
    /* Outside the job the thread is no longer marked: a wait there just waits. */
    CHECK_EQ_INT(vow_wait(w.behind, 0, NULL, NULL), VOW_FULFILLED);
    vow_value_release(v);
    vow_promise_release(first);
    vow_promise_release(w.behind);
    vow_promise_release(p);
    vow_resolver_release(r);
    vow_dispatcher_release(d);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
}

/* ---- cancelled while queued ---------------------------------------------------------------- */

/* A link cancelled while its job waits in the host's queue: the job still runs once (the
 * host cannot know), runs no callback, and lets go of the dispatcher. */
static void
test_link_cancelled_while_queued(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_promise *p = vow_dispatch(d, track_on_value_pass, t, track_destroy);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(host_pending(q), 1);
    vow_cancel(p);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    CHECK_DESTROYED_ONCE(t);
    vow_dispatcher_release(d);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 0);
    misuse_log log;
    log_begin(&log);
    CHECK_EQ_INT(host_drain(q), 1);
    log_end();
    CHECK_EQ_INT(log.count, 0);
    misuse_log_free(&log);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    vow_promise_release(p);
    host_queue_free(q);
}

/* ---- the job is the last reference --------------------------------------------------------- */

/* Nobody but the job holds the link: running it frees it (valgrind and ASan watch). A chain
 * whose links nobody holds, run job by job on the loop. */
static void
test_jobs_hold_the_only_reference(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    REQUIRE(d != NULL);
    track *t = track_new();
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending(&r);
    vow_promise *p = vow_promise_retain(head);
    for (int i = 0; i < 100; i++) {
        vow_promise *next = vow_then_on(d, p, NULL, NULL, NULL, NULL);
        vow_promise_release(p);
        p = next;
    }
    vow_promise *last = vow_then_on(d, p, track_on_value_pass, NULL, t, track_destroy);
    vow_promise_release(p);
    vow_promise_release(last);
    vow_dispatcher_release(d);
    vow_value *v = vow_value_int(9);
    vow_resolver_fulfill(r, v);
    CHECK_EQ_INT(host_drain(q), 101);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_DESTROYED_ONCE(t);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    vow_value_release(v);
    vow_promise_release(head);
    vow_resolver_release(r);
    host_queue_free(q);
}

TEST_MAIN_BEGIN("test_host_jobs")
    RUN_TEST(test_link_job_run_twice_is_refused);
    RUN_TEST(test_link_job_dropped_twice_is_refused);
    RUN_TEST(test_promise_and_stray_pointer_are_no_job);
    RUN_TEST(test_thread_marked_while_link_job_runs);
    RUN_TEST(test_link_cancelled_while_queued);
    RUN_TEST(test_jobs_hold_the_only_reference);
TEST_MAIN_END
