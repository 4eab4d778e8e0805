/* test_host_timers.c: vow_dispatcher_new_with_timers: a host loop with timers of its own
   times the library's timers (vow_after, vow_timeout) on its clock and its thread; arm and
   cancel run as jobs of the loop; a timer no longer needed is cancelled; a loop that shuts
   down drops its timers (the promise of a vow_after is cancelled). The host here is a
   small single-threaded loop with a clock the test moves. */
#define VOW_NO_NONNULL
#include "test_support.h"

#define MAX_ITEMS 64

struct timer_entry {
    double due;
    vow_job run;
    void *timer;
    int live;
};

struct tl_host {
    vow_job runs[MAX_ITEMS];
    void *jobs[MAX_ITEMS];
    int head, tail;
    struct timer_entry timers[MAX_ITEMS];
    int timer_count;
    double now;
    int arms, cancels, destroyed;
    double last_seconds;
};

static void
tl_submit(void *ctx, vow_job run, void *job)
{
    struct tl_host *h = ctx;
    h->runs[h->tail % MAX_ITEMS] = run;
    h->jobs[h->tail % MAX_ITEMS] = job;
    h->tail++;
}

static void *
tl_arm(void *ctx, double seconds, vow_job run, void *timer)
{
    struct tl_host *h = ctx;
    struct timer_entry *e = &h->timers[h->timer_count++];
    e->due = h->now + seconds;
    e->run = run;
    e->timer = timer;
    e->live = 1;
    h->arms++;
    h->last_seconds = seconds;
    return e;
}

static void
tl_cancel(void *ctx, void *host_timer)
{
    struct tl_host *h = ctx;
    struct timer_entry *e = host_timer;
    h->cancels++;
    if (e->live) {
        e->live = 0;
        vow_job_drop(e->timer);
    }
}

static void
tl_destroy(void *ctx)
{
    ((struct tl_host *)ctx)->destroyed++;
}

/* Runs the queued jobs, then the timers due by `until` in order (each followed by the jobs
   it made), and moves the clock there. */
static void
tl_run(struct tl_host *h, double until)
{
    for (;;) {
        while (h->head < h->tail) {
            int i = h->head++ % MAX_ITEMS;
            h->runs[i](h->jobs[i]);
        }
        struct timer_entry *next = NULL;
        for (int i = 0; i < h->timer_count; i++) {
            struct timer_entry *e = &h->timers[i];
            if (e->live && e->due <= until && (next == NULL || e->due < next->due)) next = e;
        }
        if (next == NULL) break;
        if (next->due > h->now) h->now = next->due;
        next->live = 0;
        next->run(next->timer);
    }
    if (until > h->now) h->now = until;
}

/* The loop shuts down: drops its jobs and its timers. */
static void
tl_close(struct tl_host *h)
{
    while (h->head < h->tail) vow_job_drop(h->jobs[h->head++ % MAX_ITEMS]);
    for (int i = 0; i < h->timer_count; i++) {
        if (h->timers[i].live) {
            h->timers[i].live = 0;
            vow_job_drop(h->timers[i].timer);
        }
    }
}

static void
test_after_on_the_hosts_clock(void)
{
    struct tl_host h = { 0 };
    vow_dispatcher *d = vow_dispatcher_new_with_timers(tl_submit, tl_arm, tl_cancel, &h, tl_destroy);
    CHECK_NOT_NULL(d);
    vow_set_default_dispatcher(d);
    vow_promise *five = vow_after(5);
    vow_set_default_dispatcher(NULL);
    /* Armed by a job of the loop, not inside vow_after. */
    CHECK_EQ_INT(h.arms, 0);
    tl_run(&h, 0);
    CHECK_EQ_INT(h.arms, 1);
    CHECK(h.last_seconds > 4.9 && h.last_seconds <= 5);
    tl_run(&h, 4);
    CHECK_EQ_INT(vow_promise_state(five), VOW_PENDING);
    /* Dispatch's clock is not what counts: real time passing changes nothing. */
    usleep(20 * 1000);
    CHECK_EQ_INT(vow_promise_state(five), VOW_PENDING);
    tl_run(&h, 5);
    CHECK_EQ_INT(vow_promise_state(five), VOW_FULFILLED);
    CHECK_EQ_INT(h.cancels, 0);
    vow_promise_release(five);
    vow_dispatcher_release(d);
    tl_run(&h, 10);
    CHECK_EQ_INT(h.destroyed, 1);
}

static void
test_a_timer_no_longer_needed_is_cancelled(void)
{
    struct tl_host h = { 0 };
    vow_dispatcher *d = vow_dispatcher_new_with_timers(tl_submit, tl_arm, tl_cancel, &h, tl_destroy);
    vow_set_default_dispatcher(d);
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *limited = vow_timeout(p, 30);
    vow_set_default_dispatcher(NULL);
    tl_run(&h, 1);
    CHECK_EQ_INT(h.arms, 1);
    vow_value *v = vow_value_int(7);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    CHECK_EQ_INT(vow_wait(limited, 10, NULL, NULL), VOW_FULFILLED);
    /* The timer is stopped on the loop (a job), and the host drops it. */
    tl_run(&h, 1);
    CHECK_EQ_INT(h.cancels, 1);
    tl_run(&h, 100);
    CHECK_EQ_INT(vow_promise_state(limited), VOW_FULFILLED);
    /* Cancelled while its arm job waits (the cancel handler runs on the default dispatcher,
       inline here): the timer is never armed. */
    vow_set_default_dispatcher(d);
    vow_promise *never_armed = vow_after(3);
    vow_set_default_dispatcher(vow_dispatcher_inline());
    vow_cancel(never_armed);
    vow_set_default_dispatcher(NULL);
    tl_run(&h, 200);
    CHECK_EQ_INT(h.arms, 1);
    CHECK_EQ_INT(h.cancels, 1);
    CHECK_EQ_INT(vow_promise_state(never_armed), VOW_REJECTED);
    vow_promise_release(never_armed);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_promise_release(limited);
    vow_dispatcher_release(d);
    tl_run(&h, 300);
    CHECK_EQ_INT(h.destroyed, 1);
}

static void
test_a_loop_that_shuts_down_drops_its_timers(void)
{
    struct tl_host h = { 0 };
    vow_dispatcher *d = vow_dispatcher_new_with_timers(tl_submit, tl_arm, NULL, &h, tl_destroy);
    vow_set_default_dispatcher(d);
    vow_promise *armed = vow_after(5);
    vow_set_default_dispatcher(NULL);
    tl_run(&h, 1);
    vow_set_default_dispatcher(d);
    vow_promise *queued = vow_after(5);  /* its arm job is still queued when the loop closes */
    vow_set_default_dispatcher(NULL);
    tl_close(&h);
    CHECK_EQ_INT(vow_promise_state(armed), VOW_REJECTED);
    CHECK(vow_promise_is_cancelled(armed));
    CHECK_EQ_INT(vow_promise_state(queued), VOW_REJECTED);
    CHECK(vow_promise_is_cancelled(queued));
    vow_promise_release(armed);
    vow_promise_release(queued);
    vow_dispatcher_release(d);
    CHECK_EQ_INT(h.destroyed, 1);
}

static void
test_bad_input(void)
{
    struct tl_host h = { 0 };
    CHECK_NULL(vow_dispatcher_new_with_timers(tl_submit, NULL, tl_cancel, &h, tl_destroy));
    CHECK_EQ_INT(h.destroyed, 1);
    CHECK_NULL(vow_dispatcher_new_with_timers(NULL, tl_arm, tl_cancel, &h, tl_destroy));
    CHECK_EQ_INT(h.destroyed, 2);
}

TEST_MAIN_BEGIN("test_host_timers")
    RUN_TEST(test_after_on_the_hosts_clock);
    RUN_TEST(test_a_timer_no_longer_needed_is_cancelled);
    RUN_TEST(test_a_loop_that_shuts_down_drops_its_timers);
    RUN_TEST(test_bad_input);
TEST_MAIN_END
