/*
 * test_cycles.c: the cycle check of adoption through every input of a
 * combinator ("a p that leads back to the derived promise rejects it with
 * VOW_ERROR_CYCLE", vow_result_adopt and vow_resolver_resolve): vow_when,
 * vow_join, vow_race, vow_any and the bounded combinators (make returning
 * the result itself, or a promise that follows it, in either order). A cycle
 * that was missed left the promise pending forever in a reference cycle
 * nobody frees (the valgrind pass sees it as a leak); before the fix only a
 * combinator's first input was looked at, and a retry's attempts not at all
 * (vow_retry's make returning the result hung the same way). Also: no cycle is seen where there
 * is none, and a deep lattice of combinators is walked once per promise,
 * without recursion.
 *
 * The callbacks run on host loops (host_queue) drained by this thread, so the
 * order of the steps is exact.
 */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static int
is_cycle(const vow_error *e)
{
    return e != NULL && vow_error_domain(e) != NULL && strcmp(vow_error_domain(e), "vow") == 0 &&
           vow_error_code(e) == VOW_ERROR_CYCLE;
}

/* What the current check is about (printed when it fails). */
static const char *cycle_label = "";

/* Runs q's loop until p settles; CHECKs it rejected with VOW_ERROR_CYCLE. */
#define CHECK_CYCLE(q, p) check_cycle((q), (p), __FILE__, __LINE__)
static void
check_cycle(host_queue *q, vow_promise *p, const char *file, int line)
{
    vow_state s = host_run_until(q, p, ts_wait_seconds());
    vow_error *e = vow_promise_error(p);
    ts_check(s == VOW_REJECTED && is_cycle(e), file, line, "the promise rejected with VOW_ERROR_CYCLE");
    if (!is_cycle(e)) {
        fprintf(stderr, "    %s: state %d, error %s\n", cycle_label, (int)s, e != NULL ? vow_error_message(e) : "none");
    }
    vow_error_release(e);
}

/* ======================================================================
 * A callback that adopts a combinator holding its own derived promise
 * ====================================================================== */

enum { WHEN, JOIN, RACE, ANY, NESTED, LIMITED };
static const char *const kind_names[] = {"vow_when", "vow_join", "vow_race", "vow_any", "nested", "limited"};

typedef struct adopter {
    int kind;
    vow_promise *self;  /* the derived promise (set before its callback can run) */
    vow_promise *other; /* a pending input that never settles here */
    host_queue *loop;   /* where make runs, for LIMITED */
    vow_dispatcher *d;
} adopter;

static vow_promise *
make_self(void *ctx, size_t i)
{
    (void)i;
    adopter *a = ctx;
    return vow_promise_retain(a->self);
}

static void
adopt_combinator(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    adopter *a = ctx;
    /* The derived promise is the second input: the one the check used to miss. */
    vow_promise *ps[2] = {a->other, a->self};
    switch (a->kind) {
    case WHEN: vow_result_adopt(out, vow_when(ps, 2)); break;
    case JOIN: vow_result_adopt(out, vow_join(ps, 2)); break;
    case RACE: vow_result_adopt(out, vow_race(ps, 2)); break;
    case ANY: vow_result_adopt(out, vow_any(ps, 2)); break;
    case NESTED: {
        /* self three steps away: when({other, then(join({other, self}))}) */
        vow_promise *inner = vow_join(ps, 2);
        vow_promise *step = vow_then(inner, NULL, NULL, NULL, NULL);
        vow_promise *outer_ps[2] = {a->other, step};
        vow_result_adopt(out, vow_when(outer_ps, 2));
        vow_promise_release(step);
        vow_promise_release(inner);
        break;
    }
    case LIMITED: vow_result_adopt(out, vow_when_limited_on(a->d, 2, 2, make_self, a, NULL)); break;
    }
}

static void
test_adopting_a_combinator_of_itself(void)
{
    for (int kind = WHEN; kind <= LIMITED; kind++) {
        host_queue *loop = host_queue_new();
        vow_dispatcher *d = vow_dispatcher_new(host_submit, loop, host_queue_destroy);
        vow_resolver *r = NULL, *ro = NULL;
        vow_promise *p = vow_promise_pending(&r);
        adopter a = {kind, NULL, vow_promise_pending(&ro), loop, d};
        a.self = vow_then_on(d, p, adopt_combinator, NULL, &a, NULL);
        vow_value *one = vow_value_int(1);
        CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
        cycle_label = kind_names[kind];
        CHECK_CYCLE(loop, a.self);
        /* The other input: a race's loser is cancelled once the race settled (with the
           cycle error); the other combinators leave it running. */
        CHECK_EQ_INT(vow_promise_state(a.other), kind == RACE ? VOW_REJECTED : VOW_PENDING);
        CHECK_EQ_INT(vow_resolver_fulfill(ro, one), kind == RACE ? VOW_EALREADY : VOW_OK);
        host_drain(loop);
        vow_promise_release(a.self);
        vow_promise_release(a.other);
        vow_resolver_release(ro);
        vow_resolver_release(r);
        vow_promise_release(p);
        vow_value_release(one);
        vow_dispatcher_release(d);
        host_drain(loop);
        CHECK_EQ_INT(atomic_load(&loop->destroyed), 1); /* nothing kept the dispatcher: no cycle left */
        host_queue_free(loop);
    }
}

/* ======================================================================
 * vow_resolver_resolve with a PROMISE value holding a combinator of it
 * ====================================================================== */

static void
test_resolver_resolve_with_a_combinator_of_itself(void)
{
    for (int kind = WHEN; kind <= ANY; kind++) {
        vow_resolver *r = NULL, *ro = NULL;
        vow_promise *p = vow_promise_pending(&r);
        vow_promise *other = vow_promise_pending(&ro);
        vow_promise *ps[3] = {other, other, p};
        vow_promise *c = kind == WHEN ? vow_when(ps, 3)
                       : kind == JOIN ? vow_join(ps, 3)
                       : kind == RACE ? vow_race(ps, 3)
                                      : vow_any(ps, 3);
        vow_value *pv = vow_value_promise(c);
        CHECK_EQ_INT(vow_resolver_resolve(r, pv), VOW_OK); /* "rejects it ... and returns VOW_OK" */
        vow_error *e = NULL;
        CHECK_EQ_INT(wait_promise(p, NULL, &e), VOW_REJECTED);
        CHECK(is_cycle(e));
        vow_error_release(e);
        vow_value_release(pv);
        vow_promise_release(c);
        vow_resolver_release(ro);
        vow_promise_release(other);
        vow_resolver_release(r);
        vow_promise_release(p);
    }
}

/* ======================================================================
 * Bounded combinators: make returns the result, or a promise that follows it
 * ====================================================================== */

typedef struct limited_case {
    vow_promise *result;
    vow_promise *follower; /* returned by make when set */
    atomic_int made;
} limited_case;

static vow_promise *
make_result(void *ctx, size_t i)
{
    (void)i;
    limited_case *c = ctx;
    atomic_fetch_add(&c->made, 1);
    return vow_promise_retain(c->follower != NULL ? c->follower : c->result);
}

static void
test_make_returns_the_result(void)
{
    host_queue *loop = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, loop, host_queue_destroy);
    /* vow_when_limited: the result rejects with the cycle error (make's call comes later,
       on the loop: the result is known by then). */
    limited_case w = {0};
    w.result = vow_when_limited_on(d, 3, 1, make_result, &w, NULL);
    CHECK_CYCLE(loop, w.result);
    CHECK_EQ_INT(atomic_load(&w.made), 1); /* the first rejection stops making inputs */
    /* A promise that follows the result (a then of it) leads back to it too. */
    limited_case t = {0};
    t.result = vow_when_limited_on(d, 1, 1, make_result, &t, NULL);
    t.follower = vow_then(t.result, NULL, NULL, NULL, NULL);
    CHECK_CYCLE(loop, t.result);
    CHECK_EQ_INT(wait_promise(t.follower, NULL, NULL), VOW_REJECTED);
    /* vow_join_limited: that input is an ERROR value holding the cycle error. */
    limited_case j = {0};
    j.result = vow_join_limited_on(d, 2, 2, make_result, &j, NULL);
    CHECK_EQ_INT(host_run_until(loop, j.result, ts_wait_seconds()), VOW_FULFILLED);
    vow_value *list = vow_promise_value(j.result);
    CHECK_EQ_INT(vow_value_count(list), 2);
    for (size_t i = 0; i < 2; i++) {
        const vow_value *entry = vow_value_at(list, i);
        CHECK_EQ_INT(vow_value_kind(entry), VOW_KIND_ERROR);
        CHECK(is_cycle(vow_value_get_error(entry)));
    }
    vow_value_release(list);
    vow_promise_release(w.result);
    vow_promise_release(t.result);
    vow_promise_release(t.follower);
    vow_promise_release(j.result);
    vow_dispatcher_release(d);
    host_drain(loop);
    CHECK_EQ_INT(atomic_load(&loop->destroyed), 1);
    host_queue_free(loop);
}

/* q's callback (on loop_q) adopts the bounded result, whose make (on loop_make) returns q:
   caught whichever of the two runs first. */
static limited_case *follow_case;

static void
adopt_limited(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    (void)value;
    vow_result_adopt(out, vow_promise_retain(follow_case->result));
}

static void
test_callback_adopts_a_bounded_result_that_makes_it(void)
{
    for (int make_first = 0; make_first < 2; make_first++) {
        host_queue *loop_q = host_queue_new(), *loop_make = host_queue_new();
        vow_dispatcher *dq = vow_dispatcher_new(host_submit, loop_q, host_queue_destroy);
        vow_dispatcher *dm = vow_dispatcher_new(host_submit, loop_make, host_queue_destroy);
        vow_resolver *r = NULL;
        vow_promise *p = vow_promise_pending(&r);
        limited_case c = {0};
        follow_case = &c;
        c.follower = vow_then_on(dq, p, adopt_limited, NULL, NULL, NULL);
        c.result = vow_when_limited_on(dm, 1, 1, make_result, &c, NULL);
        vow_value *one = vow_value_int(1);
        if (make_first) {
            /* make returns q while q waits on p: no cycle yet, q is an input. Then q's
               callback adopts the result, which waits on q. */
            host_drain(loop_make);
            CHECK_EQ_INT(atomic_load(&c.made), 1);
            CHECK_EQ_INT(vow_promise_state(c.result), VOW_PENDING);
            CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
            CHECK_CYCLE(loop_q, c.follower);
            CHECK_CYCLE(loop_make, c.result);
        } else {
            /* q follows the result first; then make returns q. */
            CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
            host_drain(loop_q);
            CHECK_EQ_INT(atomic_load(&c.made), 0);
            CHECK_EQ_INT(vow_promise_state(c.follower), VOW_PENDING);
            CHECK_CYCLE(loop_make, c.result);
            CHECK_CYCLE(loop_q, c.follower);
        }
        vow_promise_release(c.follower);
        vow_promise_release(c.result);
        vow_resolver_release(r);
        vow_promise_release(p);
        vow_value_release(one);
        vow_dispatcher_release(dq);
        vow_dispatcher_release(dm);
        host_drain(loop_q);
        host_drain(loop_make);
        CHECK_EQ_INT(atomic_load(&loop_q->destroyed) + atomic_load(&loop_make->destroyed), 2);
        host_queue_free(loop_q);
        host_queue_free(loop_make);
    }
}

/* ======================================================================
 * vow_retry: make returns the result, or the promise that adopts it
 * ====================================================================== */

typedef struct retry_case {
    vow_promise *result;
    vow_promise *follower; /* returned by make when set */
    atomic_int made;
} retry_case;

static vow_promise *
retry_make(void *ctx)
{
    retry_case *c = ctx;
    atomic_fetch_add(&c->made, 1);
    return vow_promise_retain(c->follower != NULL ? c->follower : c->result);
}

static retry_case *retry_follow_case;

static void
adopt_retry(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    (void)value;
    vow_result_adopt(out, vow_promise_retain(retry_follow_case->result));
}

/* make runs on the default dispatcher: a host loop here, so the order is the test's. */
static void
test_retry_make_returns_the_result(void)
{
    host_queue *loop = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, loop, host_queue_destroy);
    vow_set_default_dispatcher(d);
    /* Each attempt is the result itself: each fails with the cycle error, the last is final. */
    retry_case self = {0};
    self.result = vow_retry(3, 0, retry_make, NULL, &self, NULL);
    CHECK_CYCLE(loop, self.result);
    CHECK_EQ_INT(atomic_load(&self.made), 3);
    vow_promise_release(self.result);

    /* q's callback adopts the retry whose make returns q, in either order. */
    for (int make_first = 0; make_first < 2; make_first++) {
        vow_resolver *r = NULL;
        vow_promise *p = vow_promise_pending(&r);
        retry_case c = {0};
        retry_follow_case = &c;
        c.follower = vow_then_on(d, p, adopt_retry, NULL, NULL, NULL);
        vow_value *one = vow_value_int(1);
        /* The loop runs its jobs in the order they came: the first attempt's, queued by
           vow_retry, and q's callback's, queued when p fulfils. */
        if (make_first) {
            c.result = vow_retry(2, 0, retry_make, NULL, &c, NULL);
            host_run_one(loop); /* the first attempt: q, pending on p */
            CHECK_EQ_INT(atomic_load(&c.made), 1);
            CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
        } else {
            CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
            c.result = vow_retry(2, 0, retry_make, NULL, &c, NULL);
            host_run_one(loop); /* q's callback: q follows the retry */
            CHECK_EQ_INT(atomic_load(&c.made), 0);
            CHECK_EQ_INT(vow_promise_state(c.follower), VOW_PENDING);
        }
        CHECK_CYCLE(loop, c.follower);
        CHECK_CYCLE(loop, c.result);
        vow_promise_release(c.follower);
        vow_promise_release(c.result);
        vow_resolver_release(r);
        vow_promise_release(p);
        vow_value_release(one);
    }
    vow_set_default_dispatcher(NULL);
    vow_dispatcher_release(d);
    host_drain(loop);
    flush_default();
    CHECK_EQ_INT(atomic_load(&loop->destroyed), 1);
    host_queue_free(loop);
}

/* ======================================================================
 * No cycle where there is none; a deep lattice walked once per promise
 * ====================================================================== */

typedef struct lattice {
    vow_promise *top;   /* what the callback adopts */
    vow_promise *self;  /* the derived promise */
} lattice;

static void
adopt_top(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    lattice *l = ctx;
    vow_result_adopt(out, vow_promise_retain(l->top));
}

/* levels of w(i+1) = when({other, w(i), then(w(i)), w(i)}) over base: 3^levels paths, levels + 1
   combinators; a walk along every path would never end. The first input is another
   pending promise, which leads nowhere. */
static vow_promise *
build_lattice(vow_promise *base, vow_promise *other, int levels)
{
    vow_promise *w = vow_promise_retain(base);
    for (int i = 0; i < levels; i++) {
        vow_promise *step = vow_then(w, NULL, NULL, NULL, NULL);
        vow_promise *ps[4] = {other, w, step, w};
        vow_promise *next = vow_when(ps, 4);
        vow_promise_release(step);
        vow_promise_release(w);
        w = next;
    }
    return w;
}

static void
test_lattice(void)
{
    int levels = ts_small() ? 500 : 5000;
    host_queue *loop = host_queue_new();
    vow_dispatcher *d = vow_dispatcher_new(host_submit, loop, host_queue_destroy);
    vow_value *one = vow_value_int(1);

    /* No cycle: the lattice stands on an unrelated pending promise; the adopter follows it
       and fulfils once that does. */
    vow_resolver *r = NULL, *rb = NULL, *ro = NULL;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *base = vow_promise_pending(&rb);
    vow_promise *other = vow_promise_pending(&ro);
    lattice plain = {build_lattice(base, other, levels), NULL};
    plain.self = vow_then_on(d, p, adopt_top, NULL, &plain, NULL);
    CHECK_EQ_INT(vow_resolver_fulfill(r, one), VOW_OK);
    double start = now_seconds();
    host_drain(loop);
    CHECK_EQ_INT(vow_promise_state(plain.self), VOW_PENDING); /* no cycle seen */
    CHECK(now_seconds() - start < ts_wait_seconds());
    CHECK_EQ_INT(vow_resolver_fulfill(rb, one), VOW_OK);
    CHECK_EQ_INT(vow_resolver_fulfill(ro, one), VOW_OK);
    CHECK_EQ_INT(host_run_until(loop, plain.self, ts_wait_seconds()), VOW_FULFILLED);

    /* A cycle at the bottom: the lattice stands on the adopter itself. */
    vow_resolver *r2 = NULL;
    vow_promise *p2 = vow_promise_pending(&r2);
    lattice cyclic = {NULL, NULL};
    cyclic.self = vow_then_on(d, p2, adopt_top, NULL, &cyclic, NULL);
    vow_resolver *ro2 = NULL;
    vow_promise *other2 = vow_promise_pending(&ro2);
    cyclic.top = build_lattice(cyclic.self, other2, levels);
    CHECK_EQ_INT(vow_resolver_fulfill(r2, one), VOW_OK);
    CHECK_CYCLE(loop, cyclic.self);
    CHECK_EQ_INT(wait_promise(cyclic.top, NULL, NULL), VOW_REJECTED); /* the lattice follows it down */

    vow_promise_release(plain.top);
    vow_promise_release(plain.self);
    vow_promise_release(cyclic.top);
    vow_promise_release(cyclic.self);
    vow_promise_release(base);
    vow_promise_release(other);
    vow_promise_release(other2);
    vow_promise_release(p);
    vow_promise_release(p2);
    vow_resolver_release(r);
    vow_resolver_release(rb);
    vow_resolver_release(r2);
    vow_resolver_release(ro);
    vow_resolver_release(ro2);
    vow_value_release(one);
    vow_dispatcher_release(d);
    host_drain(loop);
    CHECK_EQ_INT(atomic_load(&loop->destroyed), 1);
    host_queue_free(loop);
}

/* ---- two threads closing a cycle at once ---------------------------------------------
   Link a's callback returns b while link b's callback returns a, on two threads, both
   callbacks letting go at the same moment (a barrier). The check before adopting sees no
   cycle on either thread; before the fix both adopted and both stayed pending forever
   (about 1 round in 2,000 here). Both must end rejected with VOW_ERROR_CYCLE, as they do
   when the two adopt one after the other. */

typedef struct crossing {
    vow_promise *a, *b;
    pthread_barrier_t together;
} crossing;

static void
crossing_returns_b(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    crossing *c = ctx;
    pthread_barrier_wait(&c->together);
    vow_result_adopt(out, vow_promise_retain(c->b));
}

static void
crossing_returns_a(void *ctx, const vow_value *value, vow_result *out)
{
    (void)value;
    crossing *c = ctx;
    pthread_barrier_wait(&c->together);
    vow_result_adopt(out, vow_promise_retain(c->a));
}

static void *
crossing_fulfil(void *resolver)
{
    vow_value *nothing = vow_value_null();
    vow_resolver_fulfill(resolver, nothing);
    vow_value_release(nothing);
    return NULL;
}

/* A promise that adopts p (a resolver resolved with p as a value). */
static vow_promise *
adopter_of(vow_promise *p)
{
    vow_resolver *r = NULL;
    vow_promise *follower = vow_promise_pending(&r);
    vow_value *carried = vow_value_promise(p);
    vow_resolver_resolve(r, carried);
    vow_value_release(carried);
    vow_resolver_release(r);
    return follower;
}

/* with_adopters: a and b each have a promise adopting them, so each hands its adopter
   on when it adopts the other (the collapsed chain of loops); both adopters must end
   rejected with the cycle error too. */
static void
two_threads_adopt_each_other(int with_adopters)
{
    int rounds = ts_small() ? 200 : 10000, settled = 0;
    for (int i = 0; i < rounds; i++) {
        crossing c;
        pthread_barrier_init(&c.together, NULL, 2);
        vow_resolver *ra = NULL, *rb = NULL;
        vow_promise *sa = vow_promise_pending(&ra), *sb = vow_promise_pending(&rb);
        /* Inline links: each callback runs on the thread that fulfils its source. */
        c.a = vow_then_on(vow_dispatcher_inline(), sa, crossing_returns_b, NULL, &c, NULL);
        c.b = vow_then_on(vow_dispatcher_inline(), sb, crossing_returns_a, NULL, &c, NULL);
        vow_promise *xa = with_adopters ? adopter_of(c.a) : NULL;
        vow_promise *xb = with_adopters ? adopter_of(c.b) : NULL;
        pthread_t ta, tb;
        REQUIRE(pthread_create(&ta, NULL, crossing_fulfil, ra) == 0);
        REQUIRE(pthread_create(&tb, NULL, crossing_fulfil, rb) == 0);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        vow_error *ea = NULL, *eb = NULL;
        vow_state state_a = vow_wait(c.a, ts_wait_seconds(), NULL, &ea);
        vow_state state_b = vow_wait(c.b, ts_wait_seconds(), NULL, &eb);
        int ok = state_a == VOW_REJECTED && state_b == VOW_REJECTED && is_cycle(ea) && is_cycle(eb);
        for (int k = 0; k < 2 && with_adopters; k++) {
            vow_error *ex = NULL;
            ok = ok && vow_wait(k == 0 ? xa : xb, ts_wait_seconds(), NULL, &ex) == VOW_REJECTED && is_cycle(ex);
            if (ex) vow_error_release(ex);
            vow_promise_release(k == 0 ? xa : xb);
        }
        if (!ok) fprintf(stderr, "    round %d (adopters: %d): states %d and %d\n", i, with_adopters, (int)state_a, (int)state_b);
        if (ea) vow_error_release(ea);
        if (eb) vow_error_release(eb);
        vow_promise_release(c.a);
        vow_promise_release(c.b);
        vow_promise_release(sa);
        vow_promise_release(sb);
        vow_resolver_release(ra);
        vow_resolver_release(rb);
        pthread_barrier_destroy(&c.together);
        if (!ok) break; /* a pair left pending forever: one is enough */
        settled++;
    }
    CHECK_EQ_INT(settled, rounds);
}

static void
test_two_threads_adopt_each_other_at_once(void)
{
    two_threads_adopt_each_other(0);
}

static void
test_two_threads_adopt_each_other_at_once_handing_on_adopters(void)
{
    two_threads_adopt_each_other(1);
}

TEST_MAIN_BEGIN("test_cycles")
    unhandled_counter_install(); /* the cycles nobody handles are reported: not here */
    RUN_TEST(test_adopting_a_combinator_of_itself);
    RUN_TEST(test_resolver_resolve_with_a_combinator_of_itself);
    RUN_TEST(test_make_returns_the_result);
    RUN_TEST(test_callback_adopts_a_bounded_result_that_makes_it);
    RUN_TEST(test_retry_make_returns_the_result);
    RUN_TEST(test_lattice);
    RUN_TEST(test_two_threads_adopt_each_other_at_once);
    RUN_TEST(test_two_threads_adopt_each_other_at_once_handing_on_adopters);
TEST_MAIN_END
