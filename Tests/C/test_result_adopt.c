/* test_result_adopt.c: vow_result_adopt takes over the caller's reference to the promise it adopts. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

/* The next step of a chain: a pending promise whose resolver the test keeps. */
static vow_resolver *step_resolver;

static vow_promise *
make_step(void)
{
    return vow_promise_pending(&step_resolver);
}

static void
adopt_step(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    track_hit(ctx);
    vow_result_adopt(out, make_step()); /* the whole return: nothing to release */
}

static void
test_follows_the_step(void)
{
    vow_value *one = vow_value_int(1), *two = vow_value_int(2);
    vow_promise *p = vow_promise_fulfilled(one);
    track *t = track_new();
    vow_promise *next = vow_then(p, adopt_step, NULL, t, track_destroy);
    CHECK(wait_counter(&t->calls, 1, ts_wait_seconds()));
    flush_default();
    CHECK_EQ_INT(vow_promise_state(next), VOW_PENDING); /* follows the step, still pending */
    REQUIRE(step_resolver != NULL);
    CHECK_EQ_INT(vow_resolver_fulfill(step_resolver, two), VOW_OK);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(next, &got, NULL), VOW_FULFILLED);
    CHECK_EQ_PTR(got, two); /* the step's own value */
    vow_value_release(got);
    vow_resolver_release(step_resolver); /* the last reference to the step goes with it */
    step_resolver = NULL;
    CHECK_DESTROYED_ONCE(t);
    vow_promise_release(next);
    vow_promise_release(p);
    vow_value_release(one);
    vow_value_release(two);
}

static void
adopt_rejected(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    (void)ctx;
    vow_error *e = vow_error_new("test.adopt", 5, "the step failed");
    vow_result_adopt(out, vow_promise_rejected(e));
    vow_error_release(e);
}

static void
test_follows_a_rejection(void)
{
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    vow_promise *next = vow_then(p, adopt_rejected, NULL, NULL, NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(next, NULL, &e), VOW_REJECTED);
    CHECK_EQ_STR(vow_error_domain(e), "test.adopt");
    CHECK_EQ_INT(vow_error_code(e), 5);
    vow_error_release(e);
    vow_promise_release(next);
    vow_promise_release(p);
    vow_value_release(one);
}

static void
adopt_null(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    (void)value;
    vow_result_adopt(out, NULL); /* a step that could not start */
}

static void
test_null_step_rejects_with_type_error(void)
{
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    vow_promise *next = vow_then(p, adopt_null, NULL, NULL, NULL);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(next, NULL, &e), VOW_REJECTED);
    CHECK_EQ_STR(vow_error_domain(e), "vow");
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_TYPE);
    CHECK(e != NULL && strstr(vow_error_message(e), "vow_result_adopt") != NULL);
    vow_error_release(e);
    vow_promise_release(next);
    vow_promise_release(p);
    vow_value_release(one);
}

/* The reference is consumed however the call ends: many adoptions, each counted free. */
typedef struct adopt_case {
    int mode; /* 0: adopt; 1: NULL out; 2: out after the callback returned */
    vow_result *saved;
} adopt_case;

static atomic_int freed_steps;

static void
step_value_freed(void *p)
{
    (void)p;
    atomic_fetch_add(&freed_steps, 1);
}

/* A settled step whose value reports when it is freed (so the step promise was freed too). */
static vow_promise *
traced_step(void)
{
    vow_value *v = vow_value_pointer(&freed_steps, step_value_freed);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    return p;
}

static void
adopt_mode(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    adopt_case *c = ctx;
    if (c->mode == 0) vow_result_adopt(out, traced_step());
    if (c->mode == 1) vow_result_adopt(NULL, traced_step());
    c->saved = out;
}

static void
test_reference_consumed_on_every_path(void)
{
    atomic_store(&freed_steps, 0);
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    adopt_case adopt = {0, NULL}, null_out = {1, NULL}, stale = {2, NULL};
    vow_promise *a = vow_then(p, adopt_mode, NULL, &adopt, NULL);
    vow_promise *b = vow_then(p, adopt_mode, NULL, &null_out, NULL);
    vow_promise *c = vow_then(p, adopt_mode, NULL, &stale, NULL);
    CHECK_EQ_INT(wait_promise(a, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(b, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(wait_promise(c, NULL, NULL), VOW_FULFILLED);
    /* b's step was released at once (NULL out). */
    CHECK_EQ_INT(atomic_load(&freed_steps), 1);
    /* An out whose callback returned: a misuse line, and the step is still released. The
       check reads nothing behind out (a token, not the address of a stack slot that is gone:
       before, valgrind reported an invalid read of a dead stack frame here, and this part
       ran outside valgrind only). */
    int steps = 1;
    {
        stderr_capture cap;
        capture_stderr_begin(&cap);
        vow_result_adopt(stale.saved, traced_step());
        char *text = capture_stderr_end(&cap);
        CHECK_EQ_INT(count_lines_containing(text, "vow: vow_result_adopt: expected the vow_result of a running callback"), 1);
        free(text);
        steps++;
        CHECK_EQ_INT(atomic_load(&freed_steps), steps);
    }
    /* a's step goes when a (which adopted it) goes: the library held the only reference. */
    vow_value *got = vow_promise_value(a);
    CHECK(vow_value_get_pointer(got) == &freed_steps);
    vow_value_release(got);
    vow_promise_release(a);
    flush_default();
    CHECK(wait_counter(&freed_steps, steps + 1, ts_wait_seconds()));
    vow_promise_release(b);
    vow_promise_release(c);
    vow_promise_release(p);
    vow_value_release(one);
}

static void
adopt_wrong_kind(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    vow_result_return(out, value);
    /* A value where a promise belongs: a misuse line, the outcome stays as it was, and the
       handle is left alone (the library cannot release a handle of another kind). */
    vow_result_adopt(out, (vow_promise *)value);
}

static void
test_wrong_kind(void)
{
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_promise *next = vow_then(p, adopt_wrong_kind, NULL, NULL, NULL);
    vow_value *got = NULL;
    vow_state s = wait_promise(next, &got, NULL);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(s, VOW_FULFILLED);
    CHECK_EQ_PTR(got, one);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_result_adopt: expected a vow_promise, got a vow_value"), 1);
    free(text);
    vow_value_release(got);
    vow_promise_release(next);
    vow_promise_release(p);
    vow_value_release(one);
}

/* Adopting the derived promise's own chain: VOW_ERROR_CYCLE. */
static vow_promise *cycle_next;

static void
adopt_self(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    (void)value;
    vow_result_adopt(out, vow_promise_retain(cycle_next));
}

static void
test_cycle(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    cycle_next = vow_then(p, adopt_self, NULL, NULL, NULL);
    vow_value *one = vow_value_int(1);
    CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(cycle_next, NULL, &e), VOW_REJECTED);
    CHECK_EQ_INT(vow_error_code(e), VOW_ERROR_CYCLE);
    vow_error_release(e);
    vow_promise_release(cycle_next);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(one);
}

/* ======================================================================
 * A kept out is never taken for the running callback's (issue 32)
 * ====================================================================== */

/* Callback A keeps its out; callback B, queued after it on the same queue (so on the same
   thread, likely at the same stack address), sets 5 and then uses A's out. Before the fix
   B's promise fulfilled with the 7 of that stale call, without a word. */
static vow_result *kept_out;

static void
keep_out(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    (void)value;
    kept_out = out;
}

static void
set_five_then_use_kept(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    vow_value *five = vow_value_int(5), *seven = vow_value_int(7);
    vow_result_return(out, five);
    vow_result_return(kept_out, seven);
    vow_error *e = vow_error_new("test.adopt", 9, "stale");
    vow_result_throw(kept_out, e);
    vow_error_release(e);
    vow_result_adopt(kept_out, (vow_promise *)ctx); /* refused: still released */
    vow_value_release(five);
    vow_value_release(seven);
}

static void
test_kept_out_inside_another_callback(void)
{
    atomic_store(&freed_steps, 0);
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_promise *a = vow_then(p, keep_out, NULL, NULL, NULL);
    vow_promise *b = vow_then(p, set_five_then_use_kept, NULL, traced_step(), NULL);
    vow_value *got = NULL;
    vow_state s = wait_promise(b, &got, NULL);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(s, VOW_FULFILLED);
    int64_t n = 0;
    CHECK(vow_value_get_int(got, &n) == VOW_OK && n == 5);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_result_return: expected the vow_result of a running callback"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_result_throw: expected the vow_result of a running callback"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_result_adopt: expected the vow_result of a running callback"), 1);
    free(text);
    CHECK(wait_counter(&freed_steps, 1, ts_wait_seconds())); /* the refused promise was released */
    CHECK_EQ_INT(wait_promise(a, NULL, NULL), VOW_FULFILLED);
    vow_value_release(got);
    vow_promise_release(a);
    vow_promise_release(b);
    vow_promise_release(p);
    vow_value_release(one);
}

/* Another thread uses the out of a callback while it runs: refused, whatever it sets. */
typedef struct cross_thread {
    vow_result *out;
    atomic_int phase; /* 1: the callback runs and published out; 2: the other thread is done */
} cross_thread;

static void *
use_out_elsewhere(void *arg)
{
    cross_thread *c = arg;
    wait_counter(&c->phase, 1, ts_wait_seconds());
    vow_value *nine = vow_value_int(9);
    vow_result_return(c->out, nine);
    vow_value_release(nine);
    vow_result_adopt(c->out, traced_step());
    atomic_store(&c->phase, 2);
    return NULL;
}

static void
publish_and_wait(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    cross_thread *c = ctx;
    vow_value *five = vow_value_int(5);
    vow_result_return(out, five);
    vow_value_release(five);
    c->out = out;
    atomic_store(&c->phase, 1);
    wait_counter(&c->phase, 2, ts_wait_seconds());
}

static void
test_out_from_another_thread(void)
{
    atomic_store(&freed_steps, 0);
    cross_thread c = {NULL, 0};
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, use_out_elsewhere, &c) == 0);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_promise *b = vow_then(p, publish_and_wait, NULL, &c, NULL);
    vow_value *got = NULL;
    vow_state s = wait_promise(b, &got, NULL);
    pthread_join(t, NULL);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(atomic_load(&c.phase), 2);
    CHECK_EQ_INT(s, VOW_FULFILLED);
    int64_t n = 0;
    CHECK(vow_value_get_int(got, &n) == VOW_OK && n == 5); /* the callback's own outcome */
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_result_return: expected the vow_result of a running callback"), 1);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_result_adopt: expected the vow_result of a running callback"), 1);
    free(text);
    CHECK(wait_counter(&freed_steps, 1, ts_wait_seconds()));
    vow_value_release(got);
    vow_promise_release(b);
    vow_promise_release(p);
    vow_value_release(one);
}

/* A callback that runs inline inside another (the inline dispatcher): each has its own out;
   the outer one's is refused inside the inner one and valid again after it. */
typedef struct nested {
    vow_resolver *inner_r;
    vow_result *outer_out;
    int inner_refused_outer; /* the outer out was refused inside the inner callback */
} nested;

static void
inner_callback(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    nested *n = ctx;
    vow_value *two = vow_value_int(2), *three = vow_value_int(3);
    vow_result_return(out, two);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_result_return(n->outer_out, three);
    char *text = capture_stderr_end(&cap);
    n->inner_refused_outer = count_lines_containing(text, "expected the vow_result of a running callback");
    free(text);
    vow_value_release(two);
    vow_value_release(three);
}

static void
outer_callback(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    nested *n = ctx;
    n->outer_out = out;
    vow_value *one = vow_value_int(1), *four = vow_value_int(4);
    vow_resolver_fulfill(n->inner_r, one); /* runs inner_callback here, inline */
    vow_result_return(out, four);           /* the outer out is the running one again */
    vow_value_release(one);
    vow_value_release(four);
}

static void
test_nested_inline_callbacks(void)
{
    nested n = {NULL, NULL, 0};
    vow_promise *inner_source = vow_promise_pending(&n.inner_r);
    vow_promise *inner = vow_then_on(vow_dispatcher_inline(), inner_source, inner_callback, NULL, &n, NULL);
    vow_value *zero = vow_value_int(0);
    vow_promise *p = vow_promise_fulfilled(zero);
    vow_promise *outer = vow_then(p, outer_callback, NULL, &n, NULL);
    vow_value *got = NULL;
    int64_t v = 0;
    CHECK_EQ_INT(wait_promise(outer, &got, NULL), VOW_FULFILLED);
    CHECK(vow_value_get_int(got, &v) == VOW_OK && v == 4);
    vow_value_release(got);
    got = NULL;
    CHECK_EQ_INT(wait_promise(inner, &got, NULL), VOW_FULFILLED);
    CHECK(vow_value_get_int(got, &v) == VOW_OK && v == 2);
    CHECK_EQ_INT(n.inner_refused_outer, 1);
    vow_value_release(got);
    vow_promise_release(outer);
    vow_promise_release(p);
    vow_promise_release(inner);
    vow_promise_release(inner_source);
    vow_resolver_release(n.inner_r);
    vow_value_release(zero);
}

/* out passed where a handle is expected: refused as a stray pointer (one line each), never
   a fault, and the outcome is untouched. */
static void
out_as_handle(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    vow_result_return(out, value);
    CHECK_EQ_INT(vow_value_kind((const vow_value *)out), VOW_KIND_INVALID);
    vow_result_return(out, (const vow_value *)out);
    vow_result_adopt(out, (vow_promise *)out);
    vow_promise_release((vow_promise *)out);
}

static void
test_out_passed_as_a_handle(void)
{
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_promise *next = vow_then(p, out_as_handle, NULL, NULL, NULL);
    vow_value *got = NULL;
    vow_state s = wait_promise(next, &got, NULL);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(s, VOW_FULFILLED);
    CHECK_EQ_PTR(got, one);
    CHECK_EQ_INT(count_lines_containing(text, "got a pointer that is not a vow handle"), 4);
    free(text);
    vow_value_release(got);
    vow_promise_release(next);
    vow_promise_release(p);
    vow_value_release(one);
}

/* The derived promise is cancelled while its callback runs; the callback then adopts a
   pending step. Nobody wants that step any more: it is cancelled too (its producer's
   cancel handler runs), unless something else waits on it. Before, it was only released,
   and a producer whose resolver was held elsewhere (a request in flight) never heard of
   the cancellation (test_adoption_loop's cancel could fall into that window). */
typedef struct late_adopt {
    atomic_int running;   /* the callback started */
    atomic_int cancelled; /* the test cancelled the derived promise */
    vow_resolver *r;      /* the adopted step's resolver (kept by the test) */
    vow_promise *other;   /* keeps the step wanted, when set */
    int keep_wanted;
    track *t;             /* the step's cancel handler */
} late_adopt;

static void
adopt_after_cancel(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    late_adopt *l = ctx;
    atomic_store(&l->running, 1);
    wait_counter(&l->cancelled, 1, ts_wait_seconds());
    vow_promise *step = vow_promise_pending(&l->r);
    vow_resolver_on_cancel(l->r, track_fn, l->t, NULL);
    if (l->keep_wanted) l->other = vow_then(step, NULL, NULL, NULL, NULL);
    vow_result_adopt(out, step);
}

static void
test_adopted_after_cancel(void)
{
    for (int keep = 0; keep < 2; keep++) {
        late_adopt l = {0, 0, NULL, NULL, keep, track_new()};
        vow_value *one = vow_value_int(1);
        vow_promise *p = vow_promise_fulfilled(one);
        vow_promise *next = vow_then(p, adopt_after_cancel, NULL, &l, NULL);
        REQUIRE(wait_counter(&l.running, 1, ts_wait_seconds()));
        vow_cancel(next);
        atomic_store(&l.cancelled, 1);
        flush_default();
        if (keep) {
            /* wanted by another chain: left running */
            CHECK_EQ_INT(track_calls(l.t), 0);
            CHECK(!vow_resolver_is_used(l.r));
            vow_promise_release(l.other);
        } else {
            CHECK(wait_counter(&l.t->calls, 1, ts_wait_seconds()));
            CHECK(vow_resolver_is_used(l.r)); /* cancelled */
        }
        vow_resolver_release(l.r);
        vow_promise_release(next);
        vow_promise_release(p);
        vow_value_release(one);
        flush_default();
        track_destroy(l.t);
    }
}

TEST_MAIN_BEGIN("test_result_adopt")
RUN_TEST(test_follows_the_step);
RUN_TEST(test_follows_a_rejection);
RUN_TEST(test_null_step_rejects_with_type_error);
RUN_TEST(test_reference_consumed_on_every_path);
RUN_TEST(test_wrong_kind);
RUN_TEST(test_cycle);
RUN_TEST(test_kept_out_inside_another_callback);
RUN_TEST(test_out_from_another_thread);
RUN_TEST(test_nested_inline_callbacks);
RUN_TEST(test_out_passed_as_a_handle);
RUN_TEST(test_adopted_after_cancel);
TEST_MAIN_END
