/* test_errors.c: errors, payloads, cancellation and registered cancellation pairs. */
/* This program passes NULL on purpose (the run-time answer): no compile-time nonnull check. */
#define VOW_NO_NONNULL
#include "test_support.h"

typedef struct payload {
    atomic_int destroyed;
} payload;

static void
payload_destroy(void *p)
{
    atomic_fetch_add(&((payload *)p)->destroyed, 1);
}

static void
test_error_new_copies(void)
{
    char domain[16], message[32];
    strcpy(domain, "myapp");
    strcpy(message, "disk on fire");
    vow_error *e = vow_error_new(domain, -42, message);
    REQUIRE(e != NULL);
    strcpy(domain, "XXXXX");
    strcpy(message, "YYYYYYYYYYYY");
    CHECK_EQ_STR(vow_error_domain(e), "myapp");
    CHECK_EQ_INT(vow_error_code(e), -42);
    CHECK_EQ_STR(vow_error_message(e), "disk on fire");
    CHECK_NULL(vow_error_payload(e));
    CHECK(!vow_error_is_cancelled(e));
    /* Borrowed strings are stable while e lives. */
    CHECK_EQ_PTR(vow_error_domain(e), vow_error_domain(e));
    vow_error_release(e);

    vow_error *big = vow_error_new("d", INT64_MAX, "");
    CHECK_EQ_INT(vow_error_code(big), INT64_MAX);
    CHECK_EQ_STR(vow_error_message(big), "");
    vow_error_release(big);
}

static void
test_error_null_arguments(void)
{
    CHECK_NULL(vow_error_new(NULL, 1, "m"));
    vow_error *e = vow_error_new("d", 1, NULL);
    REQUIRE(e != NULL);
    CHECK_EQ_STR(vow_error_message(e), "");
    vow_error_release(e);
    CHECK_NULL(vow_error_with_payload(NULL, 1, "m", NULL));
    vow_error *w = vow_error_with_payload("d", 2, NULL, NULL);
    REQUIRE(w != NULL);
    CHECK_EQ_STR(vow_error_message(w), "");
    CHECK_NULL(vow_error_payload(w));
    vow_error_release(w);

    CHECK_NULL(vow_error_domain(NULL));
    CHECK_EQ_INT(vow_error_code(NULL), 0);
    CHECK_NULL(vow_error_message(NULL));
    CHECK_NULL(vow_error_payload(NULL));
    CHECK(!vow_error_is_cancelled(NULL));
    CHECK_NULL(vow_error_retain(NULL));
    vow_error_release(NULL);
}

static void
test_error_payload(void)
{
    payload pl = {0};
    vow_value *pv = vow_value_pointer(&pl, payload_destroy);
    REQUIRE(pv != NULL);
    vow_error *e = vow_error_with_payload("net", 503, "unavailable", pv);
    REQUIRE(e != NULL);
    vow_value_release(pv);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    /* The same handle comes back, borrowed. */
    CHECK_EQ_PTR(vow_error_payload(e), pv);
    CHECK_EQ_PTR(vow_value_get_pointer(vow_error_payload(e)), &pl);
    CHECK_EQ_STR(vow_error_domain(e), "net");
    CHECK_EQ_INT(vow_error_code(e), 503);
    CHECK_EQ_STR(vow_error_message(e), "unavailable");
    vow_error *r = vow_error_retain(e);
    CHECK_EQ_PTR(r, e);
    vow_error_release(e);
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 0);
    vow_error_release(r);
    /* The payload goes with the error. */
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 1);
}

static void
test_cancelled_error(void)
{
    vow_error *c = vow_error_cancelled();
    REQUIRE(c != NULL);
    CHECK_EQ_STR(vow_error_domain(c), "vow");
    CHECK_EQ_INT(vow_error_code(c), VOW_ERROR_CANCELLED);
    CHECK(vow_error_is_cancelled(c));
    CHECK_NOT_NULL(vow_error_message(c));
    vow_error_release(c);

    /* The pair is what counts, not who made the error. */
    vow_error *made = vow_error_new("vow", VOW_ERROR_CANCELLED, "by hand");
    CHECK(vow_error_is_cancelled(made));
    vow_error_release(made);
    vow_error *broken = vow_error_new("vow", VOW_ERROR_BROKEN, "");
    CHECK(!vow_error_is_cancelled(broken));
    vow_error_release(broken);
    vow_error *other = vow_error_new("not-vow", VOW_ERROR_CANCELLED, "");
    CHECK(!vow_error_is_cancelled(other));
    vow_error_release(other);
}

static void
test_register_cancellation(void)
{
    /* Made before the registration: counts once the pair is registered. */
    vow_error *before = vow_error_new("h5.jobs", 77, "aborted");
    vow_error *other_code = vow_error_new("h5.jobs", 78, "");
    vow_error *other_domain = vow_error_new("h5.other", 77, "");
    REQUIRE(before && other_code && other_domain);
    CHECK(!vow_error_is_cancelled(before));
    CHECK_EQ_INT(vow_register_cancellation("h5.jobs", 77), VOW_OK);
    CHECK(vow_error_is_cancelled(before));
    CHECK(!vow_error_is_cancelled(other_code));
    CHECK(!vow_error_is_cancelled(other_domain));
    vow_error *after = vow_error_new("h5.jobs", 77, "later");
    CHECK(vow_error_is_cancelled(after));
    /* Twice is harmless. */
    CHECK_EQ_INT(vow_register_cancellation("h5.jobs", 77), VOW_OK);
    CHECK(vow_error_is_cancelled(after));
    /* The domain string is copied. */
    char domain[16];
    strcpy(domain, "h5.copied");
    CHECK_EQ_INT(vow_register_cancellation(domain, 1), VOW_OK);
    strcpy(domain, "h5.changed");
    vow_error *copied = vow_error_new("h5.copied", 1, "");
    CHECK(vow_error_is_cancelled(copied));
    vow_error *changed = vow_error_new("h5.changed", 1, "");
    CHECK(!vow_error_is_cancelled(changed));
    CHECK_EQ_INT(vow_register_cancellation(NULL, 1), VOW_EINVAL);
    vow_error_release(before);
    vow_error_release(other_code);
    vow_error_release(other_domain);
    vow_error_release(after);
    vow_error_release(copied);
    vow_error_release(changed);
}

static void
record_error(void *ctx, const vow_error *error, vow_result *out)
{
    track_hit(ctx);
    ((track *)ctx)->data = (void *)error;
    (void)out;
}

static void
test_registered_pair_is_cancellation_in_chains(void)
{
    CHECK_EQ_INT(vow_register_cancellation("h5.chain", 5), VOW_OK);
    vow_error *e = vow_error_new("h5.chain", 5, "stopped");
    REQUIRE(e != NULL);
    vow_promise *p = vow_promise_rejected(e);
    REQUIRE(p != NULL);
    track *skipped = track_new(), *all = track_new();
    vow_promise *c = vow_catch(p, record_error, skipped, track_destroy);
    vow_promise *ca = vow_catch_policy(p, VOW_CATCH_ALL_ERRORS, record_error, all, track_destroy);
    REQUIRE(c != NULL && ca != NULL);
    vow_error *ce = NULL;
    CHECK_EQ_INT(wait_promise(c, NULL, &ce), VOW_REJECTED);
    /* Skipped: the catch's promise stays rejected with that same error. */
    CHECK_EQ_PTR(ce, e);
    CHECK_EQ_INT(wait_promise(ca, NULL, NULL), VOW_FULFILLED);
    CHECK_EQ_INT(track_calls(skipped), 0);
    CHECK_EQ_INT(track_calls(all), 1);
    CHECK_EQ_PTR(all->data, e);
    CHECK_DESTROYED_ONCE(skipped);
    CHECK_DESTROYED_ONCE(all);
    vow_error_release(ce);
    vow_promise_release(c);
    vow_promise_release(ca);
    vow_promise_release(p);
    vow_error_release(e);
}

static void
test_many_errors_freed(void)
{
    payload pl = {0};
    for (int k = 0; k < 300; k++) {
        vow_value *pv = vow_value_pointer(&pl, payload_destroy);
        vow_error *e = vow_error_with_payload("leak.check", k, "a message of some length", pv);
        vow_value_release(pv);
        CHECK_NOT_NULL(e);
        vow_error_release(e);
    }
    CHECK_EQ_INT(atomic_load(&pl.destroyed), 300);
}

TEST_MAIN_BEGIN("test_errors")
    RUN_TEST(test_error_new_copies);
    RUN_TEST(test_error_null_arguments);
    RUN_TEST(test_error_payload);
    RUN_TEST(test_cancelled_error);
    RUN_TEST(test_register_cancellation);
    RUN_TEST(test_registered_pair_is_cancellation_in_chains);
    RUN_TEST(test_many_errors_freed);
TEST_MAIN_END
