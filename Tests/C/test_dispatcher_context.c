/* test_dispatcher_context.c: vow_dispatcher_context gives a host its ctx back (the loop
   bridges find their state this way, without a registry), NULL for the library's own
   dispatchers and for NULL; a handle of another kind is a misuse line. And
   vow_report_misuse writes a library's own misuse line the library's way. */
#define VOW_NO_NONNULL
#include "test_support.h"

static void
drop_submit(void *ctx, vow_job run, void *job)
{
    (void)ctx;
    (void)run;
    vow_job_drop(job);
}

static void *
never_arm(void *ctx, double seconds, vow_job run, void *timer)
{
    (void)ctx, (void)seconds, (void)run, (void)timer;
    return NULL;
}

static int destroyed;

static void
count_destroy(void *ctx)
{
    (void)ctx;
    destroyed++;
}

static pthread_mutex_t lines_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_line[256];
static int lines;

static void
keep_line(void *ctx, const char *line)
{
    (void)ctx;
    pthread_mutex_lock(&lines_lock);
    snprintf(last_line, sizeof last_line, "%s", line);
    lines++;
    pthread_mutex_unlock(&lines_lock);
}

static void
test_the_hosts_ctx_back(void)
{
    int state = 42;
    vow_dispatcher *d = vow_dispatcher_new(drop_submit, &state, count_destroy);
    REQUIRE(d != NULL);
    CHECK(vow_dispatcher_context(d) == &state);
    vow_dispatcher *t = vow_dispatcher_new_with_timers(drop_submit, never_arm, NULL, &destroyed, NULL);
    REQUIRE(t != NULL);
    CHECK(vow_dispatcher_context(t) == &destroyed);
    vow_dispatcher *none = vow_dispatcher_new(drop_submit, NULL, NULL);
    CHECK(vow_dispatcher_context(none) == NULL); /* a NULL ctx, as given */
    vow_dispatcher_release(none);
    vow_dispatcher_release(t);
    vow_dispatcher_release(d);
    CHECK_EQ_INT(destroyed, 1);
}

static void
test_the_librarys_own_and_bad_input(void)
{
    lines = 0;
    vow_set_misuse_handler(keep_line, NULL, NULL);
    CHECK(vow_dispatcher_context(vow_dispatcher_default()) == NULL);
    CHECK(vow_dispatcher_context(vow_dispatcher_background()) == NULL);
    CHECK(vow_dispatcher_context(vow_dispatcher_inline()) == NULL);
    CHECK(vow_dispatcher_context(NULL) == NULL);
    CHECK_EQ_INT(lines, 0); /* NULL is answered silently */
    vow_value *v = vow_value_int(1);
    CHECK(vow_dispatcher_context((vow_dispatcher *)v) == NULL);
    CHECK_EQ_INT(lines, 1);
    CHECK(strstr(last_line, "vow: vow_dispatcher_context: expected a vow_dispatcher") == last_line);
    vow_value_release(v);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

static void
other_submit(void *ctx, vow_job run, void *job)
{
    drop_submit(ctx, run, job);
}

/* vow_dispatcher_host_context answers only for the submit the dispatcher was made with,
   and never reads ctx (a ctx that is no pointer is handed back as it is). */
static void
test_host_context_by_submit(void)
{
    void *odd = (void *)(uintptr_t)1;
    vow_dispatcher *d = vow_dispatcher_new(drop_submit, odd, NULL);
    REQUIRE(d != NULL);
    CHECK(vow_dispatcher_host_context(d, drop_submit) == odd);
    CHECK(vow_dispatcher_host_context(d, other_submit) == NULL);
    CHECK(vow_dispatcher_host_context(d, NULL) == NULL);
    vow_dispatcher *t = vow_dispatcher_new_with_timers(other_submit, never_arm, NULL, &destroyed, NULL);
    REQUIRE(t != NULL);
    CHECK(vow_dispatcher_host_context(t, other_submit) == &destroyed);
    CHECK(vow_dispatcher_host_context(t, drop_submit) == NULL);
    vow_dispatcher_release(t);
    vow_dispatcher_release(d);
    lines = 0;
    vow_set_misuse_handler(keep_line, NULL, NULL);
    CHECK(vow_dispatcher_host_context(vow_dispatcher_default(), drop_submit) == NULL);
    CHECK(vow_dispatcher_host_context(NULL, drop_submit) == NULL);
    CHECK_EQ_INT(lines, 0);
    vow_value *v = vow_value_int(1);
    CHECK(vow_dispatcher_host_context((vow_dispatcher *)v, drop_submit) == NULL);
    CHECK_EQ_INT(lines, 1);
    CHECK(strstr(last_line, "vow: vow_dispatcher_host_context: expected a vow_dispatcher") == last_line);
    vow_value_release(v);
    vow_set_misuse_handler(NULL, NULL, NULL);
}

static void
test_report_misuse(void)
{
    lines = 0;
    vow_set_misuse_handler(keep_line, NULL, NULL);
    vow_report_misuse("vow_uv_fs_open", "called off the loop's thread");
    CHECK_EQ_INT(lines, 1);
    CHECK_EQ_STR(last_line, "vow: vow_uv_fs_open: called off the loop's thread");
    vow_report_misuse(NULL, "nothing");
    vow_report_misuse("vow_x", NULL);
    CHECK_EQ_INT(lines, 1); /* NULL writes nothing */
    vow_set_misuse_handler(NULL, NULL, NULL);
}

TEST_MAIN_BEGIN("test_dispatcher_context")
    RUN_TEST(test_the_hosts_ctx_back);
    RUN_TEST(test_the_librarys_own_and_bad_input);
    RUN_TEST(test_host_context_by_submit);
    RUN_TEST(test_report_misuse);
TEST_MAIN_END
