/* test_debug.c: debug mode from C. Compiled with VOW_DEBUG_SITES, so every call that
 * returns a promise records this file and line; the plain functions stay reachable
 * through function pointers and record "C". Checks the sites an unhandled-error handler
 * reads (vow_unhandled_site, vow_unhandled_chain_site), the default line, the
 * broken-promise message and the census (vow_debug_dump_pending). */
#define VOW_DEBUG_SITES
#include "test_support.h"


/* The sites the recording handler saw, for errors of domain "t.debug". */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static char seen_site[512];
static char seen_chain[512];
static int seen_count;
static int seen_null_site;

static void
recording_handler(void *ctx, const vow_error *error)
{
    (void)ctx;
    const char *domain = vow_error_domain(error);
    if (domain == NULL || strcmp(domain, "t.debug") != 0) return;
    const char *site = vow_unhandled_site();
    const char *chain = vow_unhandled_chain_site();
    pthread_mutex_lock(&seen_lock);
    seen_count++;
    if (site == NULL) {
        seen_null_site++;
        seen_site[0] = '\0';
    } else {
        snprintf(seen_site, sizeof seen_site, "%s", site);
    }
    snprintf(seen_chain, sizeof seen_chain, "%s", chain ? chain : "");
    pthread_mutex_unlock(&seen_lock);
}

static void
seen_reset(void)
{
    pthread_mutex_lock(&seen_lock);
    seen_count = 0;
    seen_null_site = 0;
    seen_site[0] = seen_chain[0] = '\0';
    pthread_mutex_unlock(&seen_lock);
}

static int
seen_reports(void)
{
    pthread_mutex_lock(&seen_lock);
    int n = seen_count;
    pthread_mutex_unlock(&seen_lock);
    return n;
}

static int
wait_reports(int n)
{
    double end = now_seconds() + ts_wait_seconds();
    while (seen_reports() < n && now_seconds() < end) sleep_seconds(0.001);
    flush_default();
    return seen_reports();
}

/* Fulfils r with the NULL value. */
static void
fulfill_null(vow_resolver *r)
{
    vow_value *v = vow_value_null();
    vow_resolver_fulfill(r, v);
    vow_value_release(v);
}

/* Throws a "t.debug" error. */
static void
throw_debug(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    track_hit(ctx);
    vow_error *e = vow_error_new("t.debug", 1, "thrown");
    vow_result_throw(out, e);
    vow_error_release(e);
}

static void
test_off_by_default(void)
{
    /* The test runner does not set VOW_DEBUG. */
    CHECK(!vow_debug_enabled());
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    size_t count = 99;
    char *text = dump_pending(&count);
    CHECK_EQ_INT(count, 0);
    CHECK_EQ_STR(text, "");
    free(text);
    CHECK(vow_unhandled_site() == NULL);
    CHECK(vow_unhandled_chain_site() == NULL);
    fulfill_null(r);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
test_handler_reads_the_sites(void)
{
    vow_debug_set(true);
    CHECK(vow_debug_enabled());
    seen_reset();
    vow_set_unhandled_error_handler(recording_handler, NULL, NULL);

    vow_resolver *r = NULL;
    int head_line = __LINE__; vow_promise *head = vow_promise_pending(&r);
    int mid_line = __LINE__; vow_promise *mid = vow_then(head, track_on_value_pass, NULL, track_new(), track_destroy);
    track *t = track_new();
    int end_line = __LINE__; vow_promise *end = vow_then(mid, throw_debug, NULL, t, track_destroy);
    fulfill_null(r);
    CHECK_EQ_INT(wait_promise(end, NULL, NULL), VOW_REJECTED);
    vow_resolver_release(r);
    vow_promise_release(head);
    vow_promise_release(mid);
    /* wait_promise saw the rejection (handled): drop another, unseen end instead. */
    vow_promise_release(end);
    CHECK_EQ_INT(wait_reports(0), 0);

    vow_error *e = vow_error_new("t.debug", 2, "dropped");
    int start_line = __LINE__; vow_promise *start = vow_promise_rejected(e);
    int link_line = __LINE__; vow_promise *link = vow_catch_policy(start, VOW_CATCH_ALL_ERRORS, track_on_error_rethrow, track_new(), track_destroy);
    vow_promise_release(start);
    vow_promise_release(link);
    CHECK_EQ_INT(wait_reports(1), 1);
    pthread_mutex_lock(&seen_lock);
    CHECK_EQ_STR(seen_site, site_of(link_line));
    CHECK_EQ_STR(seen_chain, site_of(start_line));
    pthread_mutex_unlock(&seen_lock);
    (void)head_line;
    (void)mid_line;
    (void)end_line;

    /* Through function pointers the plain functions run: the site is "C". */
    vow_promise *(*make_rejected)(const vow_error *) = vow_promise_rejected;
    vow_promise *(*then_fn)(vow_promise *, vow_on_value, vow_on_error, void *, void (*)(void *)) = &vow_then;
    seen_reset();
    vow_promise *plain = make_rejected(e);
    vow_promise *plain_link = then_fn(plain, track_on_value_pass, NULL, track_new(), track_destroy);
    vow_promise_release(plain);
    vow_promise_release(plain_link);
    CHECK_EQ_INT(wait_reports(1), 1);
    pthread_mutex_lock(&seen_lock);
    CHECK_EQ_STR(seen_site, "C");
    CHECK_EQ_STR(seen_chain, "C");
    pthread_mutex_unlock(&seen_lock);
    /* (vow_then)(...) is the plain function too. */
    seen_reset();
    vow_promise *paren = (vow_promise_rejected)(e);
    vow_promise_release(paren);
    CHECK_EQ_INT(wait_reports(1), 1);
    pthread_mutex_lock(&seen_lock);
    CHECK_EQ_STR(seen_site, "C");
    pthread_mutex_unlock(&seen_lock);

    /* Made with debug mode off: no sites. */
    vow_debug_set(false);
    seen_reset();
    vow_promise_release(vow_promise_rejected(e));
    CHECK_EQ_INT(wait_reports(1), 1);
    pthread_mutex_lock(&seen_lock);
    CHECK_EQ_INT(seen_null_site, 1);
    pthread_mutex_unlock(&seen_lock);
    /* Outside a handler call: NULL. */
    CHECK(vow_unhandled_site() == NULL);

    vow_error_release(e);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

static void
test_default_line_names_the_sites(void)
{
    vow_debug_set(true);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
    vow_error *e = vow_error_new("t.debugline", 3, "line");
    stderr_capture c;
    capture_stderr_begin(&c);
    int start_line = __LINE__; vow_promise *start = vow_promise_rejected(e);
    int end_line = __LINE__; vow_promise *end = vow_finally(start, track_fn, track_new(), track_destroy);
    vow_promise_release(start);
    vow_promise_release(end);
    flush_default();
    flush_default();
    char *text = capture_stderr_end(&c);
    char expected[1200];
    snprintf(expected, sizeof expected, "(dropped at %s, chain began at %s)", site_of(end_line), site_of(start_line));
    CHECK_EQ_INT(count_lines_containing(text, "t.debugline 3: line"), 1);
    CHECK_EQ_INT(count_lines_containing(text, expected), 1);
    if (count_lines_containing(text, expected) != 1) fprintf(stderr, "stderr was: %s\nexpected: %s\n", text, expected);
    free(text);
    vow_error_release(e);
    vow_debug_set(false);
}

static void
test_broken_promise_names_its_site(void)
{
    vow_debug_set(true);
    vow_resolver *r = NULL;
    int line = __LINE__; vow_promise *p = vow_promise_pending(&r);
    vow_resolver_release(r);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
    REQUIRE(e != NULL);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_BROKEN);
    char expected[600];
    snprintf(expected, sizeof expected, "(promise made at %s)", site_of(line));
    CHECK(strstr(vow_error_message(e), expected) != NULL);
    vow_error_release(e);
    vow_promise_release(p);
    vow_debug_set(false);
}

static void
test_census(void)
{
    vow_debug_set(true);
    vow_resolver *r = NULL;
    int head_line = __LINE__; vow_promise *head = vow_promise_pending(&r);
    int mid_line = __LINE__; vow_promise *mid = vow_then(head, track_on_value_pass, NULL, track_new(), track_destroy);
    int end_line = __LINE__; vow_promise *end = vow_then_on(vow_dispatcher_inline(), mid, track_on_value_pass, NULL, track_new(), track_destroy);
    vow_promise *inputs[2] = { mid, end };
    int when_line = __LINE__; vow_promise *all = vow_when(inputs, 2);
    int timeout_line = __LINE__; vow_promise *timed = vow_timeout(end, 60);
    sleep_seconds(0.01);

    size_t count = 0;
    char *text = dump_pending(&count);
    CHECK_EQ_INT(count, 5);
    char needle[1600];
    snprintf(needle, sizeof needle, "%s: pending for 0.", site_of(head_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "s, waiting on no promise (chain began at %s)", site_of(head_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "%s: pending for", site_of(mid_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "s, waiting on %s (chain began at %s)", site_of(head_line), site_of(head_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "s, waiting on %s (chain began at %s)", site_of(mid_line), site_of(head_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1); /* end */
    snprintf(needle, sizeof needle, "s, waiting on %s (chain began at %s)", site_of(mid_line), site_of(when_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1); /* the when: its first input; it began a chain */
    snprintf(needle, sizeof needle, "%s: pending for", site_of(end_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "%s: pending for", site_of(when_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "(chain began at %s)", site_of(when_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "%s: pending for", site_of(timeout_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    snprintf(needle, sizeof needle, "s, waiting on %s (chain began at %s)", site_of(end_line), site_of(head_line));
    CHECK_EQ_INT(count_lines_containing(text, needle), 1); /* the timeout continues end's chain */
    if (ts_failures) printf("census:\n%s", text);
    /* Oldest first: the head's line comes first. */
    snprintf(needle, sizeof needle, "%s: ", site_of(head_line));
    CHECK(strncmp(text, needle, strlen(needle)) == 0);
    free(text);

    fulfill_null(r);
    CHECK_EQ_INT(wait_promise(all, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(timed, NULL, NULL), VOW_FULFILLED);
    text = dump_pending(&count);
    CHECK_EQ_INT(count, 0);
    CHECK_EQ_STR(text, "");
    free(text);
    CHECK_EQ_INT(vow_debug_dump_pending(NULL), 0);

    vow_resolver_release(r);
    vow_promise_release(head);
    vow_promise_release(mid);
    vow_promise_release(end);
    vow_promise_release(all);
    vow_promise_release(timed);
    vow_debug_set(false);
}

/* The lazy body of test_every_variant_records: fulfils with NULL when started. */
static void
lazy_fulfil_null(void *ctx, vow_resolver *r)
{
    (void)ctx;
    fulfill_null(r);
}

/* The make callback of test_every_variant_records' retry: the attempt is ctx, a pending
 * promise made before debug mode was on (so it is not in the census), until the retry is
 * cancelled. */
static vow_promise *
make_pending_attempt(void *ctx)
{
    return vow_promise_retain((vow_promise *)ctx);
}

/* Every _site twin records its site (a sample: one promise each, checked through the
 * census while pending or the report when rejected). */
static void
test_every_variant_records(void)
{
    vow_resolver *attempt_r = NULL;
    vow_promise *attempt = vow_promise_pending(&attempt_r);
    vow_debug_set(true);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *made[16];
    int lines[16];
    int n = 0;
    lines[n] = __LINE__; made[n++] = vow_catch(p, track_on_error_recover, track_new(), track_destroy);
    lines[n] = __LINE__; made[n++] = vow_catch_on(vow_dispatcher_inline(), p, track_on_error_recover, track_new(), track_destroy);
    lines[n] = __LINE__; made[n++] = vow_catch_policy_on(vow_dispatcher_inline(), p, VOW_CATCH_ALL_ERRORS, track_on_error_recover, track_new(), track_destroy);
    lines[n] = __LINE__; made[n++] = vow_finally_on(vow_dispatcher_inline(), p, track_fn, track_new(), track_destroy);
    lines[n] = __LINE__; made[n++] = vow_join(&p, 1);
    lines[n] = __LINE__; made[n++] = vow_race(&p, 1);
    lines[n] = __LINE__; made[n++] = vow_after(60);
    lines[n] = __LINE__; made[n++] = vow_then_call(p, "v()", (vow_fnptr)track_fn, track_new(), track_destroy);
    lines[n] = __LINE__; made[n++] = vow_then_call_on(vow_dispatcher_inline(), p, "v()", (vow_fnptr)track_fn, track_new(), track_destroy);
    lines[n] = __LINE__; made[n++] = vow_promise_lazy(lazy_fulfil_null, NULL, NULL);
    lines[n] = __LINE__; made[n++] = vow_promise_lazy_on(vow_dispatcher_default(), lazy_fulfil_null, NULL, NULL);
    lines[n] = __LINE__; made[n++] = vow_delay(p, 0.01);
    int retry_index = n;
    lines[n] = __LINE__; made[n++] = vow_retry(1, 0, make_pending_attempt, NULL, attempt, NULL);
    size_t count = 0;
    char *text = dump_pending(&count);
    CHECK_EQ_INT(count, (size_t)n + 1);
    for (int i = 0; i < n; i++) {
        char needle[600];
        snprintf(needle, sizeof needle, "%s: pending for", site_of(lines[i]));
        CHECK_EQ_INT(count_lines_containing(text, needle), 1);
    }
    free(text);
    fulfill_null(r);
    for (int i = 0; i < n; i++) {
        if (i == 6 || i == retry_index) vow_cancel(made[i]); /* the timer, the retry */
        wait_promise(made[i], NULL, NULL);
        vow_promise_release(made[i]);
    }
    vow_value *null_value = vow_value_null();
    int value_line = __LINE__; vow_promise *fulfilled = vow_promise_fulfilled(null_value);
    vow_value_release(null_value);
    int dispatch_line = __LINE__; vow_promise *dispatched = vow_dispatch(vow_dispatcher_default(), track_on_value_nothing, track_new(), track_destroy);
    CHECK_EQ_INT(wait_promise(dispatched, NULL, NULL), VOW_FULFILLED);
    (void)value_line;
    (void)dispatch_line;
    vow_promise_release(fulfilled);
    vow_promise_release(dispatched);
    vow_resolver_release(r);
    vow_promise_release(p);
    text = dump_pending(&count);
    CHECK_EQ_INT(count, 0);
    free(text);
    vow_debug_set(false);
    CHECK_EQ_INT(vow_promise_state(attempt), VOW_REJECTED); /* the cancelled retry cancelled it */
    vow_resolver_release(attempt_r);
    vow_promise_release(attempt);
}

/* Vow 0.2's _at names (deprecated, kept for one release) are their _site twins: same
 * arguments, same sites recorded; a NULL file records "C". A sample of three shapes:
 * a maker with an out-pointer, a chaining call with a callback, a combinator. */
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static void
test_deprecated_at_names(void)
{
    vow_debug_set(true);
    vow_resolver *r = NULL;
    vow_promise *head = vow_promise_pending_at("old.c", 7, &r);
    vow_promise *next = vow_then_at("old.c", 8, head, track_on_value_pass, NULL, track_new(), track_destroy);
    vow_promise *all = vow_when_at(NULL, 9, &next, 1);
    REQUIRE(head != NULL && next != NULL && all != NULL);
    size_t count = 0;
    char *text = dump_pending(&count);
    CHECK_EQ_INT(count, 3);
    CHECK_EQ_INT(count_lines_containing(text, "old.c:7: pending for"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "old.c:8: pending for"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "s, waiting on old.c:7 (chain began at old.c:7)"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "C: pending for"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "s, waiting on old.c:8 (chain began at C)"), 1);
    if (ts_failures) printf("census:\n%s", text);
    free(text);
    fulfill_null(r);
    CHECK_EQ_INT(wait_promise(all, NULL, NULL), VOW_FULFILLED);
    vow_resolver_release(r);
    vow_promise_release(head);
    vow_promise_release(next);
    vow_promise_release(all);
    vow_debug_set(false);
}
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif

TEST_MAIN_BEGIN("test_debug")
RUN_TEST(test_off_by_default);
RUN_TEST(test_handler_reads_the_sites);
RUN_TEST(test_default_line_names_the_sites);
RUN_TEST(test_broken_promise_names_its_site);
RUN_TEST(test_census);
RUN_TEST(test_every_variant_records);
RUN_TEST(test_deprecated_at_names);
TEST_MAIN_END
