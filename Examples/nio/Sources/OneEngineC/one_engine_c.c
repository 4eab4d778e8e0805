#include "one_engine_c.h"

static void square(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    int64_t n = 0;
    vow_value_get_int(value, &n);
    vow_value *squared = vow_value_int(n * n);
    vow_result_return(out, squared);
    vow_value_release(squared);
}

vow_promise *one_engine_square(vow_promise *p) {
    return vow_then(p, square, NULL, NULL, NULL);
}

vow_promise *one_engine_number(int64_t n) {
    vow_value *v = vow_value_int(n);
    vow_promise *p = vow_promise_fulfilled(v);
    vow_value_release(v);
    return p;
}

vow_promise *one_engine_after(double seconds) {
    return vow_after(seconds);
}

void one_engine_drop_a_rejection(void) {
    vow_error *e = vow_error_new("one-engine", 7, "rejected in C, dropped unhandled");
    vow_promise *p = vow_promise_rejected(e);
    vow_error_release(e);
    vow_promise_release(p);
}

vow_dispatcher *one_engine_default_dispatcher(void) {
    return vow_dispatcher_default();
}
