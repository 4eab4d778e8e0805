/*
 * ffi_link_cost.c: what a vow_then_call link costs next to a plain vow_then link.
 *
 * Both links do the same work: read an INT, add one, fulfil the next promise with the
 * new INT. The vow_then link does it in a C callback (vow_value_get_int, vow_value_int,
 * vow_result_return); the vow_then_call link spreads the value into int64_t fn(int64_t,
 * void *) through libffi. N links are registered on one fulfilled promise, on the default
 * (serial) dispatcher and on the inline dispatcher, and the time until the last one has
 * run is divided by N. Prints ns/link (best of three rounds); checks every link's result.
 * Run against a release build for meaningful figures; VOW_TEST_SCALE=small (valgrind)
 * shrinks N.
 */
#include "test_support.h"

static void
plus_one_callback(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    int64_t n = 0;
    vow_value_get_int(value, &n);
    vow_value *next = vow_value_int(n + 1);
    vow_result_return(out, next);
    vow_value_release(next);
}

static int64_t
plus_one_function(int64_t n, void *ctx)
{
    (void)ctx;
    return n + 1;
}

/* Registers n links of one kind on p, waits for all, checks them; returns ns per link. */
static double
measure(vow_promise *p, vow_dispatcher *d, int use_ffi, int n)
{
    vow_promise **links = malloc((size_t)n * sizeof *links);
    if (links == NULL) abort();
    double start = now_seconds();
    for (int i = 0; i < n; i++) {
        links[i] = use_ffi ? vow_then_call_on(d, p, "q(q)", (vow_fnptr)plus_one_function, NULL, NULL)
                           : vow_then_on(d, p, plus_one_callback, NULL, NULL, NULL);
    }
    /* Serial and inline dispatchers run the links in order: the last one is the last to run. */
    vow_wait(links[n - 1], ts_wait_seconds(), NULL, NULL);
    double elapsed = now_seconds() - start;
    int good = 0;
    for (int i = 0; i < n; i++) {
        vow_value *v = NULL;
        int64_t value = 0;
        if (vow_wait(links[i], ts_wait_seconds(), &v, NULL) == VOW_FULFILLED && vow_value_get_int(v, &value) == VOW_OK &&
            value == 42)
            good++;
        vow_value_release(v);
        vow_promise_release(links[i]);
    }
    CHECK_EQ_INT(good, n);
    free(links);
    return elapsed * 1e9 / n;
}

static void
test_link_cost(void)
{
    int n = ts_small() ? 2000 : 100000;
    vow_value *start = vow_value_int(41);
    vow_promise *p = vow_promise_fulfilled(start);
    vow_value_release(start);
    struct {
        const char *name;
        vow_dispatcher *d;
    } dispatchers[] = {{"default", vow_dispatcher_default()}, {"inline", vow_dispatcher_inline()}};
    for (int k = 0; k < 2; k++) {
        double best_then = 1e18, best_call = 1e18;
        for (int round = 0; round < 3; round++) {
            double then_ns = measure(p, dispatchers[k].d, 0, n);
            double call_ns = measure(p, dispatchers[k].d, 1, n);
            if (then_ns < best_then) best_then = then_ns;
            if (call_ns < best_call) best_call = call_ns;
        }
        printf("  %s dispatcher, %d links: vow_then %.0f ns/link, vow_then_call %.0f ns/link (x%.2f)\n",
               dispatchers[k].name, n, best_then, best_call, best_call / best_then);
    }
    vow_promise_release(p);
}

TEST_MAIN_BEGIN("ffi_link_cost")
    RUN_TEST(test_link_cost);
TEST_MAIN_END
