/*
 * test_cpp_combinators.cpp: vow::when_all (variadic: a tuple, std::monostate for
 * promise<void>; over a vector: a vector, or promise<void>), vow::race,
 * vow::any (variadic and over a vector), vow::after and p.timeout with
 * std::chrono durations.
 */
#include "cpp_test.hpp"

#include <thread>
#include <variant>
#include <vector>

using namespace cpp_test;

static void
test_when_all_variadic()
{
    auto [a, ra] = vow::promise<int>::pending();
    auto all = vow::when_all(a, vow::promise<std::string>::fulfilled("b"), vow::promise<void>::fulfilled(),
                             vow::promise<std::vector<int>>::fulfilled({1, 2}));
    static_assert(std::is_same_v<decltype(all),
                                 vow::promise<std::tuple<int, std::string, std::monostate, std::vector<int>>>>);
    CHECK(all.is_pending());
    ra.resolve(1);
    auto [x, y, z, w] = bounded(all).get();
    CHECK_EQ(x, 1);
    CHECK_EQ(y, std::string("b"));
    CHECK(z == std::monostate());
    CHECK((w == std::vector<int>{1, 2}));
    /* The first rejection, that same error; the others keep running. */
    vow::error first("app", 1, "first");
    auto [slow, slow_r] = vow::promise<int>::pending();
    auto failing = vow::when_all(slow, vow::promise<int>::rejected(first));
    auto outcome = bounded(failing).try_get();
    REQUIRE(!outcome.has_value());
    CHECK_EQ(outcome.error().handle(), first.handle());
    CHECK(slow.is_pending());
    slow_r.resolve(0);
    /* Nothing: an empty tuple. */
    auto none = vow::when_all();
    static_assert(std::is_same_v<decltype(none), vow::promise<std::tuple<>>>);
    CHECK(bounded(none).try_get().has_value());
}

static void
test_when_all_vector()
{
    std::vector<vow::promise<int>> ps;
    std::vector<vow::resolver<int>> rs;
    for (int i = 0; i < 50; i++) {
        auto [p, r] = vow::promise<int>::pending();
        ps.push_back(p);
        rs.push_back(r);
    }
    auto all = vow::when_all(ps);
    static_assert(std::is_same_v<decltype(all), vow::promise<std::vector<int>>>);
    std::thread t([&rs] {
        for (std::size_t i = rs.size(); i-- > 0;) rs[i].resolve(static_cast<int>(i * i));
    });
    auto values = bounded(all).get();
    t.join();
    REQUIRE(values.size() == 50);
    bool in_order = true;
    for (std::size_t i = 0; i < values.size(); i++) in_order = in_order && values[i] == static_cast<int>(i * i);
    CHECK(in_order);
    CHECK(bounded(vow::when_all(std::vector<vow::promise<int>>())).get().empty());
    std::vector<vow::promise<void>> voids{vow::promise<void>::fulfilled(), vow::promise<void>::fulfilled()};
    auto all_void = vow::when_all(voids);
    static_assert(std::is_same_v<decltype(all_void), vow::promise<void>>);
    CHECK(bounded(all_void).try_get().has_value());
}

static void
test_race()
{
    auto [slow, slow_r] = vow::promise<int>::pending();
    std::atomic<int> slow_cancelled{0};
    slow_r.on_cancel([&slow_cancelled] { slow_cancelled++; });
    auto [fast, fast_r] = vow::promise<int>::pending();
    auto first = vow::race(slow, fast);
    fast_r.resolve(2);
    CHECK_EQ(bounded(first).get(), 2);
    CHECK(wait_until([&] { return slow_cancelled.load() == 1; })); /* the loser is cancelled */
    /* A rejection can win a race. */
    auto [p, r] = vow::promise<int>::pending();
    auto lost = vow::race(std::vector<vow::promise<int>>{p, vow::promise<int>::rejected(vow::error("app", 6, "lost"))});
    CHECK(bounded(lost).try_get().error().is("app", 6));
    /* Over nothing: VOW_ERROR_EMPTY. */
    CHECK(bounded(vow::race(std::vector<vow::promise<int>>())).try_get().error().is("vow", VOW_ERROR_EMPTY));
}

static void
test_any()
{
    auto [slow, slow_r] = vow::promise<std::string>::pending();
    auto found = vow::any(vow::promise<std::string>::rejected(vow::error("app", 1, "a")), slow,
                          vow::promise<std::string>::rejected(vow::error("app", 2, "b")));
    CHECK(found.is_pending()); /* rejections are skipped */
    slow_r.resolve("the one");
    CHECK_EQ(bounded(found).get(), std::string("the one"));
    /* All reject: the error of the last one to reject. */
    auto [late, late_r] = vow::promise<int>::pending();
    auto none = vow::any(std::vector<vow::promise<int>>{vow::promise<int>::rejected(vow::error("app", 3, "c")), late});
    late_r.reject(vow::error("app", 4, "d"));
    CHECK(bounded(none).try_get().error().is("app", 4));
    CHECK(bounded(vow::any(std::vector<vow::promise<int>>())).try_get().error().is("vow", VOW_ERROR_EMPTY));
}

static void
test_after_and_timeout()
{
    auto start = std::chrono::steady_clock::now();
    auto timer = vow::after(std::chrono::milliseconds(30));
    static_assert(std::is_same_v<decltype(timer), vow::promise<void>>);
    bounded(timer).get();
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(25));
    CHECK(bounded(vow::after(std::chrono::seconds(-1))).try_get().has_value()); /* negative: at once */
    /* A cancelled timer never fires. */
    auto never = vow::after(std::chrono::hours(1));
    never.cancel();
    CHECK(never.is_cancelled());

    /* timeout: VOW_ERROR_TIMEOUT, and the source is cancelled. */
    auto [p, r] = vow::promise<int>::pending();
    std::atomic<int> heard{0};
    r.on_cancel([&heard] { heard++; });
    auto limited = p.timeout(std::chrono::milliseconds(20));
    auto outcome = bounded(limited).try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("vow", VOW_ERROR_TIMEOUT));
    CHECK(!outcome.error().is_cancelled());
    CHECK(wait_until([&] { return heard.load() == 1; }));
    /* In time: the value. */
    auto [q, qr] = vow::promise<int>::pending();
    auto in_time = q.timeout(std::chrono::duration<double>(30.0));
    qr.resolve(5);
    CHECK_EQ(bounded(in_time).get(), 5);
    /* Any duration type: microseconds, floating seconds. */
    CHECK(bounded(vow::promise<int>::fulfilled(1).timeout(std::chrono::microseconds(5000000))).try_get().has_value());
}

int
main()
{
    return run_all("test_cpp_combinators", {
                                                {"when_all, variadic", test_when_all_variadic},
                                                {"when_all over a vector", test_when_all_vector},
                                                {"race", test_race},
                                                {"any", test_any},
                                                {"after and timeout", test_after_and_timeout},
                                            });
}
