#include <stdio.h>
#include <vow_glib.h>

static gboolean fired(gpointer resolver) {                  /* GLib calls this in its loop */
    vow_value *v = vow_value_string("the timeout fired");
    vow_resolver_fulfill(resolver, v);
    vow_value_release(v);
    return G_SOURCE_REMOVE;
}

static void print_it(void *loop, const vow_value *value, vow_result *out) {
    printf("%s; this callback runs inside g_main_loop_run\n", vow_value_get_string(value));
    g_main_loop_quit(loop);
    (void)out;
}

int main(void) {
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    vow_dispatcher *d = vow_glib_dispatcher_new(NULL);      /* the default main context */
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    g_timeout_add(10, fired, r);
    vow_promise *printed = vow_then_on(d, p, print_it, NULL, loop, NULL);
    g_main_loop_run(loop);                                  /* print_it quits it */
    vow_glib_dispatcher_close(d);                           /* later jobs would be dropped */
    vow_dispatcher_release(d);
    int ok = vow_promise_state(printed) == VOW_FULFILLED;
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_promise_release(printed);
    g_main_loop_unref(loop);
    return ok ? 0 : 1;
}
