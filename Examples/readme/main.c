#include <stdio.h>
#include <vow.h>

vow_promise *square_later(vow_promise *number);   /* the Swift function */

static void print_it(void *ctx, const vow_value *value, vow_result *out) {
    int64_t n = 0;
    vow_value_get_int(value, &n);
    printf("%s %lld\n", (const char *)ctx, (long long)n);
    (void)out;
}

int main(void) {
    vow_resolver *r;
    vow_promise *number = vow_promise_pending(&r);                        /* C starts the chain, */
    vow_promise *squared = square_later(number);                          /* Swift continues it, */
    vow_promise *printed = vow_then(squared, print_it, NULL, "7 squared is", NULL); /* C ends it. */
    vow_value *seven = vow_value_int(7);
    vow_resolver_fulfill(r, seven);
    vow_state state = vow_wait(printed, 5.0, NULL, NULL);                 /* "7 squared is 49" */
    vow_value_release(seven);
    vow_resolver_release(r);
    vow_promise_release(number);
    vow_promise_release(squared);
    vow_promise_release(printed);
    return state == VOW_FULFILLED ? 0 : 1;
}
