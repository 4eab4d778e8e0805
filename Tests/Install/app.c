/* A user's first program: a promise made in C, a then and a catch, a bounded wait. */
#include <stdio.h>
#include <vow.h>

static void twice(void *ctx, const vow_value *value, vow_result *out) {
    int64_t n = 0;
    vow_value_get_int(value, &n);
    vow_value *doubled = vow_value_int(2 * n);
    vow_result_return(out, doubled);
    vow_value_release(doubled);
    (void)ctx;
}

static void note(void *ctx, const vow_error *error, vow_result *out) {
    printf("app: caught %s\n", vow_error_message(error));
    (void)ctx;
    (void)out;
}

int main(void) {
    if (vow_version_number() != VOW_VERSION_NUMBER) {
        printf("app: header %d, library %d\n", VOW_VERSION_NUMBER, vow_version_number());
        return 1;
    }
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *doubled = vow_then(p, twice, NULL, NULL, NULL);
    vow_value *n = vow_value_int(21);
    vow_resolver_fulfill(r, n);
    vow_value *result = NULL;
    int64_t answer = 0;
    if (vow_wait(doubled, 10.0, &result, NULL) == VOW_FULFILLED) vow_value_get_int(result, &answer);

    vow_error *e = vow_error_new("app", 1, "an error from C");
    vow_promise *rejected = vow_promise_rejected(e);
    vow_promise *caught = vow_catch(rejected, note, NULL, NULL);
    vow_state caught_state = vow_wait(caught, 10.0, NULL, NULL);

    printf("app: libvow %s, 21 doubled is %lld\n", vow_version(), (long long)answer);
    vow_value_release(result);
    vow_value_release(n);
    vow_error_release(e);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_promise_release(doubled);
    vow_promise_release(rejected);
    vow_promise_release(caught);
    return answer == 42 && caught_state == VOW_FULFILLED ? 0 : 1;
}
