/*
 * test_hostile.c: the calls added in 0.3 used the way a careless user or an attacker
 * would, each checked against its header block's own words (issue 32): vow_observe_on,
 * vow_promise_is_cancelled, vow_resolver_on_cancel_on, vow_when_limited /
 * vow_join_limited, vow_any, vow_result_adopt, vow_consume. Bad arguments of every kind
 * (NULL, a handle of another kind, a stray pointer) get their answer and run destroy once;
 * callbacks run where and as often as the header says; nothing leaks (valgrind) and
 * nothing reads memory that is gone.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static atomic_int lines;
static void count_line(void *ctx, const char *line) { (void)ctx; (void)line; atomic_fetch_add(&lines, 1); }

static void
t_observe_bad_input(void)
{
    vow_set_misuse_handler(count_line, NULL, NULL);
    atomic_store(&lines, 0);
    vow_value *v = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(v);
    track *a = track_new(), *b = track_new(), *c = track_new(), *d = track_new(), *e = track_new();
    CHECK_EQ_INT(vow_observe_on(NULL, p, track_fn, a, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_observe_on(vow_dispatcher_inline(), NULL, track_fn, b, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_observe_on(vow_dispatcher_inline(), p, NULL, c, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(atomic_load(&lines), 0);
    CHECK_EQ_INT(vow_observe_on((vow_dispatcher *)p, p, track_fn, d, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_observe_on(vow_dispatcher_inline(), (vow_promise *)v, track_fn, e, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(atomic_load(&lines), 2);
    CHECK_EQ_INT(track_destroyed(a) + track_destroyed(b) + track_destroyed(c) + track_destroyed(d) + track_destroyed(e), 5);
    CHECK_EQ_INT(track_calls(a) + track_calls(b) + track_calls(c) + track_calls(d) + track_calls(e), 0);
    vow_set_misuse_handler(NULL, NULL, NULL);
    vow_promise_release(p);
    vow_value_release(v);
}

static void
t_observe_inline_and_unhandled(void)
{
    unhandled_counter_install();
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    CHECK_EQ_INT(vow_observe_on(vow_dispatcher_inline(), p, track_fn, t, track_destroy), VOW_OK);
    CHECK_EQ_INT(track_calls(t), 0);
    vow_error *e = vow_error_new("hostile.observe", 1, "x");
    CHECK_EQ_INT(vow_resolver_reject(r, e), VOW_OK);
    CHECK_EQ_INT(track_calls(t), 1); /* inline: inside the settling call */
    CHECK(pthread_equal(t->thread, pthread_self()));
    CHECK_EQ_INT(track_destroyed(t), 1);
    vow_resolver_release(r);
    vow_promise_release(p); /* rejected, no handler: reported once */
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("hostile.observe", 1), 1);
    vow_error_release(e);
    /* settled already: submitted at once */
    vow_promise *done = vow_promise_rejected(vow_error_cancelled());
    track *u = track_new();
    CHECK_EQ_INT(vow_observe_on(vow_dispatcher_default(), done, track_fn, u, track_destroy), VOW_OK);
    CHECK(wait_counter(&u->calls, 1, ts_wait_seconds()));
    CHECK_DESTROYED_ONCE(u);
    vow_promise_release(done);
}

static void
t_observe_dropped_and_not_wanted(void)
{
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *t = track_new();
    CHECK_EQ_INT(vow_observe_on(d, p, track_fn, t, track_destroy), VOW_OK);
    vow_dispatcher_release(d); /* retained until fn ran or was dropped */
    vow_promise *q2 = vow_then(p, NULL, NULL, NULL, NULL);
    vow_cancel(q2); /* the watch does not keep p wanted */
    CHECK(vow_promise_is_cancelled(p));
    CHECK_EQ_INT(host_drop_all(q), 1); /* the loop drops fn's job */
    CHECK_EQ_INT(track_calls(t), 0);
    CHECK_DESTROYED_ONCE(t);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
    vow_promise_release(q2);
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
t_observe_concurrent(void)
{
    enum { N = 200 };
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *ts[N];
    for (int i = 0; i < N; i++) {
        ts[i] = track_new();
        if (i == N / 2) { vow_value *v = vow_value_int(1); vow_resolver_fulfill(r, v); vow_value_release(v); }
        CHECK_EQ_INT(vow_observe_on(vow_dispatcher_background(), p, track_fn, ts[i], track_destroy), VOW_OK);
    }
    for (int i = 0; i < N; i++) {
        CHECK(wait_counter(&ts[i]->calls, 1, ts_wait_seconds()));
        CHECK_DESTROYED_ONCE(ts[i]);
    }
    vow_resolver_release(r);
    vow_promise_release(p);
}

static void
t_is_cancelled(void)
{
    vow_set_misuse_handler(count_line, NULL, NULL);
    atomic_store(&lines, 0);
    unhandled_counter_install();
    CHECK(!vow_promise_is_cancelled(NULL));
    vow_value *v = vow_value_int(3);
    CHECK(!vow_promise_is_cancelled((const vow_promise *)v));
    CHECK_EQ_INT(atomic_load(&lines), 1);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    CHECK(!vow_promise_is_cancelled(p));
    vow_promise *f = vow_promise_fulfilled(v);
    CHECK(!vow_promise_is_cancelled(f));
    vow_error *other = vow_error_new("hostile.cancel", 5, "not a cancel");
    vow_promise *rj = vow_promise_rejected(other);
    CHECK(!vow_promise_is_cancelled(rj));
    vow_error *c = vow_error_cancelled();
    vow_promise *rc = vow_promise_rejected(c);
    CHECK(vow_promise_is_cancelled(rc));
    vow_cancel(p);
    CHECK(vow_promise_is_cancelled(p));
    vow_register_cancellation("hostile.mine", 9);
    vow_error *mine = vow_error_new("hostile.mine", 9, "mine");
    vow_promise *rm = vow_promise_rejected(mine);
    CHECK(vow_promise_is_cancelled(rm));
    vow_promise_release(rj); /* asked about, still unhandled: reported */
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("hostile.cancel", 5), 1);
    vow_promise_release(rc); vow_promise_release(rm); vow_promise_release(f);
    vow_resolver_release(r); vow_promise_release(p);
    vow_error_release(other); vow_error_release(c); vow_error_release(mine);
    vow_value_release(v);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

static void
t_on_cancel_on(void)
{
    vow_set_misuse_handler(count_line, NULL, NULL);
    atomic_store(&lines, 0);
    host_queue *q = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, q, host_queue_destroy);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    track *a = track_new(), *b = track_new(), *c = track_new(), *dd = track_new(), *e = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(NULL, d, track_fn, a, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, NULL, track_fn, b, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, NULL, c, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(atomic_load(&lines), 0);
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, (vow_dispatcher *)p, track_fn, dd, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(vow_resolver_on_cancel_on((vow_resolver *)p, d, track_fn, e, track_destroy), VOW_EINVAL);
    CHECK_EQ_INT(atomic_load(&lines), 2);
    CHECK_EQ_INT(track_destroyed(a) + track_destroyed(b) + track_destroyed(c) + track_destroyed(dd) + track_destroyed(e), 5);
    /* registered, then cancelled from downstream: fn on d, once */
    track *ok = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d, track_fn, ok, track_destroy), VOW_OK);
    vow_dispatcher_release(d);
    vow_promise *down = vow_then(p, NULL, NULL, NULL, NULL);
    vow_cancel(down);
    CHECK(vow_promise_is_cancelled(p));
    CHECK_EQ_INT(track_calls(ok), 0); /* submitted, not run yet */
    host_drain(q);
    CHECK_EQ_INT(track_calls(ok), 1);
    CHECK(pthread_equal(ok->thread, pthread_self()));
    CHECK_DESTROYED_ONCE(ok);
    /* registered after the cancellation: submitted at once (on another dispatcher of the
       same loop: the test let go of d above) */
    vow_dispatcher *d2 = vow_dispatcher_new(host_submit, q, NULL);
    track *late = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r, d2, track_fn, late, track_destroy), VOW_OK);
    host_drain(q);
    CHECK_EQ_INT(track_calls(late), 1);
    CHECK_DESTROYED_ONCE(late);
    /* settled otherwise: dropped, destroy once */
    vow_resolver *r2 = NULL;
    vow_promise *p2 = vow_promise_pending(&r2);
    track *never = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r2, d2, track_fn, never, track_destroy), VOW_OK);
    vow_value *v = vow_value_int(1);
    vow_resolver_fulfill(r2, v);
    CHECK_DESTROYED_ONCE(never);
    vow_cancel(p2);
    host_drain(q);
    CHECK_EQ_INT(track_calls(never), 0);
    /* registered on a settled promise: dropped at once */
    track *after = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r2, d2, track_fn, after, track_destroy), VOW_OK);
    CHECK_DESTROYED_ONCE(after);
    CHECK_EQ_INT(track_calls(after), 0);
    /* the loop drops the job: never runs, destroy once */
    vow_resolver *r3 = NULL;
    vow_promise *p3 = vow_promise_pending(&r3);
    track *dropped = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r3, d2, track_fn, dropped, track_destroy), VOW_OK);
    vow_cancel(p3);
    CHECK_EQ_INT(host_drop_all(q), 1);
    CHECK_EQ_INT(track_calls(dropped), 0);
    CHECK_DESTROYED_ONCE(dropped);
    /* resolver released unused: BROKEN, not a cancellation: fn dropped */
    vow_resolver *r4 = NULL;
    vow_promise *p4 = vow_promise_pending(&r4);
    track *broken = track_new();
    CHECK_EQ_INT(vow_resolver_on_cancel_on(r4, d2, track_fn, broken, track_destroy), VOW_OK);
    vow_resolver_release(r4);
    host_drain(q);
    CHECK_EQ_INT(track_calls(broken), 0);
    CHECK_DESTROYED_ONCE(broken);
    CHECK_EQ_INT(vow_wait(p4, 0, NULL, NULL), VOW_REJECTED);
    vow_dispatcher_release(d2);
    host_drain(q);
    CHECK_EQ_INT(atomic_load(&q->destroyed), 1);
    host_queue_free(q);
    vow_value_release(v);
    vow_promise_release(down); vow_promise_release(p); vow_resolver_release(r);
    vow_promise_release(p2); vow_resolver_release(r2);
    vow_promise_release(p3); vow_resolver_release(r3);
    vow_promise_release(p4);
    vow_set_misuse_handler(NULL, NULL, NULL);
}


static vow_promise *shared;
static vow_promise *make_shared(void *ctx, size_t i) { (void)ctx; (void)i; return vow_promise_retain(shared); }

typedef struct mk { atomic_int calls; atomic_int destroyed; vow_promise *result; int mode; } mk;
static void mk_destroy(void *ctx) { atomic_fetch_add(&((mk *)ctx)->destroyed, 1); }
static vow_promise *
mk_make(void *ctx, size_t i)
{
    mk *m = ctx;
    atomic_fetch_add(&m->calls, 1);
    switch (m->mode) {
    case 0: { vow_value *v = vow_value_int((int64_t)i); vow_promise *p = vow_promise_fulfilled(v); vow_value_release(v); return p; }
    case 1: return NULL;
    case 2: { vow_error *e = vow_error_new("hostile.limited", (int64_t)i, "no"); vow_promise *p = vow_promise_rejected(e); vow_error_release(e); return p; }
    case 3: { /* wait on the result from make: deadlock answer */
        vow_error *e = NULL;
        vow_state s = vow_wait(m->result, 5, NULL, &e);
        vow_error_release(e);
        vow_value *v = vow_value_int(s);
        vow_promise *p = vow_promise_fulfilled(v); vow_value_release(v); return p; }
    case 4: vow_cancel(m->result); return NULL;
    }
    return NULL;
}

static void
t_limited(void)
{
    vow_set_misuse_handler(count_line, NULL, NULL);
    vow_value *seven = vow_value_int(7);
    shared = vow_promise_fulfilled(seven);
    vow_promise *same = vow_when_limited(5, 2, make_shared, NULL, NULL);
    vow_value *list = NULL;
    CHECK_EQ_INT(wait_promise(same, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), 5);
    for (size_t i = 0; i < 5; i++) CHECK_EQ_PTR(vow_value_at(list, i), seven);
    vow_value_release(list);
    vow_promise_release(same);
    vow_promise_release(shared);
    vow_value_release(seven);

    /* release the result at once: the work goes on, destroy once, no leak */
    mk a = {0};
    vow_promise_release(vow_when_limited(50, 3, mk_make, &a, mk_destroy));
    CHECK(wait_counter(&a.destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&a.calls), 50);
    /* NULL from make with a huge n: the first NULL rejects, make stops, destroy once */
    mk b = {.mode = 1};
    vow_promise *pb = vow_when_limited((size_t)1 << 62, 1, mk_make, &b, mk_destroy);
    vow_error *e = NULL;
    CHECK_EQ_INT(wait_promise(pb, NULL, &e), VOW_REJECTED);
    CHECK(e && vow_error_code(e) == VOW_ERROR_TYPE);
    vow_error_release(e);
    CHECK(wait_counter(&b.destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&b.calls), 1);
    vow_promise_release(pb);
    /* join: every rejection an ERROR value, in order */
    mk c = {.mode = 2};
    vow_promise *pc = vow_join_limited(4, 2, mk_make, &c, mk_destroy);
    list = NULL;
    CHECK_EQ_INT(wait_promise(pc, &list, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(vow_value_count(list), 4);
    for (size_t i = 0; i < 4; i++) {
        const vow_error *ei = vow_value_get_error(vow_value_at(list, i));
        CHECK(ei && vow_error_code(ei) == (int64_t)i);
    }
    vow_value_release(list);
    vow_promise_release(pc);
    CHECK(wait_counter(&c.destroyed, 1, ts_wait_seconds()));
    /* make waits on the result: VOW_DEADLOCK, not a hang */
    mk d = {.mode = 3};
    d.result = vow_when_limited(1, 1, mk_make, &d, mk_destroy);
    list = NULL;
    CHECK_EQ_INT(wait_promise(d.result, &list, NULL), VOW_FULFILLED);
    int64_t s = -1;
    CHECK(vow_value_get_int(vow_value_at(list, 0), &s) == VOW_OK && s == VOW_DEADLOCK);
    vow_value_release(list);
    vow_promise_release(d.result);
    /* make cancels the result and returns NULL */
    mk f = {.mode = 4};
    f.result = vow_when_limited(3, 1, mk_make, &f, mk_destroy);
    CHECK_EQ_INT(wait_promise(f.result, NULL, NULL), VOW_REJECTED);
    CHECK(vow_promise_is_cancelled(f.result));
    CHECK(wait_counter(&f.destroyed, 1, ts_wait_seconds()));
    CHECK_EQ_INT(atomic_load(&f.calls), 1);
    vow_promise_release(f.result);
    /* bad arguments */
    mk g = {0};
    atomic_store(&lines, 0);
    CHECK_NULL(vow_when_limited(0, 0, mk_make, &g, mk_destroy));
    CHECK_NULL(vow_join_limited_on(vow_dispatcher_inline(), 0, 0, mk_make, &g, mk_destroy));
    CHECK_NULL(vow_when_limited_on((vow_dispatcher *)&g, 1, 1, mk_make, &g, mk_destroy)); /* stray pointer */
    CHECK_NULL(vow_when_limited(SIZE_MAX, 1, mk_make, &g, mk_destroy));
    CHECK_NULL(vow_when_limited(1, 1, NULL, &g, mk_destroy));
    CHECK_EQ_INT(atomic_load(&g.destroyed), 5);
    CHECK_EQ_INT(atomic_load(&lines), 4);
    CHECK_EQ_INT(atomic_load(&g.calls), 0);
    /* n 0, limit 1: empty list at once, destroy before return */
    vow_promise *empty = vow_join_limited(0, 1, mk_make, &g, mk_destroy);
    CHECK_EQ_INT(atomic_load(&g.destroyed), 6);
    CHECK_EQ_INT(vow_promise_state(empty), VOW_FULFILLED);
    vow_promise_release(empty);
    /* inline dispatcher: made inside the call */
    mk h = {0};
    vow_promise *ph = vow_when_limited_on(vow_dispatcher_inline(), 3, 10, mk_make, &h, mk_destroy);
    CHECK_EQ_INT(atomic_load(&h.calls), 3);
    CHECK_EQ_INT(atomic_load(&h.destroyed), 1);
    CHECK_EQ_INT(vow_promise_state(ph), VOW_FULFILLED);
    vow_promise_release(ph);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

static void
t_any(void)
{
    unhandled_counter_install();
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *twice[2] = {p, p};
    vow_promise *a = vow_any(twice, 2);
    vow_error *e = vow_error_new("hostile.any", 1, "x");
    vow_resolver_reject(r, e);
    vow_error *got = NULL;
    CHECK_EQ_INT(wait_promise(a, NULL, &got), VOW_REJECTED);
    CHECK_EQ_PTR(got, e);
    vow_error_release(got);
    vow_promise_release(a);
    vow_resolver_release(r);
    vow_promise_release(p);
    /* all cancelled: rejects with the cancellation */
    vow_resolver *rs[3]; vow_promise *ps[3];
    for (int i = 0; i < 3; i++) ps[i] = vow_promise_pending(&rs[i]);
    a = vow_any(ps, 3);
    for (int i = 0; i < 3; i++) vow_cancel(ps[i]);
    CHECK_EQ_INT(wait_promise(a, NULL, NULL), VOW_REJECTED);
    CHECK(vow_promise_is_cancelled(a));
    vow_promise_release(a);
    for (int i = 0; i < 3; i++) { vow_resolver_release(rs[i]); vow_promise_release(ps[i]); }
    /* cancelling the result cancels the inputs nothing else waits on */
    for (int i = 0; i < 3; i++) ps[i] = vow_promise_pending(&rs[i]);
    vow_promise *keep = vow_then(ps[1], NULL, NULL, NULL, NULL);
    a = vow_any(ps, 3);
    vow_cancel(a);
    CHECK(vow_promise_is_cancelled(ps[0]));
    CHECK_EQ_INT(vow_promise_state(ps[1]), VOW_PENDING);
    CHECK(vow_promise_is_cancelled(ps[2]));
    vow_promise_release(a);
    vow_promise_release(keep);
    for (int i = 0; i < 3; i++) { vow_resolver_release(rs[i]); vow_promise_release(ps[i]); }
    /* many inputs rejected: the error of the last, the rest handled (none reported) */
    enum { N = 64 };
    vow_resolver *rr[N]; vow_promise *pp[N];
    for (int i = 0; i < N; i++) pp[i] = vow_promise_pending(&rr[i]);
    a = vow_any(pp, N);
    vow_promise *many = a;
    for (int i = 0; i < N; i++) { vow_resolver_reject(rr[i], e); }
    CHECK_EQ_INT(wait_promise(many, NULL, NULL), VOW_REJECTED);
    vow_promise_release(many);
    for (int i = 0; i < N; i++) { vow_resolver_release(rr[i]); vow_promise_release(pp[i]); }
    flush_default();
    CHECK_EQ_INT(unhandled_count_matching("hostile.any", -1), 0);
    vow_error_release(e);
    /* n with the top bit set; NULL element */
    CHECK_NULL(vow_any(ps, SIZE_MAX));
    vow_promise *nul[2] = {NULL, NULL};
    CHECK_NULL(vow_any(nul, 2));
}

static atomic_int freed;
static void value_gone(void *p) { (void)p; atomic_fetch_add(&freed, 1); }
static vow_promise *traced(void) { vow_value *v = vow_value_pointer(&freed, value_gone); vow_promise *p = vow_promise_fulfilled(v); vow_value_release(v); return p; }

static void adopt_twice(void *ctx, const vow_value *v, vow_result *out) {
    (void)ctx; (void)v;
    vow_result_adopt(out, traced());
    vow_result_adopt(out, traced()); /* replaces: the first released */
    vow_value *x = vow_value_int(4);
    vow_result_return(out, x);      /* replaces again */
    vow_value_release(x);
}
static void adopt_in_error(void *ctx, const vow_error *e, vow_result *out) {
    (void)ctx; (void)e;
    vow_result_adopt(out, traced());
}
static void adopt_in_dispatch(void *ctx, const vow_value *v, vow_result *out) {
    (void)ctx;
    CHECK(v == NULL);
    vow_result_adopt(out, traced());
}

static void
t_adopt(void)
{
    atomic_store(&freed, 0);
    vow_value *one = vow_value_int(1);
    vow_promise *p = vow_promise_fulfilled(one);
    vow_promise *a = vow_then(p, adopt_twice, NULL, NULL, NULL);
    vow_value *got = NULL;
    CHECK_EQ_INT(wait_promise(a, &got, NULL), VOW_FULFILLED);
    int64_t i = 0;
    CHECK(vow_value_get_int(got, &i) == VOW_OK && i == 4);
    vow_value_release(got);
    CHECK(wait_counter(&freed, 2, ts_wait_seconds()));
    vow_promise_release(a);
    vow_error *e = vow_error_new("hostile.adopt", 1, "e");
    vow_promise *rej = vow_promise_rejected(e);
    vow_promise *b = vow_catch(rej, adopt_in_error, NULL, NULL);
    CHECK_EQ_INT(wait_promise(b, NULL, NULL), VOW_FULFILLED);
    vow_promise *c = vow_dispatch(vow_dispatcher_background(), adopt_in_dispatch, NULL, NULL);
    CHECK_EQ_INT(wait_promise(c, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(b); vow_promise_release(c); vow_promise_release(rej); vow_error_release(e);
    flush_default();
    CHECK(wait_counter(&freed, 4, ts_wait_seconds()));
    /* outside any callback: refused, p released */
    stderr_capture cap;
    capture_stderr_begin(&cap);
    vow_result_adopt((vow_result *)p, traced()); /* a promise passed as out */
    vow_result_adopt((vow_result *)0x10, traced());
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(count_lines_containing(text, "expected the vow_result of a running callback"), 2);
    free(text);
    CHECK(wait_counter(&freed, 6, ts_wait_seconds()));
    vow_promise_release(p);
    vow_value_release(one);
}

static void
t_consume(void)
{
    atomic_store(&freed, 0);
    CHECK_NULL(vow_consume(NULL, NULL));
    vow_promise *x = traced();
    CHECK_EQ_PTR(vow_consume(NULL, x), x);
    CHECK_NULL(vow_consume(x, NULL));
    CHECK_EQ_INT(atomic_load(&freed), 1);
    vow_promise *y = traced();
    vow_value *v = vow_value_int(2);
    stderr_capture cap;
    capture_stderr_begin(&cap);
    CHECK_NULL(vow_consume(y, (vow_promise *)v));
    CHECK_EQ_PTR(vow_consume((vow_promise *)v, NULL), NULL);
    char *text = capture_stderr_end(&cap);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_consume:"), 2);
    free(text);
    CHECK_EQ_INT(atomic_load(&freed), 2);
    CHECK_EQ_INT(vow_value_kind(v), VOW_KIND_INT);
    vow_value_release(v);
    /* prev == next with two references: fine */
    vow_promise *z = traced();
    vow_promise_retain(z);
    CHECK_EQ_PTR(vow_consume(z, z), z);
    vow_promise_release(z);
    CHECK_EQ_INT(atomic_load(&freed), 3);
}

TEST_MAIN_BEGIN("test_hostile")
    RUN_TEST(t_observe_bad_input);
    RUN_TEST(t_observe_inline_and_unhandled);
    RUN_TEST(t_observe_dropped_and_not_wanted);
    RUN_TEST(t_observe_concurrent);
    RUN_TEST(t_is_cancelled);
    RUN_TEST(t_on_cancel_on);
    RUN_TEST(t_limited);
    RUN_TEST(t_any);
    RUN_TEST(t_adopt);
    RUN_TEST(t_consume);
TEST_MAIN_END
