/* A C program on a libuv loop built with CMake (target Vow::uv): a libuv timer as a
   promise, whose callback runs inside uv_run; the loop closes cleanly afterwards. */
#include <stdio.h>
#include <vow_uv.h>

static void after_timer(void *ctx, const vow_value *value, vow_result *out) {
    int *ran = ctx;
    *ran = 1;
    printf("uv-app: the timer's promise ran its callback inside uv_run\n");
    (void)value;
    (void)out;
}

int main(void) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    vow_dispatcher *d = vow_uv_dispatcher_new(&loop);
    int ran = 0;
    vow_promise *timer = vow_uv_timer(d, 10);                 /* fulfils after 10 ms */
    vow_promise *step = vow_then_on(d, timer, after_timer, NULL, &ran, NULL);
    vow_uv_hold(d, step);                                      /* uv_run lasts until step settles */
    uv_run(&loop, UV_RUN_DEFAULT);
    int ok = ran && vow_promise_state(step) == VOW_FULFILLED;
    vow_promise_release(timer);
    vow_promise_release(step);
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    uv_run(&loop, UV_RUN_DEFAULT);                             /* the dispatcher's close callback */
    ok = ok && uv_loop_close(&loop) == 0;
    printf("uv-app: %s\n", ok ? "loop closed" : "FAILED");
    return ok ? 0 : 1;
}
