/*
 * test_cpp_swift.cpp: one chain across C++ and Swift, through the Swift stage
 * library of the C tests (Tests/C/swift-stage/Stage.swift, built by
 * run-cpp-tests.sh as libvowstage.so against the same libvow.so). Values both
 * ways, a Swift error arriving as vow::error and going back to Swift as
 * itself, cancellation both ways, and the exception round trip: a C++
 * exception crosses a Swift step (a map that passes it through, a recover
 * that catches and rethrows it) and C++ further down catches its own type.
 */
#include "cpp_test.hpp"

#include <stdexcept>
#include <tuple>

using namespace cpp_test;

/* The stage's exports (Swift, no header). */
extern "C" {
vow_promise *vow_stage_double_later(vow_promise *p);
vow_promise *vow_stage_start(int64_t x);
int64_t vow_stage_finish(vow_promise *p);
vow_promise *vow_stage_reject_swift_error(void);
int vow_stage_is_unlucky(vow_promise *p);
vow_promise *vow_stage_reject_cancellation(void);
int vow_stage_is_cancellation(vow_promise *p);
vow_promise *vow_stage_tuple(void);
int64_t vow_stage_sum_pair(vow_promise *p);
vow_promise *vow_stage_rethrow(vow_promise *p);
vow_promise *vow_stage_swift_string(void);
}

namespace {

/** An exception type of the program's own. */
struct quota_exceeded : std::runtime_error {
    explicit quota_exceeded(int used) : std::runtime_error("quota exceeded"), used(used) {}
    int used;
};

/** Hands p to a Swift function that takes a borrowed handle and returns a +1 one. */
template <class T>
vow::promise<T>
through_swift(vow_promise *(*swift)(vow_promise *), const vow::promise<T> &p)
{
    return vow::promise<T>::adopt(swift(p.handle()));
}

} // namespace

static void
test_values_both_ways()
{
    /* C++ starts, Swift doubles (on its background pool), C++ ends. */
    auto [head, r] = vow::promise<int>::pending();
    auto plus_three = head.then([](int x) { return x + 3; });
    auto doubled = through_swift(vow_stage_double_later, plus_three);
    auto end = doubled.then([](int x) { return x + 3; });
    r.resolve(20);
    CHECK_EQ(bounded(end).get(), (20 + 3) * 2 + 3);

    /* Swift starts, C++ continues: a Swift String, a Swift tuple. */
    auto swift_chain = vow::promise<std::string>::adopt(vow_stage_start(41));
    CHECK_EQ(bounded(swift_chain).get(), std::string("n=42"));
    auto text = vow::promise<std::string>::adopt(vow_stage_swift_string());
    CHECK_EQ(bounded(text.then([](std::string s) { return s.size(); })).get(), std::string("made in Swift").size());
    auto tuple = vow::promise<std::tuple<std::int64_t, std::string, double>>::adopt(vow_stage_tuple());
    auto [i, s, d] = bounded(tuple).get();
    CHECK_EQ(i, 1);
    CHECK_EQ(s, std::string("two"));
    CHECK_EQ(d, 3.5);

    /* C++ values read by Swift: an Int, a tuple (Int, Int). */
    CHECK_EQ(vow_stage_finish(vow::promise<int>::fulfilled(5).then([](int x) { return x * 10; }).handle()), 50);
    auto pair = vow::promise<std::tuple<int, int>>::fulfilled({3, 4});
    CHECK_EQ(vow_stage_sum_pair(pair.handle()), 7);
    auto pair_from_when = vow::when_all(vow::promise<int>::fulfilled(10), vow::promise<int>::fulfilled(20));
    CHECK_EQ(vow_stage_sum_pair(pair_from_when.handle()), 30);
}

static void
test_exception_round_trip_through_swift()
{
    auto [head, r] = vow::promise<int>::pending();
    auto thrown = head.then([](int used) -> int { throw quota_exceeded(used); });
    /* A Swift map that does not run (the error passes through it)... */
    auto mapped = through_swift(vow_stage_double_later, thrown);
    /* ...and a Swift recover that catches it and throws it again. */
    auto rethrown = through_swift(vow_stage_rethrow, mapped);
    auto after = rethrown.then([](int x) { return x + 1; });
    r.resolve(120);
    try {
        bounded(after).get();
        CHECK(!"get() did not throw");
    } catch (const quota_exceeded &e) {
        CHECK_EQ(e.used, 120);
        CHECK_STR(e.what(), "quota exceeded");
    } catch (const std::exception &e) {
        CHECK(!"the exception lost its type in Swift");
        std::fprintf(stderr, "    caught instead: %s\n", e.what());
    }
    /* co_await-free readers see it too: recover with an exception_ptr. */
    auto recovered = after.recover([](std::exception_ptr e) {
        try {
            std::rethrow_exception(e);
        } catch (const quota_exceeded &q) {
            return q.used;
        } catch (...) {
            return -1;
        }
    });
    CHECK_EQ(bounded(recovered).get(), 120);
}

static void
test_vow_error_through_swift()
{
    vow::error original("app.billing", 402, "payment required", vow::value::of(std::string("invoice 7")));
    auto p = vow::promise<int>::rejected(original);
    auto back = through_swift(vow_stage_rethrow, p);
    auto outcome = bounded(back).try_get();
    REQUIRE(!outcome.has_value());
    CHECK_STR(outcome.error().domain(), "app.billing");
    CHECK_EQ(outcome.error().code(), 402);
    CHECK_STR(outcome.error().what(), "payment required");
    CHECK_EQ(outcome.error().payload().get<std::string>(), std::string("invoice 7"));
    CHECK_EQ(outcome.error().handle(), original.handle()); /* the same error object */
}

static void
test_swift_errors_in_cpp()
{
    /* A Swift error arrives as vow::error (domain: its type; code: its raw value)... */
    auto swift_failed = vow::promise<int>::adopt(vow_stage_reject_swift_error());
    auto passed_on = swift_failed.then([](int x) { return x; });
    try {
        bounded(passed_on).get();
        CHECK(!"get() did not throw");
    } catch (const vow::error &e) {
        CHECK_STR(e.domain(), "StageError");
        CHECK_EQ(e.code(), 7);
        CHECK(!e.exception());
    }
    /* ...and back in Swift it is the same Swift error. */
    CHECK_EQ(vow_stage_is_unlucky(passed_on.handle()), 1);
}

static void
test_cancellation_both_ways()
{
    /* Swift's CancellationError is a cancellation in C++. */
    auto swift_cancelled = vow::promise<int>::adopt(vow_stage_reject_cancellation());
    auto outcome = bounded(swift_cancelled.then([](int x) { return x; })).try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is_cancelled());
    /* recover does not see it unless asked. */
    auto skipped = swift_cancelled.recover([](const vow::error &) { return 1; });
    CHECK(bounded(skipped).try_get().error().is_cancelled());
    /* A C++ cancellation is one in Swift. */
    auto [p, r] = vow::promise<int>::pending();
    auto q = p.then([](int x) { return x; });
    q.cancel();
    CHECK_EQ(vow_stage_is_cancellation(q.handle()), 1);
    /* Cancelling after a Swift step travels upstream through it to the C++ head. */
    std::atomic<int> heard{0};
    auto [head, head_r] = vow::promise<int>::pending();
    head_r.on_cancel([&heard] { heard++; });
    auto swift_step = through_swift(vow_stage_double_later, head);
    auto tail = swift_step.then([](int x) { return x; });
    swift_step = vow::promise<int>();
    tail.cancel();
    CHECK(wait_until([&] { return heard.load() == 1; }));
    CHECK(head.is_cancelled());
}

int
main()
{
    return run_all("test_cpp_swift", {
                                          {"values both ways", test_values_both_ways},
                                          {"exception round trip through Swift", test_exception_round_trip_through_swift},
                                          {"vow::error through Swift", test_vow_error_through_swift},
                                          {"Swift errors in C++", test_swift_errors_in_cpp},
                                          {"cancellation both ways", test_cancellation_both_ways},
                                      });
}
