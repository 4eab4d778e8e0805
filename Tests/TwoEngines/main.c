/* main.c: a C program on the installed libvow.so with a Swift component that carries a
   copy of the engine of its own (Component.swift, built wrong on purpose, through
   VowTesting). Prints what happened to each handle that crosses between them.

     ./two-engines two   libvow.so first in the search order: its entry points reach its
                         own copy, the component's own code uses the component's copy: two
                         engines in use; every crossing handle must be refused
     ./two-engines one   the component first: libvow.so's entry points reach the
                         component's copy (the first table the dynamic linker finds) and
                         libvow.so's copy is dormant: one engine; every handle crosses */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vow.h>

vow_promise *twin_double(vow_promise *number);
vow_promise *twin_made_here(int64_t n);

static void pass(void *ctx, const vow_value *value, vow_result *out) {
    (void)ctx;
    vow_result_return(out, value);
}

/* The int a promise settles with (-1 if it does not fulfil with an int within 5 s). */
static int64_t settled_int(vow_promise *p) {
    int64_t n = -1;
    vow_value *value = NULL;
    if (vow_wait(p, 5.0, &value, NULL) == VOW_FULFILLED && value != NULL) vow_value_get_int(value, &n);
    vow_value_release(value);
    return n;
}

int main(int argc, char **argv) {
    int one_engine = argc > 1 && strcmp(argv[1], "one") == 0;

    /* A promise of libvow.so's entry points, handed to the component's own code. */
    vow_resolver *r;
    vow_promise *ours = vow_promise_pending(&r);
    vow_promise *doubled = twin_double(ours);
    printf("twin_double(a promise of libvow.so): %s\n", doubled == NULL ? "refused" : "ACCEPTED");

    /* A promise of the component's own code, handed to libvow.so's entry points. */
    vow_promise *theirs = twin_made_here(21);
    vow_promise *chained = theirs != NULL ? vow_then(theirs, pass, NULL, NULL, NULL) : NULL;
    printf("vow_then(a promise of the component's copy): %s\n", chained == NULL ? "refused" : "ACCEPTED");

    vow_value *seven = vow_value_int(7);
    vow_resolver_fulfill(r, seven);
    vow_value_release(seven);
    vow_resolver_release(r);
    int ok;
    if (one_engine) {
        int64_t twice = doubled != NULL ? settled_int(doubled) : -1;
        int64_t same = chained != NULL ? settled_int(chained) : -1;
        printf("one engine: 7 doubled by the component is %lld, 21 chained in C is %lld\n",
               (long long)twice, (long long)same);
        ok = twice == 14 && same == 21;
    } else {
        ok = doubled == NULL && theirs != NULL && chained == NULL;
    }
    vow_promise_release(doubled);
    vow_promise_release(chained);
    vow_promise_release(theirs);
    vow_promise_release(ours);
    return ok ? 0 : 1;
}
