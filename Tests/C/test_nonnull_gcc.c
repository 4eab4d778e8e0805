/*
 * test_nonnull_gcc.c: a caller's own NULL check of a pointer it passed to vow.h survives
 * optimization (issue 23, item 5). GCC's __attribute__((nonnull)) would let gcc -O2 delete
 * such a check (-fdelete-null-pointer-checks); vow.h therefore gives gcc no nonnull
 * attribute, and clang only its _Nonnull qualifier, which never reaches the optimizer.
 *
 * The functions below are compiled at -O2 under gcc whatever the runner's flags (the
 * optimize attribute), since that is where the deletion happens. This program does NOT
 * define VOW_NO_NONNULL: it checks the header as users get it. It passes no literal NULL
 * (that would only draw clang's warning); the NULL comes from a variable the compiler
 * cannot see through.
 */
#include "test_support.h"

#if defined(__GNUC__) && !defined(__clang__)
#  define AT_O2 __attribute__((noinline, optimize("O2", "delete-null-pointer-checks")))
#else
#  define AT_O2 __attribute__((noinline))
#endif

/* Something the optimizer cannot fold: NULL or a real handle, decided at run time. */
static vow_value *volatile maybe_value;
static vow_promise *volatile maybe_promise;

/* Passes v to a VOW_NONNULL parameter, then checks it: -1 must come back for NULL. */
AT_O2 static int
fulfilled_then_check(vow_value *v, vow_promise **out)
{
    *out = vow_promise_fulfilled(v); /* NULL v: the library answers NULL */
    if (v == NULL) return -1;        /* the check a nonnull attribute let gcc delete */
    return 1;
}

AT_O2 static int
then_then_check(vow_promise *p, vow_promise **out)
{
    *out = vow_then(p, NULL, NULL, NULL, NULL);
    if (p == NULL) return -1;
    return 1;
}

AT_O2 static int
fulfill_then_check(vow_resolver *r, vow_value *v)
{
    int rc = vow_resolver_fulfill(r, v);
    if (v == NULL) return rc == VOW_EINVAL ? -1 : -2;
    return rc;
}

AT_O2 static int
wait_then_check(vow_promise *p)
{
    vow_state s = vow_wait(p, 0, NULL, NULL);
    if (p == NULL) return s == VOW_STATE_INVALID ? -1 : -2;
    return (int)s;
}

static void
test_null_branch_taken(void)
{
    vow_promise *got = NULL;
    maybe_value = NULL;
    CHECK_EQ_INT(fulfilled_then_check(maybe_value, &got), -1);
    CHECK_NULL(got);
    maybe_promise = NULL;
    CHECK_EQ_INT(then_then_check(maybe_promise, &got), -1);
    CHECK_NULL(got);
    CHECK_EQ_INT(wait_then_check(maybe_promise), -1);
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    CHECK_EQ_INT(fulfill_then_check(r, maybe_value), -1);
    vow_value *one = vow_value_int(1);
    maybe_value = one;
    CHECK_EQ_INT(fulfill_then_check(r, maybe_value), VOW_OK); /* and the other branch still works */
    CHECK_EQ_INT(fulfilled_then_check(maybe_value, &got), 1);
    CHECK_NOT_NULL(got);
    vow_promise_release(got);
    maybe_promise = p;
    CHECK_EQ_INT(then_then_check(maybe_promise, &got), 1);
    CHECK_EQ_INT(wait_promise(got, NULL, NULL), VOW_FULFILLED);
    vow_promise_release(got);
    CHECK_EQ_INT(wait_then_check(maybe_promise), VOW_FULFILLED);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_value_release(one);
}

TEST_MAIN_BEGIN("test_nonnull_gcc")
RUN_TEST(test_null_branch_taken);
TEST_MAIN_END
