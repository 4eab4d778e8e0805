/*
 * The C workloads (see include/cvowbench.h). Plain C99 + pthreads against vow.h.
 *
 * The vow_* functions are referenced weakly, so this package still links against a
 * checkout of the library whose C interface is unfinished: cvb_available() then says 0
 * and the C rows print "no C API" instead of the build failing.
 */
#include "cvowbench.h"
/* The C face by the library's own names (vowface_X), called directly: this program links
   the engine statically (VowSwiftOnly), as every measured copy of Vow did, so the C rows
   measure the C face as before the entry points existed (ARCHITECTURE.md, "One engine
   whatever the products"; a C program through libvow.so reaches the same functions through
   its PLT, the entry points being indirect functions). Older copies have no such names. */
#if __has_include("vow_face_names.h")
#  include "vow_face_names.h"
#endif
#include "vow.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#pragma weak vow_promise_pending
#pragma weak vow_promise_fulfilled
#pragma weak vow_promise_release
#pragma weak vow_promise_retain
#pragma weak vow_resolver_fulfill
#pragma weak vow_resolver_release
#pragma weak vow_value_int
#pragma weak vow_value_release
#pragma weak vow_value_get_int
#pragma weak vow_value_count
#pragma weak vow_error_release
#pragma weak vow_result_return
#pragma weak vow_then
#pragma weak vow_then_on
#pragma weak vow_dispatcher_inline
#pragma weak vow_wait
#pragma weak vow_when
#pragma weak vow_value_promise

enum { W_CREATE = 0, W_CHAIN = 1, W_FANIN = 2, W_DEEP = 3, W_HOP = 4, W_FANIN_PENDING = 5 };

struct cvb_trial {
    int workload;
    int inline_mode;
    long ops;
    long result;
    vow_value *zero;
    vow_value *one;
    /* hop */
    vow_resolver **resolvers;
    vow_promise **ends;
};

int cvb_available(void) {
    return vow_promise_pending && vow_promise_fulfilled && vow_promise_release && vow_promise_retain && vow_resolver_fulfill
        && vow_resolver_release && vow_value_int && vow_value_release && vow_value_get_int && vow_value_count
        && vow_error_release && vow_result_return && vow_then && vow_then_on && vow_dispatcher_inline
        && vow_wait && vow_when;
}

/* The trivial link: passes the value on (the C spelling of `{ $0 }`). */
static void pass_through(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    vow_result_return(out, value);
}

static vow_promise *link_to(const cvb_trial *t, vow_promise *p) {
    if (t->inline_mode) return vow_then_on(vow_dispatcher_inline(), p, pass_through, NULL, NULL, NULL);
    return vow_then(p, pass_through, NULL, NULL, NULL);
}

/* Waits for p and returns its int value, or its LIST's count when as_count; -1 on failure. */
static long wait_int(vow_promise *p, int as_count) {
    vow_value *value = NULL;
    vow_error *error = NULL;
    long result = -1;
    if (vow_wait(p, -1, &value, &error) == VOW_FULFILLED) {
        if (as_count) {
            result = (long)vow_value_count(value);
        } else {
            int64_t i = 0;
            if (vow_value_get_int(value, &i) == VOW_OK) result = (long)i;
        }
    }
    vow_value_release(value);
    vow_error_release(error);
    return result;
}

cvb_trial *cvb_prepare(int workload, int inline_mode, long ops) {
    if (!cvb_available()) return NULL;
    if (inline_mode && (workload == W_FANIN || workload == W_HOP || workload == W_FANIN_PENDING)) return NULL;
    cvb_trial *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->workload = workload;
    t->inline_mode = inline_mode;
    t->ops = ops;
    t->zero = vow_value_int(0);
    t->one = vow_value_int(1);
    if (workload == W_HOP) {
        t->resolvers = calloc((size_t)ops, sizeof *t->resolvers);
        t->ends = calloc((size_t)ops, sizeof *t->ends);
        for (long i = 0; i < ops; i++) {
            vow_promise *p = vow_promise_pending(&t->resolvers[i]);
            t->ends[i] = link_to(t, p);
            vow_promise_release(p);
        }
    }
    return t;
}

static void *resolve_all(void *arg) {
    cvb_trial *t = arg;
    for (long i = 0; i < t->ops; i++) vow_resolver_fulfill(t->resolvers[i], t->one);
    return NULL;
}

void cvb_run(cvb_trial *t) {
    switch (t->workload) {
    case W_CREATE: {
        vow_promise *last = NULL;
        for (long i = 0; i < t->ops; i++) {
            vow_resolver *r = NULL;
            vow_promise *p = vow_promise_pending(&r);
            vow_promise *q = link_to(t, p);
            vow_resolver_fulfill(r, t->one);
            vow_resolver_release(r);
            vow_promise_release(p);
            vow_promise_release(last);
            last = q;
        }
        t->result = wait_int(last, 0);
        vow_promise_release(last);
        break;
    }
    case W_CHAIN: {
        long chains = t->ops / 1000 > 0 ? t->ops / 1000 : 1;
        long total = 0;
        for (long c = 0; c < chains; c++) {
            vow_promise *p = vow_promise_fulfilled(t->one);
            for (int i = 0; i < 1000; i++) {
                vow_promise *q = link_to(t, p);
                vow_promise_release(p);
                p = q;
            }
            total += wait_int(p, 0);
            vow_promise_release(p);
        }
        t->result = total;
        break;
    }
    case W_FANIN: {
        vow_promise **ps = malloc((size_t)t->ops * sizeof *ps);
        for (long i = 0; i < t->ops; i++) ps[i] = vow_promise_fulfilled(t->one);
        vow_promise *all = vow_when(ps, (size_t)t->ops);
        t->result = wait_int(all, 1);
        vow_promise_release(all);
        for (long i = 0; i < t->ops; i++) vow_promise_release(ps[i]);
        free(ps);
        break;
    }
    case W_FANIN_PENDING: {
        vow_promise **ps = malloc((size_t)t->ops * sizeof *ps);
        vow_resolver **rs = malloc((size_t)t->ops * sizeof *rs);
        for (long i = 0; i < t->ops; i++) ps[i] = vow_promise_pending(&rs[i]);
        vow_promise *all = vow_when(ps, (size_t)t->ops);
        for (long i = 0; i < t->ops; i++) {
            vow_resolver_fulfill(rs[i], t->one);
            vow_resolver_release(rs[i]);
        }
        t->result = wait_int(all, 1);
        vow_promise_release(all);
        for (long i = 0; i < t->ops; i++) vow_promise_release(ps[i]);
        free(ps);
        free(rs);
        break;
    }
    case W_DEEP: {
        vow_resolver *r = NULL;
        vow_promise *head = vow_promise_pending(&r);
        vow_promise *p = vow_promise_retain(head);
        for (long i = 0; i < t->ops; i++) {
            vow_promise *q = link_to(t, p);
            vow_promise_release(p);
            p = q;
        }
        vow_resolver_fulfill(r, t->one);
        t->result = wait_int(p, 0);
        vow_promise_release(p);
        vow_promise_release(head);
        vow_resolver_release(r);
        break;
    }
    case W_HOP: {
        pthread_t thread;
        if (pthread_create(&thread, NULL, resolve_all, t) != 0) {
            t->result = -1;
            break;
        }
        t->result = wait_int(t->ends[t->ops - 1], 0);
        pthread_join(thread, NULL);
        break;
    }
    }
}

long cvb_finish(cvb_trial *t) {
    long result = t->result;
    if (t->resolvers) {
        for (long i = 0; i < t->ops; i++) {
            vow_resolver_release(t->resolvers[i]);
            vow_promise_release(t->ends[i]);
        }
        free(t->resolvers);
        free(t->ends);
    }
    vow_value_release(t->zero);
    vow_value_release(t->one);
    free(t);
    return result;
}

struct batch {
    long n;
    vow_value *one;
    vow_resolver **resolvers;
    vow_promise **promises;
    vow_promise **derived;
};

void *cvb_pending_batch_new(long n, int inline_mode, long (*count_allocations)(void), size_t *bytes_out,
                            long *allocations_out) {
    if (!cvb_available()) return NULL;
    struct batch *b = calloc(1, sizeof *b);
    cvb_trial mode = {.inline_mode = inline_mode};
    b->n = n;
    b->one = vow_value_int(1);
    b->resolvers = calloc((size_t)n, sizeof *b->resolvers);
    b->promises = calloc((size_t)n, sizeof *b->promises);
    b->derived = calloc((size_t)n, sizeof *b->derived);
    /* Measured from here: only what the promises themselves take. */
    size_t heap_before = cvb_heap_in_use();
    long allocations_before = count_allocations ? count_allocations() : 0;
    for (long i = 0; i < n; i++) {
        b->promises[i] = vow_promise_pending(&b->resolvers[i]);
        b->derived[i] = link_to(&mode, b->promises[i]);
    }
    if (allocations_out) *allocations_out = count_allocations ? count_allocations() - allocations_before : -1;
    if (bytes_out) *bytes_out = cvb_heap_in_use() - heap_before;
    return b;
}

void cvb_pending_batch_free(void *batch) {
    struct batch *b = batch;
    if (!b) return;
    for (long i = 0; i < b->n; i++) {
        vow_resolver_fulfill(b->resolvers[i], b->one);
        vow_resolver_release(b->resolvers[i]);
        vow_promise_release(b->promises[i]);
    }
    if (b->n > 0) {
        /* Callbacks on the serial default queue run in order: the last one done means all. */
        vow_value *v = NULL;
        vow_error *e = NULL;
        vow_wait(b->derived[b->n - 1], -1, &v, &e);
        vow_value_release(v);
        vow_error_release(e);
    }
    for (long i = 0; i < b->n; i++) vow_promise_release(b->derived[i]);
    vow_value_release(b->one);
    free(b->resolvers);
    free(b->promises);
    free(b->derived);
    free(b);
}

size_t cvb_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

/* ---- the adoption loop (issue 15) ------------------------------------------------ */

/* Step 0 of the running loop: a pending promise (its resolver kept here) when the loop
   measures memory, else a fulfilled one. One loop at a time. */
static int loop_pending_end;
static atomic_int loop_end_reached;
static vow_resolver *loop_end_resolver;

static vow_promise *loop_step(int64_t k);

/* The step's callback: returns the next step's promise, which the link adopts. */
static void loop_on_step(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    int64_t k = 0;
    vow_value_get_int(value, &k);
    vow_promise *next = loop_step(k - 1);
    vow_value *carried = vow_value_promise(next);
    vow_result_return(out, carried);
    vow_value_release(carried);
    vow_promise_release(next);
}

static vow_promise *loop_step(int64_t k) {
    if (k == 0 && loop_pending_end) {
        vow_promise *p = vow_promise_pending(&loop_end_resolver);
        atomic_store(&loop_end_reached, 1);
        return p;
    }
    vow_value *v = vow_value_int(k);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    if (k == 0) return p;
    vow_promise *q = vow_then(p, loop_on_step, NULL, NULL, NULL);
    vow_promise_release(p);
    return q;
}

long cvb_loop(long steps, int pending_end, size_t *bytes_out) {
    if (!cvb_available() || !vow_value_promise) return -1;
    loop_pending_end = pending_end;
    atomic_store(&loop_end_reached, 0);
    size_t heap_before = cvb_heap_in_use();
    vow_promise *outer = loop_step(steps);
    if (pending_end) {
        struct timespec pause = {0, 100000};
        while (!atomic_load(&loop_end_reached)) nanosleep(&pause, NULL);
        if (bytes_out) *bytes_out = cvb_heap_in_use() - heap_before;
        vow_value *zero = vow_value_int(0);
        vow_resolver_fulfill(loop_end_resolver, zero);
        vow_value_release(zero);
        vow_resolver_release(loop_end_resolver);
        loop_end_resolver = NULL;
    }
    vow_value *got = NULL;
    long result = -1;
    if (vow_wait(outer, 600, &got, NULL) == VOW_FULFILLED) {
        int64_t i = -1;
        if (vow_value_get_int(got, &i) == VOW_OK) result = (long)i;
    }
    vow_value_release(got);
    vow_promise_release(outer);
    return result;
}
