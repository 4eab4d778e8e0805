/* callback_lib.c: see callback_lib.h. */
#define _POSIX_C_SOURCE 200809L   /* nanosleep with -std=c11 */
#include "callback_lib.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct job {
    int number;
    cb_done_fn done;
} job;

/* Threads started and not yet joined, so cb_lib_finish can wait for them. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t threads[64];
static int thread_count;

static void *run_job(void *arg) {
    job *j = arg;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (j->number >= 13) {
        j->done(j->number, NULL);
    } else {
        char text[64];
        snprintf(text, sizeof text, "job %d: %d squared is %d", j->number, j->number, j->number * j->number);
        j->done(j->number, text);   /* text lives on this thread's stack: borrowed */
    }
    free(j);
    return NULL;
}

int cb_lib_start(int number, cb_done_fn done) {
    if (number < 0 || done == NULL) return -1;
    job *j = malloc(sizeof *j);
    if (j == NULL) return -1;
    j->number = number;
    j->done = done;
    pthread_mutex_lock(&lock);
    int ok = thread_count < 64 && pthread_create(&threads[thread_count], NULL, run_job, j) == 0;
    if (ok) thread_count++;
    pthread_mutex_unlock(&lock);
    if (!ok) {
        free(j);
        return -1;
    }
    return 0;
}

void cb_lib_finish(void) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < thread_count; i++) pthread_join(threads[i], NULL);
    thread_count = 0;
    pthread_mutex_unlock(&lock);
}
