/*
 * test_no_exceptions.cpp: vow.hpp under -fno-exceptions (run-cpp-tests.sh builds
 * this file with it). Callbacks reject by returning a vow::result holding an
 * error (or a rejected promise); errors are read with try_get, result's
 * has_value / error and, in C++20, co_await p.try_await(); get() on an error
 * writes it to standard error and aborts (checked in a child process).
 */
#include "cpp_test.hpp"

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace cpp_test;

static void
test_built_without_exceptions()
{
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(VOW_HPP_EXCEPTIONS)
    CHECK(!"this file must be built with -fno-exceptions");
#else
    CHECK(true);
#endif
}

static void
test_callbacks_reject_with_results()
{
    auto checked = [](int x) -> vow::result<int> {
        if (x < 0) return vow::error("app.input", 22, "negative");
        return x * 2;
    };
    auto good = vow::promise<int>::fulfilled(4).then(checked);
    auto bad = vow::promise<int>::fulfilled(-4).then(checked);
    auto good_outcome = bounded(good).try_get();
    REQUIRE(good_outcome.has_value());
    CHECK_EQ(good_outcome.value(), 8);
    auto bad_outcome = bounded(bad).try_get();
    REQUIRE(!bad_outcome.has_value());
    CHECK(bad_outcome.error().is("app.input", 22));
    CHECK_STR(bad_outcome.error().what(), "negative");
    CHECK_EQ(bad_outcome.value_or(-1), -1);
    /* A rejected promise returned from a callback rejects too. */
    auto via_promise = vow::promise<int>::fulfilled(1).then(
        [](int) { return vow::promise<std::string>::rejected(vow::error("app", 5, "no")); });
    CHECK(bounded(via_promise).try_get().error().is("app", 5));
    /* recover turns the error into a value. */
    auto recovered = bad.recover([](const vow::error &e) { return static_cast<int>(e.code()); });
    CHECK_EQ(bounded(recovered).try_get().value(), 22);
    /* Errors from C and type errors read the same way. */
    vow_error *c_error = vow_error_new("c.lib", 2, "from C");
    auto from_c = vow::promise<int>::adopt(vow_promise_rejected(c_error));
    vow_error_release(c_error);
    CHECK(from_c.try_get().error().is("c.lib", 2));
    auto mistyped = vow::promise<std::string>::fulfilled("x").as<int>().try_get();
    CHECK(mistyped.error().is("vow", VOW_ERROR_TYPE));
    auto v = vow::value::try_of(std::string("a\0b", 3));
    CHECK(!v.has_value());
    /* result<void> */
    auto nothing = vow::promise<int>::fulfilled(1).then([](int) { return vow::result<void>(vow::error("a", 1, "b")); });
    CHECK(!bounded(nothing).try_get().has_value());
    /* Cancellation. */
    auto [p, r] = vow::promise<int>::pending();
    p.cancel();
    CHECK(p.try_get().error().is_cancelled());
}

#if VOW_HPP_COROUTINES
static void
test_try_await()
{
    auto run = [](vow::promise<int> p) -> vow::promise<int> {
        vow::result<int> r = co_await p.try_await();
        if (!r) co_return -static_cast<int>(r.error().code());
        int again = co_await p; /* fulfilled: no error possible here */
        co_return *r + again;
    };
    CHECK_EQ(bounded(run(vow::promise<int>::fulfilled(3))).try_get().value(), 6);
    CHECK_EQ(bounded(run(vow::promise<int>::rejected(vow::error("a", 9, "b")))).try_get().value(), -9);
}
#endif

static void
test_get_on_an_error_aborts()
{
    int pipe_fds[2];
    REQUIRE(pipe(pipe_fds) == 0);
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        dup2(pipe_fds[1], 2);
        close(pipe_fds[0]);
        auto p = vow::promise<int>::rejected(vow::error("app", 7, "bad"));
        (void)p.get();
        _exit(0); /* not reached */
    }
    close(pipe_fds[1]);
    std::string text;
    char buffer[512];
    ssize_t n;
    while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(text.find("vow: unhandled error without exceptions: app 7: bad") != std::string::npos);
}

int
main()
{
    return run_all("test_no_exceptions", {
                                              {"built without exceptions", test_built_without_exceptions},
                                              {"callbacks reject with results", test_callbacks_reject_with_results},
#if VOW_HPP_COROUTINES
                                              {"try_await", test_try_await},
#endif
                                              {"get on an error aborts", test_get_on_an_error_aborts},
                                          });
}
