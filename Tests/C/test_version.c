/* test_version.c: version numbers and status strings. */
#include "test_support.h"

static void
test_version_number_matches_header(void)
{
    CHECK_EQ_INT(VOW_VERSION_NUMBER, VOW_VERSION_MAJOR * 10000 + VOW_VERSION_MINOR * 100 + VOW_VERSION_PATCH);
    CHECK_EQ_INT(vow_version_number(), VOW_VERSION_NUMBER);
}

static void
test_version_string(void)
{
    const char *v = vow_version();
    REQUIRE(v != NULL);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", VOW_VERSION_MAJOR, VOW_VERSION_MINOR, VOW_VERSION_PATCH);
    CHECK_EQ_STR(v, expected);
    /* Static: the same pointer every time. */
    CHECK_EQ_PTR(vow_version(), v);
}

static void
test_status_strings(void)
{
    const int codes[] = {VOW_OK, VOW_EINVAL, VOW_EALREADY, VOW_ETYPE, VOW_ESIGNATURE, VOW_ENOMEM};
    const size_t n = sizeof codes / sizeof codes[0];
    const char *unknown = vow_status_string(12345);
    REQUIRE(unknown != NULL);
    CHECK_EQ_STR(unknown, "unknown status");
    CHECK_EQ_STR(vow_status_string(-99), "unknown status");
    CHECK_EQ_STR(vow_status_string(1), "unknown status");
    for (size_t i = 0; i < n; i++) {
        const char *s = vow_status_string(codes[i]);
        CHECK_NOT_NULL(s);
        if (s == NULL) continue;
        CHECK(strlen(s) > 0);
        CHECK(strcmp(s, "unknown status") != 0);
        CHECK_EQ_PTR(vow_status_string(codes[i]), s);
        /* Every code has its own description. */
        for (size_t j = 0; j < i; j++) {
            const char *o = vow_status_string(codes[j]);
            CHECK(o == NULL || strcmp(o, s) != 0);
        }
    }
}

static void
test_enum_values(void)
{
    /* The numbering is part of the contract (c-api.md). */
    CHECK_EQ_INT(VOW_OK, 0);
    CHECK_EQ_INT(VOW_EINVAL, -1);
    CHECK_EQ_INT(VOW_EALREADY, -2);
    CHECK_EQ_INT(VOW_ETYPE, -3);
    CHECK_EQ_INT(VOW_ESIGNATURE, -4);
    CHECK_EQ_INT(VOW_ENOMEM, -5);
    CHECK_EQ_INT(VOW_ERROR_CANCELLED, 1);
    CHECK_EQ_INT(VOW_ERROR_BROKEN, 2);
    CHECK_EQ_INT(VOW_ERROR_CYCLE, 3);
    CHECK_EQ_INT(VOW_ERROR_TIMEOUT, 4);
    CHECK_EQ_INT(VOW_ERROR_TYPE, 5);
    CHECK_EQ_INT(VOW_ERROR_SIGNATURE, 6);
    CHECK_EQ_INT(VOW_ERROR_EMPTY, 7);
    CHECK_EQ_INT(VOW_ERROR_DEADLOCK, 8);
    CHECK(VOW_KIND_INVALID < 0);
    CHECK(VOW_STATE_INVALID < 0);
    CHECK_EQ_INT(VOW_PENDING, 0);
    CHECK_EQ_INT(VOW_FULFILLED, 1);
    CHECK_EQ_INT(VOW_REJECTED, 2);
}

TEST_MAIN_BEGIN("test_version")
    RUN_TEST(test_version_number_matches_header);
    RUN_TEST(test_version_string);
    RUN_TEST(test_status_strings);
    RUN_TEST(test_enum_values);
TEST_MAIN_END
