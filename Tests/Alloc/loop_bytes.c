/*
 * Loop memory check (run by scripts/check-allocations.sh, which states the budgets).
 *
 * A loop whose every step returns the next step's promise, in Swift (swift_loop.swift:
 * `step(k)` is `value(k).then { step(k - 1) }`) and in C (a vow_then callback that
 * returns the next step's promise through vow_result_return). Linked with alloc_bytes.c,
 * which interposes malloc for the whole process and keeps the bytes in use and their
 * peak: after a warm-up loop, the peak is restarted, the loop runs and is waited for, and
 * the peak's growth over the bytes in use before is the loop's memory.
 *
 * Usage: loop_bytes SWIFT_STEPS SWIFT_BUDGET_BYTES C_STEPS C_BUDGET_BYTES_PER_STEP
 * Exit status 0 when both figures are within budget and both loops give the right
 * result, 1 otherwise.
 */
#include "vow.h"
#include "alloc_bytes.h"

#include <stdio.h>
#include <stdlib.h>

/* From swift_loop.swift. */
extern long vow_alloc_swift_loop(long n);

static vow_promise *c_step(int64_t k);

static void on_step(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    int64_t k = 0;
    vow_value_get_int(value, &k);
    vow_promise *next = c_step(k - 1);
    vow_value *carried = vow_value_promise(next);
    vow_result_return(out, carried);
    vow_value_release(carried);
    vow_promise_release(next);
}

/* c_step(k): k == 0 ? fulfilled(0) : fulfilled(k) then on_step. Returns +1. */
static vow_promise *c_step(int64_t k) {
    vow_value *v = vow_value_int(k);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    if (k == 0) return p;
    vow_promise *q = vow_then(p, on_step, NULL, NULL, NULL);
    vow_promise_release(p);
    return q;
}

static long c_loop(long n) {
    vow_promise *outer = c_step(n);
    vow_value *got = NULL;
    long result = -1;
    if (vow_wait(outer, 120, &got, NULL) == VOW_FULFILLED) {
        int64_t i = -1;
        if (vow_value_get_int(got, &i) == VOW_OK) result = (long)i;
    }
    vow_value_release(got);
    vow_promise_release(outer);
    return result;
}

static long swift_loop(long n) { return vow_alloc_swift_loop(n); }

static int failures;

/* Runs loop(n) after a warm-up, and returns the peak growth in bytes. */
static long measure(const char *what, long (*loop)(long), long n, double budget_per_step, double budget_total) {
    (void)loop(n / 10);
    long before = alloc_bytes_live();
    alloc_bytes_reset_peak();
    long result = loop(n);
    long grown = alloc_bytes_peak() - before;
    double per_step = (double)grown / (double)n;
    int within = budget_total > 0 ? grown <= budget_total : per_step <= budget_per_step;
    char budget[64];
    if (budget_total > 0) snprintf(budget, sizeof budget, "%.0f bytes", budget_total);
    else snprintf(budget, sizeof budget, "%g bytes/step", budget_per_step);
    printf("%-46s %8ld steps: peak +%9ld bytes, %7.2f bytes/step (budget %s) %s\n", what, n, grown, per_step,
           budget, result != 0 ? "WRONG RESULT" : within ? "ok" : "OVER BUDGET");
    if (result != 0 || !within) failures++;
    return grown;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s SWIFT_STEPS SWIFT_BUDGET_BYTES C_STEPS C_BUDGET_BYTES_PER_STEP\n", argv[0]);
        return 2;
    }
    long swift_steps = atol(argv[1]);
    double swift_budget = atof(argv[2]);
    long c_steps = atol(argv[3]);
    double c_budget = atof(argv[4]);
    measure("Swift loop, value(k).then { step(k - 1) }", swift_loop, swift_steps, 0, swift_budget);
    measure("C loop, vow_then + vow_result_return(promise)", c_loop, c_steps, c_budget, 0);
    printf("loop memory: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
