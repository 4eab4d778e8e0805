/*
 * The benchmark workloads written in C against include/vow.h, so the C rows measure
 * what a C program pays: handles, vow_value boxes, C callbacks.
 *
 * A trial is built by cvb_prepare (untimed), measured by cvb_run, checked and freed
 * by cvb_finish (untimed). Workload numbers follow Workload in BenchWorkloads:
 * 0 create-then-resolve, 1 chain-1k, 2 fan-in-10k, 3 deep-chain-1m, 4 cross-thread-hop.
 */
#ifndef CVOWBENCH_H
#define CVOWBENCH_H

#include <stddef.h>

typedef struct cvb_trial cvb_trial;

/** 1 when the linked libvow exports the C interface used here, 0 otherwise. */
int cvb_available(void);

/**
 * Builds a trial of `workload` with `ops` operations; callbacks run on the inline
 * dispatcher when inline_mode is 1, on the default dispatcher otherwise. NULL when the
 * combination does not exist (an inline hop, an inline fan-in) or the C interface is
 * missing.
 */
cvb_trial *cvb_prepare(int workload, int inline_mode, long ops);

/** The measured part. */
void cvb_run(cvb_trial *trial);

/**
 * Frees the trial and returns the value its result was checked against: the last
 * handler's value, the sum of chain ends, the number of fan-in values. -1 if a wait
 * failed.
 */
long cvb_finish(cvb_trial *trial);

/**
 * n pending promises, each with one vow_then attached, for memory measurements: sets
 * *bytes_out to the heap growth and *allocations_out to the allocations counted by
 * count_allocations (may be NULL: -1) while making them, arrays excluded.
 */
void *cvb_pending_batch_new(long n, int inline_mode, long (*count_allocations)(void), size_t *bytes_out,
                            long *allocations_out);

/** Fulfils and releases everything cvb_pending_batch_new made. */
void cvb_pending_batch_free(void *batch);

/**
 * The adoption loop: step(k) is a fulfilled promise of k with a vow_then callback that
 * returns step(k - 1)'s promise through vow_result_return; step 0 is fulfilled with 0, or
 * pending when pending_end is 1: *bytes_out is then set to the heap growth once the loop
 * reached it (what the loop holds), before it is fulfilled. Returns the outermost
 * promise's value (0), or -1.
 */
long cvb_loop(long steps, int pending_end, size_t *bytes_out);

/** Bytes in use in the malloc heap (mallinfo2: small blocks plus mmapped ones). */
size_t cvb_heap_in_use(void);

#endif
