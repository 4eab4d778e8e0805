/*
 * main.c: a C program that calls a Swift component through vow.h.
 *
 * The component (wordcount.swift, declared in wordcount.h) counts the words in the files
 * of a directory, one job per file on Vow's background pool, with a time limit. This
 * program makes five requests, chains then / catch / finally on each in C, cancels one,
 * shows a progress count while it waits, and reports what happened to each:
 *
 *   [A] Sources/     input known at once; the result LIST is spread into a C function
 *   [B] Examples/    input produced later by a C thread
 *   [C] (pending)    input never arrives; the program cancels the request
 *   [D] Sources/     input arrives after 2 s, but the request allows 0.2 s: timeout
 *   [E] (missing)    a directory that does not exist: the Swift error arrives in C
 *
 * Run from the repository's root (run-examples.sh does): the directories are relative.
 * Exits 0 when every request ended as described above.
 */
#define _POSIX_C_SOURCE 200809L   /* nanosleep, clock_gettime with -std=c11 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <vow.h>
#include "wordcount.h"

/* What the callbacks found out about one request. Callbacks run on Vow's default
   dispatcher (a serial queue owned by the library), the main thread reads after
   vow_wait has seen every request finish. */
typedef struct request {
    const char *name;          /* "[A]" ... */
    const char *label;         /* what it counts */
    atomic_int  outcome;       /* 0 pending, 1 counted, 2 error, 3 cancelled */
    atomic_int  finally_ran;
    int64_t     files;
} request;

enum { PENDING, COUNTED, FAILED, CANCELLED };

static atomic_int finally_count;
static atomic_int producer_heard_cancel;

/* ---- callbacks ------------------------------------------------------------------ */

/* [A]: vow_then_call spreads the LIST [files, lines, words, bytes] into these
   parameters; the last one is the ctx given to vow_then_call. */
static void print_counts(int64_t files, int64_t lines, int64_t words, int64_t bytes, void *ctx) {
    request *r = ctx;
    r->files = files;
    atomic_store(&r->outcome, COUNTED);
    printf("%s %s: %lld files, %lld lines, %lld words, %lld bytes\n", r->name, r->label,
           (long long)files, (long long)lines, (long long)words, (long long)bytes);
}

/* [B] and the others: a plain value callback reads the LIST item by item. */
static void show_counts(void *ctx, const vow_value *value, vow_result *out) {
    request *r = ctx;
    int64_t n[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < 4; i++)
        vow_value_get_int(vow_value_at(value, i), &n[i]);   /* borrowed items */
    r->files = n[0];
    atomic_store(&r->outcome, COUNTED);
    printf("%s %s: %lld files, %lld lines, %lld words, %lld bytes\n", r->name, r->label,
           (long long)n[0], (long long)n[1], (long long)n[2], (long long)n[3]);
    (void)out;   /* nothing returned: the next promise fulfils with the NULL value */
}

/* vow_catch: runs for every error except cancellation. */
static void show_error(void *ctx, const vow_error *error, vow_result *out) {
    request *r = ctx;
    atomic_store(&r->outcome, FAILED);
    if (strcmp(vow_error_domain(error), "vow") == 0 && vow_error_code(error) == VOW_ERROR_TIMEOUT)
        printf("%s %s: timed out, VOW_ERROR_TIMEOUT (\"%s\")\n", r->name, r->label, vow_error_message(error));
    else
        printf("%s %s: failed: %s %lld: %s\n", r->name, r->label, vow_error_domain(error),
               (long long)vow_error_code(error), vow_error_message(error));
    (void)out;   /* handled: the catch's promise fulfils */
}

/* vow_finally: runs whatever happened, cancellation included. */
static void note_end(void *ctx) {
    request *r = ctx;
    atomic_store(&r->finally_ran, 1);
    atomic_fetch_add(&finally_count, 1);
}

/* [C]'s producer: told when the cancellation travelled all the way up to it. */
static void producer_cancelled(void *ctx) {
    request *r = ctx;
    atomic_store(&producer_heard_cancel, 1);
    printf("%s the producer of the directory name heard the cancellation and stopped\n", r->name);
}

/* [D]'s input: turns the end of a 2 s timer into a directory name. */
static void directory_after_timer(void *ctx, const vow_value *ignored, vow_result *out) {
    vow_value *name = vow_value_string(ctx);
    vow_result_return(out, name);
    vow_value_release(name);
    (void)ignored;
}

/* [B]'s input: a C thread that settles the promise from outside Vow, a little later. */
static void *produce_later(void *arg) {
    vow_resolver *resolver = arg;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    vow_value *name = vow_value_string("Examples");
    vow_resolver_fulfill(resolver, name);   /* any thread may settle */
    vow_value_release(name);
    vow_resolver_release(resolver);         /* the thread's reference */
    return NULL;
}

/* ---- the chain on each request: value callback, catch, finally ----------------- */

static vow_promise *follow_request(request *r, vow_promise *counted) {
    vow_promise *shown = vow_then(counted, show_counts, NULL, r, NULL);
    vow_promise *handled = vow_catch(shown, show_error, r, NULL);
    vow_promise *ended = vow_finally(handled, note_end, r, NULL);
    vow_promise_release(shown);     /* the callbacks stay registered: releasing a */
    vow_promise_release(handled);   /* derived promise does not unregister them   */
    return ended;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);   /* whole lines, also when piped */
    printf("libvow %s: a C program asks a Swift component to count words\n", vow_version());

    request a = {.name = "[A]", .label = "Sources"};
    request b = {.name = "[B]", .label = "Examples"};
    request c = {.name = "[C]", .label = "(waiting for a name)"};
    request d = {.name = "[D]", .label = "Sources, 0.2 s allowed"};
    request e = {.name = "[E]", .label = "no-such-directory"};
    request *all[5] = {&a, &b, &c, &d, &e};
    vow_promise *ended[5];

    /* [A] The input is known: a fulfilled promise. The result is spread into
       print_counts's parameters by vow_then_call ("v(qqqq)": four int64_t, void). */
    vow_value *sources = vow_value_string("Sources");
    vow_promise *input_a = vow_promise_fulfilled(sources);
    vow_promise *counted_a = wc_count(input_a, 10.0);
    vow_promise *printed_a = vow_then_call(counted_a, "v(qqqq)", (vow_fnptr)print_counts, &a, NULL);
    vow_promise *handled_a = vow_catch(printed_a, show_error, &a, NULL);
    ended[0] = vow_finally(handled_a, note_end, &a, NULL);
    vow_promise_release(printed_a);
    vow_promise_release(handled_a);

    /* [B] The input comes from a C thread, later. */
    vow_resolver *producer_b;
    vow_promise *input_b = vow_promise_pending(&producer_b);
    pthread_t thread;
    pthread_create(&thread, NULL, produce_later, vow_resolver_retain(producer_b));
    vow_promise *counted_b = wc_count(input_b, 10.0);
    ended[1] = follow_request(&b, counted_b);

    /* [C] The input never arrives. Its producer registers a cancel handler, and the
       program cancels the request: the cancellation travels up through the Swift
       chain to the C promise it waits on. */
    vow_resolver *producer_c;
    vow_promise *input_c = vow_promise_pending(&producer_c);
    vow_resolver_on_cancel(producer_c, producer_cancelled, &c, NULL);
    vow_promise *counted_c = wc_count(input_c, 10.0);
    ended[2] = follow_request(&c, counted_c);

    /* [D] The input arrives after 2 s, the request allows 0.2 s. */
    vow_promise *timer = vow_after(2.0);
    vow_promise *input_d = vow_then(timer, directory_after_timer, NULL, "Sources", NULL);
    vow_promise *counted_d = wc_count(input_d, 0.2);
    ended[3] = follow_request(&d, counted_d);

    /* [E] The Swift component cannot open the directory. */
    vow_value *missing = vow_value_string("no-such-directory");
    vow_promise *input_e = vow_promise_fulfilled(missing);
    vow_promise *counted_e = wc_count(input_e, 10.0);
    ended[4] = follow_request(&e, counted_e);

    /* Cancel [C]. Its promise is rejected with the cancellation error at once; its
       vow_catch is skipped (a cancellation is not an error to report), its vow_finally
       runs, and the request reaches producer_c's cancel handler. */
    vow_cancel(counted_c);
    atomic_store(&c.outcome, vow_promise_state(counted_c) == VOW_REJECTED ? CANCELLED : PENDING);
    printf("[C] cancelled by the program\n");

    /* Wait for all five, showing the progress count meanwhile. vow_join never rejects. */
    vow_promise *everything = vow_join(ended, 5);
    int64_t shown = -1;
    double deadline = now() + 10.0;
    while (vow_wait(everything, 0.01, NULL, NULL) == VOW_PENDING && now() < deadline) {
        int64_t counted = wc_files_counted();
        if (counted != shown) printf("progress: %lld files counted\n", (long long)counted);
        shown = counted;
    }
    printf("progress: %lld files counted in all\n", (long long)wc_files_counted());

    /* The cancel handler was queued when the cancellation reached the producer, before
       [C]'s finally; give the dispatcher a bounded moment in any case. */
    struct timespec millisecond = {0, 1000 * 1000};
    for (int i = 0; i < 500 && !atomic_load(&producer_heard_cancel); i++) nanosleep(&millisecond, NULL);

    /* Report. */
    int ok = vow_promise_state(everything) == VOW_FULFILLED;
    ok &= atomic_load(&a.outcome) == COUNTED && a.files > 0;
    ok &= atomic_load(&b.outcome) == COUNTED && b.files > 0;
    ok &= atomic_load(&c.outcome) == CANCELLED && atomic_load(&producer_heard_cancel);
    ok &= atomic_load(&d.outcome) == FAILED;
    ok &= atomic_load(&e.outcome) == FAILED;
    printf("finally ran for %d of 5 requests\n", atomic_load(&finally_count));
    for (int i = 0; i < 5; i++) {
        static const char *words[] = {"still pending", "counted", "failed", "cancelled"};
        printf("  %s %-24s %s\n", all[i]->name, all[i]->label, words[atomic_load(&all[i]->outcome)]);
        ok &= atomic_load(&all[i]->finally_ran);
    }

    /* Release what this program still holds. */
    pthread_join(thread, NULL);
    vow_value_release(sources);
    vow_value_release(missing);
    vow_promise *promises[] = {input_a, counted_a, input_b, counted_b, input_c, counted_c,
                               timer, input_d, counted_d, input_e, counted_e, everything};
    for (size_t i = 0; i < sizeof promises / sizeof promises[0]; i++) vow_promise_release(promises[i]);
    for (int i = 0; i < 5; i++) vow_promise_release(ended[i]);
    vow_resolver_release(producer_b);
    vow_resolver_release(producer_c);

    printf(ok ? "demo: ok\n" : "demo: FAILED\n");
    return ok ? 0 : 1;
}
