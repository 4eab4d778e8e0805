/* tally.c: the C library of tally.h. It makes promises with vow.h and chains on promises
   it is given, wherever they were made (here: by a Swift program). */
#include "tally.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t *numbers;
    size_t n;
    vow_resolver *resolver;
} sum_job;

static void *sum_on_thread(void *arg) {
    sum_job *job = arg;
    int64_t sum = 0;
    for (size_t i = 0; i < job->n; i++) sum += job->numbers[i];
    vow_value *value = vow_value_int(sum);
    vow_resolver_fulfill(job->resolver, value);
    vow_value_release(value);
    vow_resolver_release(job->resolver);
    free(job->numbers);
    free(job);
    return NULL;
}

vow_promise *tally_sum_later(const int64_t *numbers, size_t n) {
    sum_job *job = calloc(1, sizeof *job);
    job->numbers = malloc((n > 0 ? n : 1) * sizeof *numbers);
    if (n > 0) memcpy(job->numbers, numbers, n * sizeof *numbers);
    job->n = n;
    vow_promise *sum = vow_promise_pending(&job->resolver);
    pthread_t thread;
    if (pthread_create(&thread, NULL, sum_on_thread, job) == 0) {
        pthread_detach(thread);
    } else {
        sum_on_thread(job);
    }
    return sum;
}

static void describe(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    int64_t n = 0;
    vow_value_get_int(value, &n);
    char text[64];
    snprintf(text, sizeof text, "the tally is %lld", (long long)n);
    vow_value *string = vow_value_string(text);
    vow_result_return(out, string);
    vow_value_release(string);
}

vow_promise *tally_describe(vow_promise *number) {
    return vow_then(number, describe, NULL, NULL, NULL);
}
