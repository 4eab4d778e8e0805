/*
 * test_edges.c: the hard edges of issue 16 that are not about nesting:
 * counts too large (item 3), one line per unhandled error (item 8), the
 * misuse lines and their handler (item 9), the deadlock answer, the
 * renamed resolver query, the default dispatcher under a concurrent
 * replacement and VOW_ENOMEM (item 10).
 */
#include "test_support.h"

/* ---- item 3: counts with the top bit set ------------------------------------------------ */

static void
test_counts_too_large_are_misuse(void)
{
    misuse_log log;
    misuse_log_init(&log);
    vow_set_misuse_handler(misuse_log_line, &log, misuse_log_destroy);
    char byte = 'x';
    vow_value *v = vow_value_int(1);
    vow_value *items[1] = {v};
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *ps[1] = {p};

    CHECK_NULL(vow_value_bytes(NULL, SIZE_MAX));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_bytes: count 18446744073709551615 is too large");
    CHECK_NULL(vow_value_bytes(&byte, (size_t)-5));
    CHECK_NULL(vow_value_bytes(&byte, (size_t)1 << 63));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_bytes: count 9223372036854775808 is too large");
    /* Below the top bit but past the end of the address space (the bytes are never read). */
    CHECK_NULL(vow_value_bytes((const void *)(UINTPTR_MAX - 10), 100));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_bytes: count 100 is too large");
    CHECK_NULL(vow_value_list(NULL, SIZE_MAX));
    CHECK_NULL(vow_value_list(items, SIZE_MAX));
    CHECK_NULL(vow_value_list(items, ((size_t)1 << 62))); /* n * sizeof(pointer) overflows */
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_list: count 4611686018427387904 is too large");
    CHECK_NULL(vow_when(NULL, SIZE_MAX));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_when: count 18446744073709551615 is too large");
    CHECK_NULL(vow_join(NULL, SIZE_MAX));
    CHECK_NULL(vow_race(NULL, SIZE_MAX));
    CHECK_NULL(vow_when(ps, (size_t)-1));
    CHECK_NULL(vow_join(ps, (size_t)1 << 63));
    CHECK_NULL(vow_race(ps, (size_t)-2));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_race: count 18446744073709551614 is too large");
    CHECK_EQ_INT(log.count, 13);

    /* Counts that fit still work, and write nothing. */
    vow_value *b = vow_value_bytes(&byte, 1);
    CHECK_EQ_INT(vow_value_kind(b), VOW_KIND_BYTES);
    vow_value *empty = vow_value_bytes(NULL, 0);
    CHECK_EQ_INT(vow_value_kind(empty), VOW_KIND_BYTES);
    vow_value *l = vow_value_list(items, 1);
    CHECK_EQ_INT(vow_value_count(l), 1);
    vow_promise *w = vow_when(ps, 1);
    CHECK_NOT_NULL(w);
    CHECK_EQ_INT(log.count, 13);

    vow_set_misuse_handler(NULL, NULL, NULL);
    CHECK_EQ_INT(atomic_load(&log.destroyed), 1);
    vow_resolver_fulfill(r, v);
    CHECK_EQ_INT(wait_promise(w, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(w);
    vow_value_release(l);
    vow_value_release(empty);
    vow_value_release(b);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(v);
    misuse_log_free(&log);
}

/* ---- item 4: arrays of plain handles, no cast ------------------------------------------- */

static void
test_plain_arrays_accepted(void)
{
    /* Compiled with -Wall -Wextra -Werror: these must draw no warning (C11 and later). */
    vow_value *items[2] = {vow_value_int(1), vow_value_int(2)};
    vow_value *const fixed[2] = {items[0], items[1]};
    const vow_value *consts[2] = {items[0], items[1]};
    vow_value **heap = malloc(2 * sizeof *heap);
    REQUIRE(heap != NULL);
    heap[0] = items[0];
    heap[1] = items[1];
    vow_value *a = vow_value_list(items, 2);
    vow_value *b = vow_value_list(fixed, 2);
    vow_value *c = vow_value_list(consts, 2);
    vow_value *d = vow_value_list(heap, 2);
    vow_value *e = (vow_value_list)((const vow_value *const *)items, 2); /* the function itself */
    vow_value *lists[5] = {a, b, c, d, e};
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(vow_value_count(lists[i]), 2);
        CHECK_EQ_PTR(vow_value_at(lists[i], 1), items[1]);
        vow_value_release(lists[i]);
    }
    free(heap);
    vow_value_release(items[0]);
    vow_value_release(items[1]);
}

/* ---- item 8: one line per unhandled error ----------------------------------------------- */

static char *
default_report_of(const char *message)
{
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_error *e = vow_error_new("t.line", 12, message);
    vow_promise *p = vow_promise_rejected(e);
    vow_promise_release(p); /* reported here, on this thread */
    vow_error_release(e);
    return capture_stderr_end(&cap);
}

static int
count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++) n += *s == c;
    return n;
}

static void
test_default_unhandled_report_is_one_line(void)
{
    vow_set_unhandled_error_handler(NULL, NULL, NULL);

    char *text = default_report_of("line\nbreak");
    CHECK_EQ_STR(text, "vow: unhandled error: t.line 12: line\\nbreak\n");
    free(text);

    text = default_report_of("tab\there\r\x01\x1f end\\");
    CHECK_EQ_STR(text, "vow: unhandled error: t.line 12: tab\\there\\r\\x01\\x1f end\\\\\n");
    free(text);

    /* 5,000 bytes with newlines: one line, the message cut at 1,024 bytes, ending in "…". */
    char *big = malloc(5001);
    REQUIRE(big != NULL);
    for (int i = 0; i < 5000; i++) big[i] = (i % 100 == 99) ? '\n' : 'a';
    big[5000] = '\0';
    text = default_report_of(big);
    CHECK_EQ_INT(count_char(text, '\n'), 1);
    CHECK(text[strlen(text) - 1] == '\n');
    const char *prefix = "vow: unhandled error: ";
    CHECK(strncmp(text, prefix, strlen(prefix)) == 0);
    size_t len = strlen(text);
    CHECK(len <= strlen(prefix) + 1024 + strlen("…") + 1);
    CHECK(len > 1000);
    CHECK(len >= 4 && strcmp(text + len - 4, "…\n") == 0);
    free(text);
    free(big);

    /* Through the misuse handler? No: unhandled reports are not misuse lines. */
    misuse_log log;
    misuse_log_init(&log);
    vow_set_misuse_handler(misuse_log_line, &log, misuse_log_destroy);
    text = default_report_of("still on stderr");
    CHECK(strstr(text, "still on stderr") != NULL);
    CHECK_EQ_INT(log.count, 0);
    free(text);
    vow_set_misuse_handler(NULL, NULL, NULL);
    misuse_log_free(&log);
}

/* ---- item 9: misuse lines and their handler --------------------------------------------- */

static void
noop_on_error(void *ctx, const vow_error *error, vow_result *out)
{
    (void)ctx;
    (void)error;
    (void)out;
}

/* The resolver of vow_promise_pending lives inside its promise: after its last release
 * (the promise still held) the handle is refused as released, not used; a resolver where
 * another kind is expected is named as a resolver. */
static void
test_released_resolver_refused(void)
{
    misuse_log log;
    misuse_log_init(&log);
    vow_set_misuse_handler(misuse_log_line, &log, misuse_log_destroy);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    REQUIRE(p != NULL && r != NULL);
    CHECK((void *)r != (void *)p);
    CHECK_EQ_INT(vow_value_kind((const vow_value *)r), VOW_KIND_INVALID);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_kind: expected a vow_value, got a vow_resolver");
    CHECK_EQ_INT(vow_promise_state((const vow_promise *)r), VOW_STATE_INVALID);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_promise_state: expected a vow_promise, got a vow_resolver");
    CHECK_EQ_PTR(vow_resolver_retain(r), r);
    vow_resolver_release(r);
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    vow_resolver_release(r); /* the last reference: the promise breaks */
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    vow_value *v = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, v), VOW_EINVAL);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_resolver_fulfill: expected a vow_resolver, got a released handle");
    CHECK_NULL(vow_resolver_retain(r));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_resolver_retain: expected a vow_resolver, got a released handle");
    vow_resolver_release(r);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_resolver_release: expected a vow_resolver, got a released handle");
    CHECK_EQ_INT(log.count, 5);
    CHECK_EQ_INT(vow_promise_state(p), VOW_REJECTED);
    vow_set_misuse_handler(NULL, NULL, NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(vow_wait(p, 1.0, NULL, &e), VOW_REJECTED); /* seen: not reported unhandled */
    CHECK(e != NULL && vow_error_code(e) == VOW_ERROR_BROKEN);
    vow_error_release(e);
    vow_value_release(v);
    vow_promise_release(p);
    misuse_log_free(&log);
}

static void
test_misuse_lines_routed_and_restored(void)
{
    misuse_log log;
    misuse_log_init(&log);
    vow_set_misuse_handler(misuse_log_line, &log, misuse_log_destroy);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);

    /* A handle of the wrong kind. */
    CHECK_EQ_INT(vow_value_kind((const vow_value *)p), VOW_KIND_INVALID);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_kind: expected a vow_value, got a vow_promise");
    CHECK_NULL(vow_then((vow_promise *)v, NULL, NULL, NULL, NULL));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_then: expected a vow_promise, got a vow_value");
    /* An unknown policy, printed signed. */
    track *t = track_new();
    CHECK_NULL(vow_catch_policy(p, (vow_policy)-1, noop_on_error, t, track_destroy));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_catch_policy: unknown policy -1");
    CHECK_EQ_INT(atomic_load(&t->destroyed), 1);
    track *t2 = track_new();
    CHECK_NULL(vow_catch_policy_on(vow_dispatcher_inline(), p, (vow_policy)7, noop_on_error, t2, track_destroy));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_catch_policy_on: unknown policy 7");
    /* A malformed signature. */
    CHECK_NULL(vow_then_call(p, "q(", (vow_fnptr)noop_on_error, NULL, NULL));
    CHECK(strncmp(misuse_log_last(&log), "vow: vow_then_call: malformed signature \"q(\": ", 44) == 0);
    /* A plain NULL is silent. */
    int before = log.count;
    CHECK_NULL(vow_value_get_string(NULL));
    CHECK_EQ_INT(vow_value_kind(NULL), VOW_KIND_INVALID);
    CHECK_EQ_INT(log.count, before);
    CHECK_EQ_INT(log.count, 5);

    /* Nothing went to stderr meanwhile; after NULL, the default line is back. */
    vow_set_misuse_handler(NULL, NULL, NULL);
    CHECK_EQ_INT(atomic_load(&log.destroyed), 1);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_value_kind((const vow_value *)p);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_STR(text, "vow: vow_value_kind: expected a vow_value, got a vow_promise\n");
    free(text);
    CHECK_EQ_INT(log.count, 5);

    vow_promise_release(p);
    vow_value_release(v);
    misuse_log_free(&log);
}

static void
ignore_line(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

static void
test_misuse_lines_silenced(void)
{
    misuse_log log; /* only its destroy counter */
    misuse_log_init(&log);
    vow_set_misuse_handler(ignore_line, &log, misuse_log_destroy);
    vow_value *v = vow_value_int(1);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    CHECK_NULL(vow_then((vow_promise *)v, NULL, NULL, NULL, NULL));
    CHECK_NULL(vow_value_bytes("x", SIZE_MAX));
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_STR(text, "");
    free(text);
    /* Replacing runs the previous destroy once. */
    misuse_log other;
    misuse_log_init(&other);
    vow_set_misuse_handler(misuse_log_line, &other, misuse_log_destroy);
    CHECK_EQ_INT(atomic_load(&log.destroyed), 1);
    vow_value_kind((const vow_value *)NULL);
    vow_set_misuse_handler(NULL, NULL, NULL);
    CHECK_EQ_INT(atomic_load(&other.destroyed), 1);
    CHECK_EQ_INT(atomic_load(&log.destroyed), 1);
    vow_value_release(v);
    misuse_log_free(&log);
    misuse_log_free(&other);
}

/* Four threads misuse the library while a fifth swaps the handler: no crash, every
   handler's destroy runs exactly once, after its last call (the 1690555 pattern). */
typedef struct swap_race {
    atomic_int stop;
    atomic_long lines;
    vow_value *not_a_promise;
} swap_race;

typedef struct counting_handler {
    atomic_int live; /* 1 until destroyed */
    atomic_int calls_after_destroy;
    atomic_int destroyed;
    swap_race *race;
} counting_handler;

static void
count_line(void *ctx, const char *line)
{
    counting_handler *h = ctx;
    if (!atomic_load(&h->live)) atomic_fetch_add(&h->calls_after_destroy, 1);
    if (line != NULL && strstr(line, "expected a vow_promise") != NULL) atomic_fetch_add(&h->race->lines, 1);
}

static void
count_destroy(void *ctx)
{
    counting_handler *h = ctx;
    atomic_store(&h->live, 0);
    atomic_fetch_add(&h->destroyed, 1);
}

static void *
misuse_loop(void *arg)
{
    swap_race *race = arg;
    while (!atomic_load(&race->stop)) {
        vow_promise *p = vow_then((vow_promise *)race->not_a_promise, NULL, NULL, NULL, NULL);
        if (p != NULL) vow_promise_release(p);
    }
    return NULL;
}

static void
test_misuse_handler_swap_race(void)
{
    enum { THREADS = 4 };
    int swaps = ts_small() ? 50 : 400;
    swap_race race;
    atomic_init(&race.stop, 0);
    atomic_init(&race.lines, 0);
    race.not_a_promise = vow_value_null();
    counting_handler *handlers = calloc((size_t)swaps, sizeof *handlers);
    REQUIRE(handlers != NULL);
    /* The first handler is in place before the threads start: no line reaches stderr. */
    atomic_init(&handlers[0].live, 1);
    handlers[0].race = &race;
    vow_set_misuse_handler(count_line, &handlers[0], count_destroy);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, misuse_loop, &race);
    for (int i = 1; i < swaps; i++) {
        atomic_init(&handlers[i].live, 1);
        handlers[i].race = &race;
        vow_set_misuse_handler(count_line, &handlers[i], count_destroy);
        sleep_seconds(0.0005);
    }
    atomic_store(&race.stop, 1);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    vow_set_misuse_handler(NULL, NULL, NULL);
    int bad = 0;
    for (int i = 0; i < swaps; i++) {
        bad += atomic_load(&handlers[i].destroyed) != 1;
        bad += atomic_load(&handlers[i].calls_after_destroy) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(atomic_load(&race.lines) > 0);
    vow_value_release(race.not_a_promise);
    free(handlers);
}

/* ---- item 10 ---------------------------------------------------------------------------- */

static void
test_resolver_is_used(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    CHECK(!vow_resolver_is_used(r));
    CHECK(!vow_resolver_is_settled(r));
    /* Adopting a pending promise uses the resolver up; the promise is still pending. */
    vow_resolver *r2 = NULL;
    vow_promise *inner = vow_promise_pending(&r2);
    vow_value *carrier = vow_value_promise(inner);
    CHECK_EQ_INT(vow_resolver_resolve(r, carrier), VOW_OK);
    CHECK(vow_resolver_is_used(r));
    CHECK(vow_resolver_is_settled(r)); /* the 0.1 name, same answer */
    CHECK_EQ_INT(vow_promise_state(p), VOW_PENDING);
    CHECK_EQ_INT(vow_resolver_fulfill(r, carrier), VOW_EALREADY);
    CHECK(!vow_resolver_is_used(NULL));
    vow_value *v = vow_value_int(3);
    vow_resolver_fulfill(r2, v);
    CHECK_EQ_INT(wait_promise(p, NULL, NULL), VOW_FULFILLED);
    vow_value_release(v);
    vow_value_release(carrier);
    vow_resolver_release(r2);
    vow_resolver_release(r);
    vow_promise_release(inner);
    vow_promise_release(p);
}

static void
test_enomem_never_returned_but_kept(void)
{
    CHECK_EQ_INT(VOW_ENOMEM, -5);
    CHECK(vow_status_string(VOW_ENOMEM) != NULL);
    CHECK_EQ_INT(VOW_DEADLOCK, 3);
    CHECK(VOW_DEADLOCK != VOW_PENDING);
}

/* vow_dispatcher_default while another thread replaces the default: the borrowed answer
   stays usable (ASan and valgrind would see a use after free). */
typedef struct default_race {
    atomic_int stop;
    atomic_long uses;
    atomic_int wrong;
    atomic_int destroyed;
} default_race;

static void
inline_submit(void *ctx, vow_job run, void *job)
{
    (void)ctx;
    run(job);
}

static void
race_dispatcher_destroy(void *ctx)
{
    atomic_fetch_add(&((default_race *)ctx)->destroyed, 1);
}

static void *
default_user(void *arg)
{
    default_race *race = arg;
    while (!atomic_load(&race->stop)) {
        vow_dispatcher *d = vow_dispatcher_default();
        vow_dispatcher *kept = vow_dispatcher_retain(d);
        if (kept != d || d == NULL) atomic_fetch_add(&race->wrong, 1);
        vow_dispatcher_release(kept);
        atomic_fetch_add(&race->uses, 1);
    }
    return NULL; /* ending the thread drops its hold */
}

static void
test_default_dispatcher_survives_concurrent_replacement(void)
{
    default_race race;
    atomic_init(&race.stop, 0);
    atomic_init(&race.uses, 0);
    atomic_init(&race.destroyed, 0);
    atomic_init(&race.wrong, 0);
    enum { THREADS = 2 };
    int rounds = ts_small() ? 100 : 2000;
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, default_user, &race);
    double start_by = now_seconds() + ts_wait_seconds();
    while (atomic_load(&race.uses) == 0 && now_seconds() < start_by) sleep_seconds(0.0005);
    for (int i = 0; i < rounds; i++) {
        vow_dispatcher *d = vow_dispatcher_new(inline_submit, &race, race_dispatcher_destroy);
        vow_set_default_dispatcher(d);
        vow_dispatcher_release(d); /* the setting (and the users' holds) keep it */
        long seen = atomic_load(&race.uses);
        vow_set_default_dispatcher(NULL);
        /* Let the users get a few turns in with each dispatcher. */
        while (atomic_load(&race.uses) < seen + THREADS && now_seconds() < start_by) sleep_seconds(0.00002);
    }
    atomic_store(&race.stop, 1);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    vow_set_default_dispatcher(NULL);
    CHECK(atomic_load(&race.uses) > 0);
    CHECK_EQ_INT(atomic_load(&race.wrong), 0);
    /* Every dispatcher is freed once nothing holds it. */
    double end = now_seconds() + ts_wait_seconds();
    while (atomic_load(&race.destroyed) < rounds && now_seconds() < end) sleep_seconds(0.001);
    CHECK_EQ_INT(atomic_load(&race.destroyed), rounds);
}

/* The retain and release of promises, values and errors (one table of entry points,
 * Sources/CVow/counted_handles.c): each counts a reference to its own kind only, and
 * refuses a handle of another kind with a misuse line that names it and changes
 * nothing. */
static void
test_counted_handles_refuse_other_kinds(void)
{
    misuse_log log;
    misuse_log_init(&log);
    vow_set_misuse_handler(misuse_log_line, &log, misuse_log_destroy);
    vow_value *v = vow_value_int(7);
    vow_error *e = vow_error_new("test", 3, "three");
    vow_promise *p = vow_promise_fulfilled(v);
    REQUIRE(v != NULL && e != NULL && p != NULL);

    CHECK_EQ_PTR(vow_promise_retain(p), p);
    vow_promise_release(p);
    CHECK_EQ_PTR(vow_value_retain(v), v);
    vow_value_release(v);
    CHECK_EQ_PTR(vow_error_retain(e), e);
    vow_error_release(e);
    CHECK_EQ_INT(log.count, 0);

    CHECK_NULL(vow_promise_retain((vow_promise *)v));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_promise_retain: expected a vow_promise, got a vow_value");
    vow_promise_release((vow_promise *)e);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_promise_release: expected a vow_promise, got a vow_error");
    CHECK_NULL(vow_value_retain((const vow_value *)e));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_retain: expected a vow_value, got a vow_error");
    vow_value_release((const vow_value *)p);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_value_release: expected a vow_value, got a vow_promise");
    CHECK_NULL(vow_error_retain((const vow_error *)p));
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_error_retain: expected a vow_error, got a vow_promise");
    vow_error_release((const vow_error *)v);
    CHECK_EQ_STR(misuse_log_last(&log), "vow: vow_error_release: expected a vow_error, got a vow_value");
    CHECK_EQ_INT(log.count, 6);

    /* Nothing was counted by the refused calls: each object is still alive and whole. */
    CHECK_EQ_INT(vow_promise_state(p), VOW_FULFILLED);
    int64_t n = 0;
    CHECK_EQ_INT(vow_value_get_int(v, &n), VOW_OK);
    CHECK_EQ_INT(n, 7);
    CHECK_EQ_INT(vow_error_code(e), 3);
    CHECK_EQ_INT(log.count, 6);
    vow_set_misuse_handler(NULL, NULL, NULL);
    vow_promise_release(p);
    vow_error_release(e);
    vow_value_release(v);
    misuse_log_free(&log);
}

TEST_MAIN_BEGIN("test_edges")
    RUN_TEST(test_counts_too_large_are_misuse);
    RUN_TEST(test_plain_arrays_accepted);
    RUN_TEST(test_default_unhandled_report_is_one_line);
    RUN_TEST(test_misuse_lines_routed_and_restored);
    RUN_TEST(test_released_resolver_refused);
    RUN_TEST(test_counted_handles_refuse_other_kinds);
    RUN_TEST(test_misuse_lines_silenced);
    RUN_TEST(test_misuse_handler_swap_race);
    RUN_TEST(test_resolver_is_used);
    RUN_TEST(test_enomem_never_returned_but_kept);
    RUN_TEST(test_default_dispatcher_survives_concurrent_replacement);
TEST_MAIN_END
