/* A C program on a GLib main loop built with CMake (target Vow::glib): a GLib timeout as
   a promise, held so that vow_glib_run iterates the context exactly until it settled. */
#include <stdio.h>
#include <vow_glib.h>

int main(void) {
    vow_dispatcher *d = vow_glib_dispatcher_new(NULL);        /* the default main context */
    vow_promise *timeout = vow_glib_timeout(d, 10);           /* fulfils after 10 ms */
    vow_glib_hold(d, timeout);
    vow_glib_run(d);                                           /* returns once it settled */
    int ok = vow_promise_state(timeout) == VOW_FULFILLED;
    printf("glib-app: the timeout's promise settled inside the main context\n");
    vow_promise_release(timeout);
    ok = ok && vow_glib_dispatcher_close(d) == VOW_OK;
    vow_dispatcher_release(d);
    printf("glib-app: %s\n", ok ? "closed" : "FAILED");
    return ok ? 0 : 1;
}
