/*
 * Examples/libuv-files: a libuv program reads a few hundred files and counts their words.
 *
 * Each read is a promise (vow_uv_fs_read_file: open, read, close on libuv's thread pool); a
 * Swift component (filewords.swift) counts the words of each file on Vow's background pool;
 * vow_join_limited_on keeps at most 8 reads going at once and gathers every file's count or
 * error in order; vow_timeout bounds the batch and, when time runs out, cancels the reads
 * still pending (uv_cancel); vow_uv_hold keeps uv_run going until the batch is reported,
 * although the Swift counting runs outside libuv. Every callback runs on the loop thread.
 *
 * Two batches over the same files: the first has time enough (two files fail: one is a
 * directory, libuv says EISDIR, and the error names the call and the path; one is not UTF-8,
 * the Swift component says so); the second
 * has 5 ms, so the time-out cancels it. One promise nobody handles is reported once by the
 * unhandled-error handler. The read pipeline is the part between the two "read pipeline"
 * marks below: Examples/run-examples.sh checks that it stays within 80 lines (every line
 * between the marks, blank lines and comments included).
 */
#define _GNU_SOURCE /* uv.h needs POSIX declarations */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>
#include <vow.h>
#include <vow_uv.h>

#include "filewords.h"

/* ---- the read pipeline ---------------------------------------------------------------- */

typedef struct batch {
    vow_dispatcher *d;   /* the loop's dispatcher: every callback below runs on the loop */
    char **paths;
    size_t n;
    vow_promise **words; /* each started read's word count, kept to count the cancelled ones */
    size_t started, most_in_flight;
    atomic_size_t in_flight; /* reads started and not settled yet */
} batch;

static void /* inline, where a read settles: before the limiter hears of it */
read_settled(void *ctx) { atomic_fetch_sub(&((batch *)ctx)->in_flight, 1); }

/* Input i of the batch (vow_join_limited_on calls it, on the loop, at most 8 pending). */
static vow_promise *
start_read(void *ctx, size_t i)
{
    batch *b = ctx;
    vow_promise *bytes = vow_uv_fs_read_file(b->d, b->paths[i], 1 << 20);
    b->words[i] = file_words(bytes); /* Swift: the word count, or TextError.notUTF8 */
    vow_promise_release(bytes);
    size_t now = atomic_fetch_add(&b->in_flight, 1) + 1;
    if (now > b->most_in_flight) b->most_in_flight = now;
    b->started++;
    vow_observe_on(vow_dispatcher_inline(), b->words[i], read_settled, b, NULL);
    return vow_promise_retain(b->words[i]);
}

/* Every file's count or error, in input order (vow_join_limited never rejects). */
static void
report(void *ctx, const vow_value *results, vow_result *out)
{
    batch *b = ctx;
    int64_t total = 0, words = 0;
    for (size_t i = 0; i < vow_value_count(results); i++) {
        const vow_error *e = vow_value_get_error(vow_value_at(results, i));
        if (e == NULL && vow_value_get_int(vow_value_at(results, i), &words) == VOW_OK) total += words;
        if (e != NULL)
            printf("  %s: %s %lld: %s\n", strrchr(b->paths[i], '/') + 1, vow_error_domain(e),
                   (long long)vow_error_code(e), vow_error_message(e));
    }
    printf("  %zu files, %lld words; at most %zu reads at once\n", b->n, (long long)total, b->most_in_flight);
    (void)out;
}

static void /* the time-out, which cancelled the reads still pending */
batch_failed(void *ctx, const vow_error *e, vow_result *out)
{
    printf("  the batch failed: %s\n", vow_error_message(e));
    (void)ctx, (void)out;
}

/* Starts the batch, at most 8 reads at once, within seconds; the loop runs until it is done. */
static vow_promise *
read_batch(batch *b, double seconds)
{
    b->words = calloc(b->n, sizeof *b->words);
    vow_promise *p = vow_join_limited_on(b->d, b->n, 8, start_read, b, NULL);
    p = vow_consume(p, vow_timeout(p, seconds));
    p = vow_consume(p, vow_then_on(b->d, p, report, batch_failed, b, NULL));
    vow_uv_hold(b->d, p);
    return p;
}

/* After the loop: how many reads started, and how many of them the time-out cancelled. */
static void
count_reads(batch *b)
{
    size_t cancelled = 0;
    for (size_t i = 0; i < b->n; i++) {
        cancelled += vow_promise_is_cancelled(b->words[i]);
        vow_promise_release(b->words[i]);
    }
    printf("  reads started: %zu of %zu, cancelled: %zu\n", b->started, b->n, cancelled);
    free(b->words);
}

/* ---- end of the read pipeline --------------------------------------------------------- */

/* The files: N_NOTES notes of known word counts, a directory, and a file that is not UTF-8. */
enum { N_NOTES = 300 };

static char *
make_file(const char *dir, const char *name, const char *text)
{
    char *path = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    if (text == NULL) {
        mkdir(path, 0700); /* a directory: opens, but cannot be read */
    } else {
        FILE *f = fopen(path, "w");
        fputs(text, f);
        fclose(f);
    }
    return path;
}

static int unhandled_reports;

static void
on_unhandled(void *ctx, const vow_error *e)
{
    unhandled_reports++;
    printf("unhandled error: %s %lld: %s\n", vow_error_domain(e), (long long)vow_error_code(e), vow_error_message(e));
    (void)ctx;
}

int
main(void)
{
    char dir[] = "/tmp/vow-libuv-files-XXXXXX";
    if (mkdtemp(dir) == NULL) return 1;
    char *paths[N_NOTES + 2];
    char name[32], text[256];
    long expected_words = 0;
    for (int i = 0; i < N_NOTES; i++) {
        int words = 3 + i % 7;
        text[0] = '\0';
        for (int w = 0; w < words; w++) strcat(text, w % 2 ? "daffodils' " : "cloud\n");
        expected_words += words;
        snprintf(name, sizeof name, "note-%03d.txt", i);
        paths[i] = make_file(dir, name, text);
    }
    paths[N_NOTES] = make_file(dir, "archive.txt", NULL);
    paths[N_NOTES + 1] = make_file(dir, "latin1.txt", "caf\xe9 au lait\n");
    size_t n = N_NOTES + 2;

    uv_loop_t loop;
    uv_loop_init(&loop);
    vow_dispatcher *d = vow_uv_dispatcher_new(&loop);
    vow_set_unhandled_error_handler(on_unhandled, NULL, NULL);

    printf("batch 1: %zu files, 30 s allowed (the notes hold %ld words)\n", n, expected_words);
    batch one = {.d = d, .paths = paths, .n = n};
    vow_promise *done = read_batch(&one, 30.0);
    vow_promise_release(vow_uv_fs_stat(d, "/nonexistent/settings.toml")); /* nobody handles it */
    uv_run(&loop, UV_RUN_DEFAULT);
    /* The loop's outcome, taken without waiting: vow_wait with 0 seconds (vow.h). */
    vow_state outcome = vow_wait(done, 0, NULL, NULL);
    printf("  uv_run returned with the batch %s\n", outcome == VOW_FULFILLED ? "reported" : "PENDING");
    count_reads(&one);
    vow_promise_release(done);

    printf("batch 2: the same files, 5 ms allowed\n");
    batch two = {.d = d, .paths = paths, .n = n};
    done = read_batch(&two, 0.005);
    uv_run(&loop, UV_RUN_DEFAULT);
    count_reads(&two);
    vow_promise_release(done);

    printf("unhandled errors reported: %d\n", unhandled_reports);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    uv_run(&loop, UV_RUN_DEFAULT);
    printf("uv_loop_close: %s\n", uv_loop_close(&loop) == 0 ? "nothing left open" : "something is still open");
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        remove(paths[i]);
        free(paths[i]);
    }
    rmdir(dir);
    return 0;
}
