#include <stdio.h>
#include <vow_uv.h>

static void fired(uv_timer_t *timer) {                      /* libuv calls this on the loop */
    vow_value *v = vow_value_string("the timer fired");
    vow_resolver_fulfill(timer->data, v);
    vow_value_release(v);
    uv_close((uv_handle_t *)timer, NULL);
}

static void print_it(void *ctx, const vow_value *value, vow_result *out) {
    printf("%s; this callback runs inside uv_run\n", vow_value_get_string(value));
    (void)ctx; (void)out;
}

int main(void) {
    uv_loop_t *loop = uv_default_loop();
    vow_dispatcher *d = vow_uv_dispatcher_new(loop);        /* jobs run on the loop's thread */
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    uv_timer_t timer;
    uv_timer_init(loop, &timer);
    timer.data = r;
    uv_timer_start(&timer, fired, 10, 0);
    vow_promise *printed = vow_then_on(d, p, print_it, NULL, NULL, NULL);
    uv_run(loop, UV_RUN_DEFAULT);                           /* returns when nothing is left */
    vow_uv_dispatcher_close(d);                             /* later jobs would be dropped */
    vow_dispatcher_release(d);
    uv_run(loop, UV_RUN_DEFAULT);                           /* the dispatcher's close callback */
    int ok = vow_promise_state(printed) == VOW_FULFILLED && uv_loop_close(loop) == 0;
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_promise_release(printed);
    return ok ? 0 : 1;
}
