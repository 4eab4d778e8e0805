/*
 * Compiled by check_header.sh with -Werror=nonnull: a literal NULL where
 * the header says VOW_NONNULL must be refused at compile time by clang
 * (issue 16, item 10), and accepted with VOW_NO_NONNULL defined. gcc accepts
 * it either way: vow.h gives gcc no nonnull attribute (issue 23, item 5).
 * NONNULL_CASE picks the call.
 */
#include "vow.h"

void misuse(vow_resolver *r, vow_value *v);

void
misuse(vow_resolver *r, vow_value *v)
{
    (void)r;
    (void)v;
#if NONNULL_CASE == 1
    vow_promise_release(vow_then(NULL, NULL, NULL, NULL, NULL));
#elif NONNULL_CASE == 2
    (void)vow_resolver_fulfill(r, NULL);
#elif NONNULL_CASE == 3
    (void)vow_wait(NULL, 0, NULL, NULL);
#elif NONNULL_CASE == 4
    vow_value_release(vow_value_promise(NULL));
#endif
}
