/*
 * host_loop.h: a C program's own event loop, for the Swift tests of executors
 * (Tests/VowTestingTests): one pthread that runs the jobs a vow_dispatcher_new
 * dispatcher submits, in order, one at a time. Not installed; test-only.
 */
#ifndef HOST_LOOP_H
#define HOST_LOOP_H

#include <stdbool.h>
#include <stddef.h>

#include "vow.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct host_loop host_loop;

/* Starts the loop's thread. Never NULL (aborts when out of memory). */
host_loop *host_loop_start(void);

/* The loop's dispatcher (borrowed: valid until host_loop_stop). */
vow_dispatcher *host_loop_dispatcher(host_loop *l);

/* True on the loop's thread. */
bool host_loop_on_thread(const host_loop *l);

/* Jobs run so far, and jobs dropped (handed back with vow_job_drop). */
size_t host_loop_jobs_run(host_loop *l);
size_t host_loop_jobs_dropped(host_loop *l);

/* Closes the loop, from any thread: the jobs still queued are dropped, on the
   loop's thread, after the job running now (if any); jobs submitted later are
   dropped at once, inside submit, on the submitting thread. Waits until the
   queued jobs were dropped. */
void host_loop_close(host_loop *l);

/* Closes the loop if needed, stops its thread, releases the dispatcher and
   frees the loop (once the dispatcher's destroy ran). */
void host_loop_stop(host_loop *l);

#ifdef __cplusplus
}
#endif

#endif
