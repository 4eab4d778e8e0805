/*
 * test_cpp_cancel.cpp: cancel() and std::stop_token. Cancellation arrives as a
 * vow::error whose is_cancelled() is true, travels upstream to the producer's
 * on_cancel unless something else still waits, is skipped by recover unless
 * asked; a stop request on a token given to then / with_stop / get / try_get
 * cancels the promise, before, during or never, and what the registration holds
 * is freed once the promise settles (valgrind and ASan check that).
 */
#include "cpp_test.hpp"

#include <thread>

using namespace cpp_test;

static void
test_cancel()
{
    auto [p, r] = vow::promise<int>::pending();
    std::atomic<int> heard{0};
    CHECK(r.on_cancel([&heard, c = counted()] { heard++; }));
    std::atomic<int> ran{0};
    auto q = p.then([&ran, c = counted()](int x) {
        ran++;
        return x;
    });
    q.cancel();
    CHECK(q.is_cancelled());
    CHECK(q.is_rejected());
    auto outcome = q.try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is_cancelled());
    CHECK(outcome.error().is("vow", VOW_ERROR_CANCELLED));
    CHECK_THROWS(vow::error, q.get());
    /* Nothing else waited on p: the request reached the producer. */
    CHECK(wait_until([&] { return heard.load() == 1; }));
    CHECK(p.is_cancelled());
    CHECK(!r.resolve(1));
    CHECK_EQ(ran.load(), 0);
    /* A settled promise is left as it is. */
    auto done = vow::promise<int>::fulfilled(3);
    done.cancel();
    CHECK(done.is_fulfilled());
    CHECK(no_live_captures());
}

static void
test_shared_upstream_keeps_running()
{
    auto [p, r] = vow::promise<int>::pending();
    std::atomic<int> heard{0};
    r.on_cancel(vow::dispatcher::inline_(), [&heard] { heard++; });
    auto a = p.then([](int x) { return x + 1; });
    auto b = p.then([](int x) { return x + 2; });
    a.cancel();
    CHECK(p.is_pending());
    CHECK_EQ(heard.load(), 0);
    b.cancel();
    CHECK(p.is_cancelled()); /* the last dependent gone: inline, inside cancel */
    CHECK_EQ(heard.load(), 1);
}

static void
test_recover_and_finally_with_cancellation()
{
    auto [p, r] = vow::promise<int>::pending();
    auto skipped = p.recover([](const vow::error &) { return 1; });
    auto seen = p.recover([](const vow::error &e) { return e.is_cancelled() ? 2 : 3; }, vow::catch_policy::all_errors);
    std::atomic<int> cleaned{0};
    auto cleanup = p.finally([&cleaned] { cleaned++; });
    p.cancel();
    CHECK(bounded(skipped).try_get().error().is_cancelled());
    CHECK_EQ(bounded(seen).get(), 2);
    CHECK(bounded(cleanup).try_get().error().is_cancelled());
    CHECK_EQ(cleaned.load(), 1);
}

static void
test_stop_token_support_matches_the_standard()
{
#if __cplusplus >= 202002L
    /* C++20 with this standard library: the stop_token and coroutine parts must be compiled in. */
    CHECK(VOW_HPP_STOP_TOKEN + 0 == 1);
#else
    /* C++17: they are not (std::stop_token does not exist). */
#  ifdef VOW_HPP_STOP_TOKEN
    CHECK(!"VOW_HPP_STOP_TOKEN defined in C++17");
#  else
    CHECK(true);
#  endif
#endif
}

#if VOW_HPP_STOP_TOKEN
static void
test_then_with_stop_token()
{
    /* A stop request cancels the derived promise; it travels upstream to the producer. */
    std::stop_source source;
    auto [p, r] = vow::promise<int>::pending();
    std::atomic<int> heard{0};
    r.on_cancel(vow::dispatcher::inline_(), [&heard] { heard++; });
    std::atomic<int> ran{0};
    auto q = p.then(
        [&ran, c = counted()](int x) {
            ran++;
            return x;
        },
        source.get_token());
    CHECK(q.is_pending());
    source.request_stop();
    CHECK(q.is_cancelled());
    CHECK_EQ(heard.load(), 1);
    CHECK(p.is_cancelled());
    CHECK(!r.resolve(5));
    CHECK_EQ(ran.load(), 0);

    /* Stopped before the call: cancelled at once. */
    auto [p2, r2] = vow::promise<int>::pending();
    auto q2 = p2.then(vow::dispatcher::background(), [](int x) { return x; }, source.get_token());
    CHECK(q2.is_cancelled());

    /* Never stopped: the promise settles normally, and the registration is freed then. */
    std::stop_source quiet;
    auto [p3, r3] = vow::promise<int>::pending();
    auto q3 = p3.then([c = counted()](int x) { return x * 3; }, quiet.get_token());
    r3.resolve(4);
    CHECK_EQ(bounded(q3).get(), 12);
    quiet.request_stop(); /* after it settled: nothing happens */
    CHECK(q3.is_fulfilled());

    /* A token that can never stop costs nothing and changes nothing. */
    auto q4 = vow::promise<int>::fulfilled(1).then([](int x) { return x; }, std::stop_token());
    CHECK_EQ(bounded(q4).get(), 1);

    /* The stop_source may go before the promise settles. */
    vow::promise<int> q5;
    auto [p5, r5] = vow::promise<int>::pending();
    {
        std::stop_source short_lived;
        q5 = p5.then([](int x) { return x; }, short_lived.get_token());
    }
    r5.resolve(6);
    CHECK_EQ(bounded(q5).get(), 6);
    CHECK(no_live_captures());
}

static void
test_get_with_stop_token()
{
    /* get(token) blocks; a stop request from another thread ends it with cancellation. */
    std::stop_source source;
    auto [p, r] = vow::promise<int>::pending();
    std::atomic<int> heard{0};
    r.on_cancel([&heard] { heard++; });
    std::thread stopper([&source] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        source.request_stop();
    });
    bool cancelled = false;
    try {
        (void)p.get(source.get_token());
    } catch (const vow::error &e) {
        cancelled = e.is_cancelled();
    }
    stopper.join();
    CHECK(cancelled);
    CHECK(wait_until([&] { return heard.load() == 1; })); /* upstream: the producer heard */
    CHECK(p.is_cancelled());

    /* try_get(token): the same without throwing; a value when nothing stops it. */
    std::stop_source other;
    auto [p2, r2] = vow::promise<int>::pending();
    std::thread resolver([r2 = r2] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        r2.resolve(8);
    });
    auto got = p2.try_get(other.get_token());
    resolver.join();
    REQUIRE(got.has_value());
    CHECK_EQ(*got, 8);

    /* with_stop: a promise that a stop request cancels; another waiter keeps the source alive. */
    std::stop_source third;
    auto [p3, r3] = vow::promise<int>::pending();
    auto keeper = p3.then([](int x) { return x; });
    auto stoppable = p3.with_stop(third.get_token());
    third.request_stop();
    CHECK(stoppable.is_cancelled());
    CHECK(p3.is_pending());
    r3.resolve(9);
    CHECK_EQ(bounded(keeper).get(), 9);
}
#endif

int
main()
{
    return run_all("test_cpp_cancel", {
                                           {"cancel", test_cancel},
                                           {"a shared upstream keeps running", test_shared_upstream_keeps_running},
                                           {"recover and finally with cancellation", test_recover_and_finally_with_cancellation},
                                           {"stop_token support matches the standard", test_stop_token_support_matches_the_standard},
#if VOW_HPP_STOP_TOKEN
                                           {"then with a stop_token", test_then_with_stop_token},
                                           {"get with a stop_token", test_get_with_stop_token},
#endif
                                       });
}
