/* actor_uv.c: a Swift actor on the libuv bridge (issue 27). The actor's executor is the
 * vow_uv_dispatcher_new dispatcher's (VowExecutor): called from Swift's pool, each of its
 * methods runs inside uv_run, on this thread, and checks that it does; a promise callback
 * on the same dispatcher reads the actor's state with assumeIsolated. After the dispatcher
 * is closed, a call still completes (its job is dropped, and runs off the loop).
 * Built with its Swift component (actor_uv.swift) by actor_uv.sh. */
#define _GNU_SOURCE
#include "uv_support.h"

#define CALLS 200

/* The Swift component's exports (actor_uv.swift). */
extern vow_promise *actor_uv_start(vow_dispatcher *d, long n);
extern long actor_uv_call_after_close(void);
extern void actor_uv_finish(void);

static pthread_t loop_thread;

/* Called by the Swift actor: true on the thread that runs uv_run. */
bool actor_uv_on_loop_thread(void);
bool
actor_uv_on_loop_thread(void)
{
    return pthread_equal(pthread_self(), loop_thread) != 0;
}

/* Keeps uv_run going while the Swift task works on other threads (libuv lets no other
 * thread reference a handle: the program keeps its loop alive, as vow_uv.h says). */
typedef struct keeper {
    uv_async_t async;
    vow_promise *counted;
    int64_t value;
    int settled;
} keeper;

static void
on_counted(void *ctx, const vow_value *value, vow_result *out)
{
    (void)out;
    keeper *k = ctx;
    vow_value_get_int(value, &k->value);
    k->settled = 1;
    CHECK(actor_uv_on_loop_thread());
    uv_close((uv_handle_t *)&k->async, NULL); /* the loop may end now */
}

static void
on_failed(void *ctx, const vow_error *error, vow_result *out)
{
    (void)out;
    keeper *k = ctx;
    fprintf(stderr, "the actor's calls failed: %s\n", vow_error_message(error));
    k->settled = -1;
    uv_close((uv_handle_t *)&k->async, NULL);
}

static void
test_actor_on_the_uv_loop(void)
{
    test_loop tl;
    REQUIRE(test_loop_init(&tl));
    loop_thread = pthread_self();
    vow_dispatcher *d = vow_uv_dispatcher_new(&tl.loop);
    REQUIRE(d != NULL);
    keeper k = {0};
    REQUIRE(uv_async_init(&tl.loop, &k.async, NULL) == 0);
    vow_promise *counted = actor_uv_start(d, CALLS);
    REQUIRE(counted != NULL);
    vow_promise *seen = vow_then_on(d, counted, on_counted, on_failed, &k, NULL);
    CHECK(run_bounded(&tl));
    CHECK_EQ_INT(k.settled, 1);
    CHECK_EQ_INT(k.value, CALLS); /* every call ran on this thread (else: -calls off it) */
    vow_promise_release(seen);
    vow_promise_release(counted);

    /* Closed: the next call's job is dropped (inside submit) and still runs, off the loop. */
    CHECK_EQ_INT(vow_uv_dispatcher_close(d), VOW_OK);
    CHECK_EQ_INT(actor_uv_call_after_close(), 1);
    actor_uv_finish();
    vow_dispatcher_release(d);
    CHECK(run_bounded(&tl));
    close_loop(&tl);
}

TEST_MAIN_BEGIN("actor_uv")
    RUN_TEST(test_actor_on_the_uv_loop);
TEST_MAIN_END
