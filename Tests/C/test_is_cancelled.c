/* test_is_cancelled.c: vow_promise_is_cancelled. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

static void
test_states(void)
{
    vow_resolver *r = NULL;
    vow_promise *p = vow_promise_pending(&r);
    CHECK(!vow_promise_is_cancelled(p)); /* pending */
    vow_cancel(p);
    CHECK(vow_promise_is_cancelled(p));
    CHECK(vow_promise_is_cancelled(p)); /* asking twice: same answer, nothing to release */
    vow_resolver_release(r);
    vow_promise_release(p);

    vow_value *v = vow_value_int(3);
    p = vow_promise_fulfilled(v);
    CHECK(!vow_promise_is_cancelled(p));
    vow_promise_release(p);
    vow_value_release(v);

    vow_error *e = vow_error_new("test", 7, "an ordinary failure");
    p = vow_promise_rejected(e);
    CHECK(!vow_promise_is_cancelled(p));
    CHECK_EQ_INT(vow_wait(p, 0, NULL, NULL), VOW_REJECTED); /* handle it */
    vow_promise_release(p);
    vow_error_release(e);
}

static void
test_agrees_with_vow_error_is_cancelled(void)
{
    /* The library's own cancellation error given by a producer counts too. */
    vow_error *c = vow_error_cancelled();
    vow_promise *p = vow_promise_rejected(c);
    CHECK(vow_promise_is_cancelled(p));
    vow_promise_release(p);
    vow_error_release(c);

    /* A registered pair counts from the moment it is registered, for promises made before. */
    vow_error *e = vow_error_new("test.is_cancelled", 42, "the user pressed stop");
    p = vow_promise_rejected(e);
    CHECK(!vow_promise_is_cancelled(p));
    CHECK_EQ_INT(vow_register_cancellation("test.is_cancelled", 42), VOW_OK);
    CHECK(vow_promise_is_cancelled(p));
    vow_error *got = vow_promise_error(p);
    CHECK_EQ_INT(vow_error_is_cancelled(got), vow_promise_is_cancelled(p));
    vow_error_release(got);
    vow_promise_release(p);
    vow_error_release(e);
}

static void
test_does_not_handle(void)
{
    /* Asking is not handling: the rejection is still reported once when dropped. */
    unhandled_counter_install();
    vow_error *e = vow_error_new("test.asked", 1, "nobody handled me");
    vow_promise *p = vow_promise_rejected(e);
    CHECK(!vow_promise_is_cancelled(p));
    vow_promise_release(p);
    CHECK_EQ_INT(unhandled_count_matching("test.asked", 1), 1);
    vow_error_release(e);
    vow_set_unhandled_error_handler(NULL, NULL, NULL);
}

static void
test_bad_input(void)
{
    CHECK(!vow_promise_is_cancelled(NULL));
    /* A value where a promise belongs: false and one misuse line naming the function. */
    stderr_capture cap;
    vow_value *v = vow_value_int(1);
    capture_stderr_begin(&cap);
    bool got = vow_promise_is_cancelled((const vow_promise *)v);
    char *text = capture_stderr_end(&cap);
    CHECK(!got);
    CHECK_EQ_INT(count_lines_containing(text, "vow: vow_promise_is_cancelled: expected a vow_promise, got a vow_value"), 1);
    free(text);
    vow_value_release(v);
}

TEST_MAIN_BEGIN("test_is_cancelled")
RUN_TEST(test_states);
RUN_TEST(test_agrees_with_vow_error_is_cancelled);
RUN_TEST(test_does_not_handle);
RUN_TEST(test_bad_input);
TEST_MAIN_END
