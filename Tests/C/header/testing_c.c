/* Compiled by check_header.sh: vow_testing.h must build as strict C99 and C++17 with zero
   warnings, with every declaration used once (a typo in a name fails here). */
#include "vow_testing.h"

#ifdef __cplusplus
#  define TESTING_NULL nullptr
#else
#  define TESTING_NULL ((void *)0)
#endif

int testing_header_uses_everything(void);

int testing_header_uses_everything(void)
{
    vow_test_loop *l = vow_test_loop_new(0);
    vow_dispatcher *d = vow_test_loop_dispatcher(l);
    int rc = vow_test_loop_install(l);
    size_t ran = vow_test_loop_advance(l, 1.5) + vow_test_loop_run_until_idle(l);
    double now = vow_test_loop_now(l);
    size_t pending = vow_test_loop_pending(l) + vow_test_loop_dump_pending(l, stderr);
    rc += vow_test_loop_uninstall(l);
    vow_test_loop_release(l);
    return rc + (int)ran + (int)pending + (now > 0) + (d != TESTING_NULL);
}
