/* test_debug_env.c: the environment variable VOW_DEBUG decides debug mode while nothing
 * else did (vow.h, vow_debug_set): set and neither empty nor "0" means on; it is read once
 * (changing it afterwards changes nothing); a setting made before the first read wins.
 *
 * Each case runs in a child process of its own, forked before this program calls the
 * library, so the first read of the environment is the child's and nothing else in the
 * process reads it meanwhile. (The same checks inside the Swift test suite raced with the
 * other suites' promises, whose creation reads the setting too, and with their getenv.) */
#include "test_support.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a child saw, as its exit status: bit 0 the first read, bit 1 a second read after
   the environment was flipped, bit 2 always (the child ran to its end). */
enum { FIRST_ON = 1, SECOND_ON = 2, RAN = 4 };

/* Forks a child that sets VOW_DEBUG to value (NULL: unset), turns debug mode off with
   vow_debug_set first if asked, and reads the mode twice. Returns the child's bits, or -1
   when it did not exit normally. */
static int
child_reads(const char *value, bool set_off_first)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (value != NULL) setenv("VOW_DEBUG", value, 1); else unsetenv("VOW_DEBUG");
        if (set_off_first) vow_debug_set(false);
        bool first = vow_debug_enabled();
        setenv("VOW_DEBUG", first ? "0" : "1", 1);
        bool second = vow_debug_enabled();
        _exit((first ? FIRST_ON : 0) | (second ? SECOND_ON : 0) | RAN);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static void
test_environment_decides_once(void)
{
    CHECK_EQ_INT(child_reads("1", false), FIRST_ON | SECOND_ON | RAN);
    CHECK_EQ_INT(child_reads("yes", false), FIRST_ON | SECOND_ON | RAN);
    CHECK_EQ_INT(child_reads("0", false), RAN);
    CHECK_EQ_INT(child_reads("", false), RAN);
    CHECK_EQ_INT(child_reads(NULL, false), RAN);
    /* "00" is not "0": on. */
    CHECK_EQ_INT(child_reads("00", false), FIRST_ON | SECOND_ON | RAN);
}

static void
test_setting_wins_over_environment(void)
{
    CHECK_EQ_INT(child_reads("1", true), RAN);
}

TEST_MAIN_BEGIN("test_debug_env")
    RUN_TEST(test_environment_decides_once);
    RUN_TEST(test_setting_wins_over_environment);
TEST_MAIN_END
