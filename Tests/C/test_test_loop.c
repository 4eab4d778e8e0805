/* test_test_loop.c: vow_testing.h, test loops: virtual time for vow_after, vow_timeout,
   vow_delay and vow_retry, the loop as the thread's default dispatcher, install rules,
   seeded orders, the census of pending promises, releasing a loop, bad input. */
#define VOW_DEBUG_SITES /* promises made here record "test_test_loop.c:LINE" */
#define VOW_NO_NONNULL  /* test_bad_input passes NULL on purpose */
#include "test_support.h"

#include "vow_testing.h"

static stderr_capture cap;

/* Ends the capture; checks that exactly one line contains needle. */
static void
check_line(const char *needle)
{
    char *text = capture_stderr_end(&cap);
    if (!CHECK_EQ_INT(count_lines_containing(text, needle), 1)) fprintf(stderr, "    stderr was: <<%s>>\n", text);
    free(text);
}

/* Ends the capture; checks that nothing was written. */
static void
check_silent(void)
{
    char *text = capture_stderr_end(&cap);
    if (!CHECK_EQ_STR(text, "")) fprintf(stderr, "    stderr was: <<%s>>\n", text);
    free(text);
}

static vow_test_loop *
installed_loop(uint64_t seed)
{
    vow_test_loop *l = vow_test_loop_new(seed);
    if (l == NULL) abort();
    CHECK_EQ_INT(vow_test_loop_install(l), VOW_OK);
    return l;
}

static int64_t
int_value(vow_promise *p)
{
    vow_value *v = vow_promise_value(p);
    int64_t i = -1;
    vow_value_get_int(v, &i);
    vow_value_release(v);
    return i;
}

static int64_t
error_code(vow_promise *p)
{
    vow_error *e = vow_promise_error(p);
    int64_t code = e ? vow_error_code(e) : -1;
    vow_error_release(e);
    return code;
}

/* ---- virtual time ---- */

static void
test_after_on_virtual_time(void)
{
    vow_test_loop *l = installed_loop(0);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 0);
    vow_promise *a = vow_after(30);
    vow_promise *b = vow_after(10);
    CHECK_EQ_INT(vow_test_loop_advance(l, 9.999), 0);
    CHECK_EQ_INT(vow_promise_state(b), VOW_PENDING);
    CHECK_EQ_INT(vow_test_loop_advance(l, 0.001), 1); /* b's timer */
    CHECK_EQ_INT(vow_promise_state(b), VOW_FULFILLED);
    CHECK_EQ_INT(vow_promise_state(a), VOW_PENDING);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 10);
    CHECK_EQ_INT(vow_test_loop_advance(l, 100), 1);
    CHECK_EQ_INT(vow_promise_state(a), VOW_FULFILLED);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 110);
    vow_promise_release(a);
    vow_promise_release(b);
    CHECK_EQ_INT(vow_test_loop_pending(l), 0);
    vow_test_loop_release(l);
}

static void
record_value(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    int64_t i = 0;
    vow_value_get_int(value, &i);
    t->data = (void *)(intptr_t)i;
    track_hit(t);
    vow_result_return(out, value);
}

static void
test_callbacks_wait_for_the_loop(void)
{
    vow_test_loop *l = installed_loop(0);
    /* The default dispatcher is the loop: nothing runs until the test runs it, and then on
       this thread. */
    vow_value *v = vow_value_int(7);
    vow_promise *p = vow_promise_fulfilled(v);
    track *t = track_new();
    vow_promise *q = vow_then(p, record_value, NULL, t, track_destroy);
    sleep_seconds(0.01);
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_EQ_INT(vow_promise_state(q), VOW_PENDING);
    CHECK_EQ_INT(vow_test_loop_run_until_idle(l), 1);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK(pthread_equal(t->thread, pthread_self()));
    CHECK_EQ_INT(int_value(q), 7);
    CHECK_DESTROYED_ONCE(t);
    CHECK_EQ_INT(vow_test_loop_run_until_idle(l), 0);
    /* vow_dispatcher_default() names the loop too. */
    track *w = track_new();
    vow_promise *s = vow_then_on(vow_dispatcher_default(), p, record_value, NULL, w, track_destroy);
    sleep_seconds(0.01);
    CHECK_EQ_INT(track_calls(w), 0);
    CHECK_EQ_INT(vow_test_loop_run_until_idle(l), 1);
    CHECK_EQ_INT(track_calls(w), 1);
    vow_promise_release(s);
    /* The loop's dispatcher handle works with the _on functions, installed or not. */
    CHECK_EQ_INT(vow_test_loop_uninstall(l), VOW_OK);
    vow_dispatcher *d = vow_test_loop_dispatcher(l);
    CHECK_EQ_PTR(d, vow_test_loop_dispatcher(l));
    track *u = track_new();
    vow_promise *r = vow_then_on(d, p, record_value, NULL, u, track_destroy);
    sleep_seconds(0.01);
    CHECK_EQ_INT(track_calls(u), 0);
    CHECK_EQ_INT(vow_test_loop_run_until_idle(l), 1);
    CHECK_EQ_INT(vow_promise_state(r), VOW_FULFILLED);
    vow_promise_release(r);
    vow_promise_release(q);
    vow_promise_release(p);
    vow_value_release(v);
    vow_test_loop_release(l);
}

static void
test_timeout_on_virtual_time(void)
{
    vow_test_loop *l = installed_loop(0);
    vow_resolver *r = NULL;
    vow_promise *slow = vow_promise_pending(&r);
    track *c = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel(r, track_fn, c, track_destroy), VOW_OK);
    vow_promise *t = vow_timeout(slow, 30);
    vow_test_loop_advance(l, 29.9);
    CHECK_EQ_INT(vow_promise_state(t), VOW_PENDING);
    vow_test_loop_advance(l, 0.1);
    CHECK_EQ_INT(vow_promise_state(t), VOW_REJECTED);
    CHECK_EQ_INT(error_code(t), VOW_ERROR_TIMEOUT);
    /* The source was cancelled; its cancel handler ran on the loop. */
    CHECK_EQ_INT(vow_promise_state(slow), VOW_REJECTED);
    CHECK_EQ_INT(track_calls(c), 1);
    CHECK(pthread_equal(c->thread, pthread_self()));
    vow_promise_release(t);
    vow_promise_release(slow);
    vow_resolver_release(r);
    CHECK_DESTROYED_ONCE(c);
    CHECK_EQ_INT(vow_test_loop_pending(l), 0);
    vow_test_loop_release(l);
}

typedef struct r_and_v {
    vow_resolver *r;
    vow_value *v;
} r_and_v;

/* Fulfils job->r with job->v and releases the resolver. */
static void *
fulfil_elsewhere(void *arg)
{
    r_and_v *job = arg;
    vow_resolver_fulfill(job->r, job->v);
    vow_resolver_release(job->r);
    return NULL;
}

static void
test_delay_keeps_the_clock_of_its_call(void)
{
    vow_test_loop *l = installed_loop(0);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *d = vow_delay(p, 5);
    /* The source fulfils on another thread: the pause still counts virtual time. */
    vow_value *v = vow_value_int(3);
    r_and_v job = {r, v};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, fulfil_elsewhere, &job) == 0);
    pthread_join(th, NULL);
    vow_test_loop_run_until_idle(l);
    sleep_seconds(0.02);
    CHECK_EQ_INT(vow_promise_state(d), VOW_PENDING);
    vow_test_loop_advance(l, 4.5);
    CHECK_EQ_INT(vow_promise_state(d), VOW_PENDING);
    vow_test_loop_advance(l, 0.5);
    CHECK_EQ_INT(vow_promise_state(d), VOW_FULFILLED);
    CHECK_EQ_INT(int_value(d), 3);
    vow_promise_release(d);
    vow_promise_release(p);
    vow_value_release(v);
    vow_test_loop_release(l);
}

typedef struct attempts {
    atomic_int made;
    int succeed_on;
} attempts;

static vow_promise *
make_attempt(void *ctx)
{
    attempts *a = ctx;
    int n = atomic_fetch_add(&a->made, 1) + 1;
    if (n == a->succeed_on) {
        vow_value *v = vow_value_int(n);
        vow_promise *p = vow_promise_fulfilled(v);
        vow_value_release(v);
        return p;
    }
    vow_error *e = vow_error_new("t.loop", n, "attempt failed");
    vow_promise *p = vow_promise_rejected(e);
    vow_error_release(e);
    return p;
}

static void
test_retry_on_virtual_time(void)
{
    vow_test_loop *l = installed_loop(0);
    attempts a = {0, 3};
    vow_promise *p = vow_retry(5, 60, make_attempt, NULL, &a, NULL);
    CHECK_EQ_INT(atomic_load(&a.made), 0); /* never inside the call */
    vow_test_loop_run_until_idle(l);
    CHECK_EQ_INT(atomic_load(&a.made), 1);
    vow_test_loop_advance(l, 59);
    CHECK_EQ_INT(atomic_load(&a.made), 1);
    vow_test_loop_advance(l, 1);
    CHECK_EQ_INT(atomic_load(&a.made), 2);
    vow_test_loop_advance(l, 60);
    CHECK_EQ_INT(atomic_load(&a.made), 3);
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    CHECK_EQ_INT(int_value(p), 3);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 120);
    vow_promise_release(p);
    vow_test_loop_release(l);
}

/* ---- the time rule of vow_test_loop_advance ---- */

static void
test_advance_time_rule(void)
{
    vow_test_loop *l = installed_loop(0);
    vow_promise *now = vow_after(0);
    vow_promise *later = vow_after(1000);
    vow_promise *never = vow_after(INFINITY);
    /* Zero, negative, -INFINITY: what is due now runs, no time passes. */
    CHECK_EQ_INT(vow_test_loop_advance(l, -1), 1);
    CHECK_EQ_INT(vow_promise_state(now), VOW_FULFILLED);
    CHECK_EQ_INT(vow_test_loop_advance(l, -INFINITY), 0);
    CHECK_EQ_INT(vow_test_loop_advance(l, 0), 0);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 0);
    /* NaN: a misuse line, and as 0. */
    capture_stderr_begin(&cap);
    CHECK_EQ_INT(vow_test_loop_advance(l, NAN), 0);
    check_line("vow: vow_test_loop_advance: NaN seconds");
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 0);
    /* +INFINITY: every timer, the clock at the last deadline; an infinite timer never. */
    CHECK_EQ_INT(vow_test_loop_advance(l, INFINITY), 1);
    CHECK_EQ_INT(vow_promise_state(later), VOW_FULFILLED);
    CHECK_EQ_DOUBLE(vow_test_loop_now(l), 1000);
    CHECK_EQ_INT(vow_promise_state(never), VOW_PENDING);
    vow_cancel(never);
    vow_promise_release(now);
    vow_promise_release(later);
    vow_promise_release(never);
    vow_test_loop_release(l);
}

static void
advance_from_inside(void *ctx, const vow_value *value, vow_result *out)
{
    track *t = ctx;
    (void)value;
    (void)out;
    capture_stderr_begin(&cap);
    t->data = (void *)(uintptr_t)(vow_test_loop_advance(t->data, 1) + vow_test_loop_run_until_idle(t->data));
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_test_loop_advance: the loop is running already"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_test_loop_run_until_idle: the loop is running already"), 1);
    free(text);
    track_hit(t);
}

static void
test_advance_from_a_job_runs_nothing(void)
{
    vow_test_loop *l = installed_loop(0);
    vow_value *v = vow_value_null();
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    track *t = track_new();
    t->data = l;
    vow_promise *q = vow_then(p, advance_from_inside, NULL, t, track_destroy);
    CHECK_EQ_INT(vow_test_loop_run_until_idle(l), 1);
    CHECK_EQ_INT(track_calls(t), 1);
    CHECK_NULL(t->data); /* both calls ran nothing */
    vow_promise_release(q);
    vow_promise_release(p);
    vow_test_loop_release(l);
}

/* ---- installing ---- */

static void *
install_elsewhere(void *l)
{
    capture_stderr_begin(&cap);
    intptr_t rc = vow_test_loop_install(l);
    check_line("vow: vow_test_loop_install: the loop is installed on another thread");
    return (void *)rc;
}

static void *
after_elsewhere(void *unused)
{
    (void)unused;
    /* No loop here: real time, and the default dispatcher of the process. */
    vow_promise *p = vow_after(0.01);
    vow_state s = vow_wait(p, ts_wait_seconds(), NULL, NULL);
    vow_promise_release(p);
    return (void *)(intptr_t)s;
}

static void
test_install_rules(void)
{
    vow_test_loop *l = vow_test_loop_new(0);
    vow_test_loop *other = vow_test_loop_new(0);
    capture_stderr_begin(&cap);
    CHECK_EQ_INT(vow_test_loop_install(l), VOW_OK);
    check_silent();
    /* A second install on this thread: refused, with a line. */
    capture_stderr_begin(&cap);
    CHECK_EQ_INT(vow_test_loop_install(l), VOW_EALREADY);
    check_line("vow: vow_test_loop_install: this thread has a test loop installed already");
    capture_stderr_begin(&cap);
    CHECK_EQ_INT(vow_test_loop_install(other), VOW_EALREADY);
    check_line("vow: vow_test_loop_install: this thread has a test loop installed already");
    /* The same loop on another thread: refused there. */
    pthread_t th;
    void *rc = NULL;
    REQUIRE(pthread_create(&th, NULL, install_elsewhere, l) == 0);
    pthread_join(th, &rc);
    CHECK_EQ_INT((intptr_t)rc, VOW_EALREADY);
    /* Other threads keep real time. */
    REQUIRE(pthread_create(&th, NULL, after_elsewhere, NULL) == 0);
    pthread_join(th, &rc);
    CHECK_EQ_INT((intptr_t)rc, VOW_FULFILLED);
    /* Uninstalling a loop that is not installed here: a line. */
    capture_stderr_begin(&cap);
    CHECK_EQ_INT(vow_test_loop_uninstall(other), VOW_EINVAL);
    check_line("vow: vow_test_loop_uninstall: the loop is not installed on this thread");
    CHECK_EQ_INT(vow_test_loop_uninstall(l), VOW_OK);
    capture_stderr_begin(&cap);
    CHECK_EQ_INT(vow_test_loop_uninstall(l), VOW_EINVAL);
    check_line("vow: vow_test_loop_uninstall: the loop is not installed on this thread");
    /* Now the other may be installed, and a timer armed under it keeps its clock after. */
    CHECK_EQ_INT(vow_test_loop_install(other), VOW_OK);
    vow_promise *a = vow_after(2);
    CHECK_EQ_INT(vow_test_loop_uninstall(other), VOW_OK);
    vow_promise *real = vow_after(0);
    CHECK_EQ_INT(wait_promise(real, NULL, NULL), VOW_FULFILLED);
    sleep_seconds(0.01);
    CHECK_EQ_INT(vow_promise_state(a), VOW_PENDING);
    CHECK_EQ_INT(vow_test_loop_advance(other, 2), 1);
    CHECK_EQ_INT(vow_promise_state(a), VOW_FULFILLED);
    vow_promise_release(real);
    vow_promise_release(a);
    vow_test_loop_release(other);
    vow_test_loop_release(l);
}

static void
test_release_installed_loop(void)
{
    vow_test_loop *l = installed_loop(0);
    /* A callback waiting in the loop, and a timer: both dropped by the release. */
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    track *t = track_new();
    vow_promise *q = vow_then(p, record_value, NULL, t, track_destroy);
    vow_promise *a = vow_after(5);
    vow_promise *d = vow_delay(p, 5);
    vow_test_loop_release(l); /* uninstalls it */
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    CHECK_EQ_INT(vow_promise_state(q), VOW_REJECTED);
    CHECK_EQ_INT(error_code(q), VOW_ERROR_CANCELLED);
    CHECK_EQ_INT(vow_promise_state(a), VOW_REJECTED);
    CHECK_EQ_INT(error_code(a), VOW_ERROR_CANCELLED);
    /* The delay's link was queued on the loop too (the source was fulfilled): dropped. */
    CHECK_EQ_INT(vow_promise_state(d), VOW_REJECTED);
    /* This thread is free again: real time, and a new loop may be installed. */
    vow_promise *real = vow_after(0);
    CHECK_EQ_INT(wait_promise(real, NULL, NULL), VOW_FULFILLED);
    vow_test_loop *next = installed_loop(0);
    vow_test_loop_release(next);
    vow_promise_release(real);
    vow_promise_release(d);
    vow_promise_release(a);
    vow_promise_release(q);
    vow_promise_release(p);
    vow_value_release(v);
}

/* ---- seeded orders ---- */

/* A handler that appends its letter to a shared log. */
typedef struct letter {
    char *log;
    char letter;
} letter;

static void
log_letter(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)out;
    letter *l = ctx;
    size_t n = strlen(l->log);
    l->log[n] = l->letter;
    l->log[n + 1] = '\0';
}

/* Two promises fulfilled A first, then B; A has two handlers ('A', then 'a'), B one ('B').
   Writes the order the handlers ran in to log ("AaB" in submission order). */
static void
run_two_promises(uint64_t seed, char *log)
{
    vow_test_loop *l = installed_loop(seed);
    log[0] = '\0';
    letter first = {log, 'A'}, second = {log, 'a'}, other = {log, 'B'};
    vow_resolver *ra = NULL, *rb = NULL;
    vow_promise *a = vow_promise_pending(&ra), *b = vow_promise_pending(&rb);
    vow_promise *h1 = vow_then(a, log_letter, NULL, &first, NULL);
    vow_promise *h2 = vow_then(a, log_letter, NULL, &second, NULL);
    vow_promise *h3 = vow_then(b, log_letter, NULL, &other, NULL);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(ra, v);
    vow_resolver_fulfill(rb, v);
    CHECK_EQ_INT(vow_test_loop_run_until_idle(l), 3);
    vow_promise_release(h1);
    vow_promise_release(h2);
    vow_promise_release(h3);
    vow_promise_release(a);
    vow_promise_release(b);
    vow_resolver_release(ra);
    vow_resolver_release(rb);
    vow_value_release(v);
    vow_test_loop_release(l);
}

static void
test_seeded_orders(void)
{
    char log[8];
    /* Seed 0: submission order. */
    run_two_promises(0, log);
    CHECK_EQ_STR(log, "AaB");
    /* Other seeds: B may come first, but A's handlers keep their order; a seed repeats. */
    int b_first = 0;
    uint64_t found = 0;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        run_two_promises(seed, log);
        CHECK(strcmp(log, "AaB") == 0 || strcmp(log, "ABa") == 0 || strcmp(log, "BAa") == 0);
        if (log[0] == 'B') {
            b_first++;
            if (found == 0) found = seed;
        }
    }
    CHECK(b_first > 0);
    CHECK(b_first < 100);
    REQUIRE(found != 0);
    char again[8];
    run_two_promises(found, again);
    CHECK_EQ_STR(again, "BAa");
}

/* ---- the census ---- */

static void
test_pending_census(void)
{
    vow_test_loop *l = installed_loop(0);
    vow_resolver *r = NULL;
    vow_promise *forgotten = vow_promise_pending(&r);
    int line = __LINE__ - 1;
    vow_promise *sleeping = vow_after(60);
    CHECK_EQ_INT(vow_test_loop_pending(l), 2);
    FILE *out = tmpfile();
    REQUIRE(out != NULL);
    CHECK_EQ_INT(vow_test_loop_dump_pending(l, out), 2);
    rewind(out);
    char text[1024] = {0};
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    char site[64];
    snprintf(site, sizeof site, "test_test_loop.c:%d: pending for", line);
    CHECK(strstr(text, site) != NULL);
    CHECK_EQ_INT(count_lines_containing(text, "pending for"), 2);
    CHECK_EQ_INT(vow_test_loop_dump_pending(l, NULL), 0);
    /* A promise made on another thread is not the loop's. */
    pthread_t th;
    void *rc = NULL;
    REQUIRE(pthread_create(&th, NULL, after_elsewhere, NULL) == 0);
    pthread_join(th, &rc);
    CHECK_EQ_INT((intptr_t)rc, VOW_FULFILLED);
    CHECK_EQ_INT(vow_test_loop_pending(l), 2);
    /* Settled and released: gone from the census. */
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
    vow_resolver_release(r);
    vow_promise_release(forgotten);
    vow_test_loop_advance(l, 60);
    vow_promise_release(sleeping);
    CHECK_EQ_INT(vow_test_loop_pending(l), 0);
    vow_test_loop_release(l);
}

/* ---- bad input ---- */

static void
test_bad_input(void)
{
    capture_stderr_begin(&cap);
    CHECK_NULL(vow_test_loop_dispatcher(NULL));
    CHECK_EQ_INT(vow_test_loop_install(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_test_loop_uninstall(NULL), VOW_EINVAL);
    CHECK_EQ_INT(vow_test_loop_advance(NULL, 1), 0);
    CHECK_EQ_INT(vow_test_loop_run_until_idle(NULL), 0);
    CHECK(isnan(vow_test_loop_now(NULL)));
    CHECK_EQ_INT(vow_test_loop_pending(NULL), 0);
    CHECK_EQ_INT(vow_test_loop_dump_pending(NULL, stderr), 0);
    vow_test_loop_release(NULL);
    check_silent();
    /* A handle of another kind: a line, and the NULL answer. */
    vow_value *v = vow_value_int(1);
    vow_test_loop *wrong = (vow_test_loop *)(void *)v;
    capture_stderr_begin(&cap);
    CHECK_EQ_INT(vow_test_loop_install(wrong), VOW_EINVAL);
    check_line("vow: vow_test_loop_install: expected a vow_test_loop, got a vow_value");
    capture_stderr_begin(&cap);
    CHECK(isnan(vow_test_loop_now(wrong)));
    check_line("vow: vow_test_loop_now: expected a vow_test_loop, got a vow_value");
    capture_stderr_begin(&cap);
    vow_test_loop_release(wrong);
    check_line("vow: vow_test_loop_release: expected a vow_test_loop, got a vow_value");
    vow_value_release(v);
}

TEST_MAIN_BEGIN("test_test_loop")
    RUN_TEST(test_after_on_virtual_time);
    RUN_TEST(test_callbacks_wait_for_the_loop);
    RUN_TEST(test_timeout_on_virtual_time);
    RUN_TEST(test_delay_keeps_the_clock_of_its_call);
    RUN_TEST(test_retry_on_virtual_time);
    RUN_TEST(test_advance_time_rule);
    RUN_TEST(test_advance_from_a_job_runs_nothing);
    RUN_TEST(test_install_rules);
    RUN_TEST(test_release_installed_loop);
    RUN_TEST(test_seeded_orders);
    RUN_TEST(test_pending_census);
    RUN_TEST(test_bad_input);
TEST_MAIN_END
