/* main.c: a C program on the installed libvow.so with a Swift component that carries a
   second copy of the engine (Component.swift, built wrong on purpose). Every handle that
   crosses between the copies must be refused; prints what happened to each. */
#include <stdint.h>
#include <stdio.h>
#include <vow.h>

vow_promise *twin_double(vow_promise *number);
vow_promise *twin_made_here(int64_t n);

static void pass(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    (void)value;
    (void)out;
}

int main(void) {
    /* A promise of libvow.so, handed to the component's copy. */
    vow_resolver *r;
    vow_promise *ours = vow_promise_pending(&r);
    vow_promise *doubled = twin_double(ours);
    printf("twin_double(a promise of libvow.so): %s\n", doubled == NULL ? "refused" : "ACCEPTED");

    /* A promise of the component's copy, handed to libvow.so. */
    vow_promise *theirs = twin_made_here(21);
    vow_promise *chained = theirs != NULL ? vow_then(theirs, pass, NULL, NULL, NULL) : NULL;
    printf("vow_then(a promise of the component's copy): %s\n", chained == NULL ? "refused" : "ACCEPTED");

    vow_value *seven = vow_value_int(7);
    vow_resolver_fulfill(r, seven);
    vow_value_release(seven);
    vow_resolver_release(r);
    vow_promise_release(ours);
    return doubled == NULL && theirs != NULL && chained == NULL ? 0 : 1;
}
