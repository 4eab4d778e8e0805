/*
 * test_cpp_chaining.cpp: then, recover, finally and async: what each callback may
 * return (a value, a promise that is adopted, a result, nothing), where it runs
 * (the default dispatcher unless one is given; inline only with inline_()),
 * in which order, and that its captures are destroyed exactly once whatever
 * happens (ran, skipped by an error, cancelled, source broken).
 */
#include "cpp_test.hpp"

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace cpp_test;

namespace {

std::thread::id
main_thread()
{
    static const std::thread::id id = std::this_thread::get_id();
    return id;
}

int
add_one(int x)
{
    return x + 1;
}

} // namespace

static void
test_then_results()
{
    {
        auto [p, r] = vow::promise<int>::pending();
        auto q = p.then([c = counted()](int x) { return x * 2; })
                     .then([](int x) { return std::to_string(x); })
                     .then([](const std::string &s) { return s + "!"; });
        r.resolve(21);
        CHECK_EQ(bounded(q).get(), std::string("42!"));
    }
    /* A returned promise is adopted: the derived promise follows it. */
    {
        vow::resolver<int> later;
        auto [p, r] = vow::promise<int>::pending();
        auto [step, step_r] = vow::promise<int>::pending();
        auto q = p.then([step = step](int) { return step; });
        static_assert(std::is_same_v<decltype(q), vow::promise<int>>);
        r.resolve(1);
        flush_default();
        CHECK(q.is_pending());
        std::thread t([r2 = step_r] { r2.resolve(77); });
        t.join();
        CHECK_EQ(bounded(q).get(), 77);
    }
    /* An empty returned promise (a step that could not start) rejects, naming vow_result_adopt. */
    {
        auto q = vow::promise<int>::fulfilled(1).then([](int) { return vow::promise<int>(); });
        auto outcome = bounded(q).try_get();
        REQUIRE(!outcome.has_value());
        CHECK(outcome.error().is("vow", VOW_ERROR_TYPE));
    }
    /* A result<U>: its value, or its error, without throwing. */
    {
        auto ok = vow::promise<int>::fulfilled(2).then([](int x) { return vow::result<int>(x + 3); });
        CHECK_EQ(bounded(ok).get(), 5);
        auto bad = vow::promise<int>::fulfilled(2).then(
            [](int) { return vow::result<std::string>(vow::error("app", 9, "refused")); });
        static_assert(std::is_same_v<decltype(bad), vow::promise<std::string>>);
        auto outcome = bounded(bad).try_get();
        REQUIRE(!outcome.has_value());
        CHECK(outcome.error().is("app", 9));
        auto fine_void = vow::promise<int>::fulfilled(2).then([](int) { return vow::result<void>(); });
        CHECK(bounded(fine_void).try_get().has_value());
    }
    /* then on a promise<void>: f takes nothing. */
    {
        auto [p, r] = vow::promise<void>::pending();
        auto q = p.then([] { return 5; });
        r.resolve();
        CHECK_EQ(bounded(q).get(), 5);
    }
    /* A function pointer, a mutable lambda, a move-only capture. */
    {
        auto fp = vow::promise<int>::fulfilled(1).then(&add_one).then(add_one);
        CHECK_EQ(bounded(fp).get(), 3);
        auto mut = vow::promise<int>::fulfilled(1).then([n = 10](int x) mutable {
            n += x;
            return n;
        });
        CHECK_EQ(bounded(mut).get(), 11);
        auto owned = std::make_unique<int>(40);
        auto mo = vow::promise<int>::fulfilled(2).then([o = std::move(owned)](int x) { return *o + x; });
        CHECK_EQ(bounded(mo).get(), 42);
    }
    CHECK(no_live_captures());
}

static void
test_errors_pass_through_then()
{
    std::atomic<int> ran{0};
    auto p = vow::promise<int>::rejected(vow::error("app", 4, "no input"));
    auto q = p.then([&ran, c = counted()](int x) {
        ran++;
        return x;
    });
    auto outcome = bounded(q).try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("app", 4));
    CHECK_EQ(outcome.error().handle(), p.try_get().error().handle()); /* the same error */
    CHECK_EQ(ran.load(), 0);
    CHECK(no_live_captures());
}

static void
test_recover()
{
    auto failed = vow::promise<int>::rejected(vow::error("app", 5, "lost"));
    auto value = failed.recover([c = counted()](const vow::error &e) { return static_cast<int>(e.code()) * 10; });
    CHECK_EQ(bounded(value).get(), 50);

    auto [step, step_r] = vow::promise<int>::pending();
    auto adopted = failed.recover([step = step](const vow::error &) { return step; });
    step_r.resolve(6);
    CHECK_EQ(bounded(adopted).get(), 6);

    auto as_result = failed.recover([](const vow::error &e) { return vow::result<int>(e); });
    CHECK(bounded(as_result).try_get().error().is("app", 5));

    /* A conversion to T: an int result for a promise<double>. */
    auto widened = vow::promise<double>::rejected(vow::error("app", 1, "x")).recover([](const vow::error &) { return 2; });
    CHECK_EQ(bounded(widened).get(), 2.0);

    /* A fulfilled promise passes through; recover on promise<void> returns nothing. */
    std::atomic<int> ran{0};
    auto untouched = vow::promise<int>::fulfilled(8).recover([&ran](const vow::error &) {
        ran++;
        return 0;
    });
    CHECK_EQ(bounded(untouched).get(), 8);
    CHECK_EQ(ran.load(), 0);
    auto void_recovered = vow::promise<void>::rejected(vow::error("app", 2, "y")).recover([](const vow::error &) {});
    CHECK(bounded(void_recovered).try_get().has_value());

    /* Cancellation: skipped unless asked (catch_policy::all_errors). */
    auto cancelled = vow::promise<int>::rejected(vow::error::cancelled());
    auto skipped = cancelled.recover([](const vow::error &) { return 1; });
    auto skipped_outcome = bounded(skipped).try_get();
    REQUIRE(!skipped_outcome.has_value());
    CHECK(skipped_outcome.error().is_cancelled());
    auto seen = cancelled.recover([](const vow::error &e) { return e.is_cancelled() ? 2 : 3; }, vow::catch_policy::all_errors);
    CHECK_EQ(bounded(seen).get(), 2);
    auto seen_on = cancelled.recover(
        vow::dispatcher::background(), [](const vow::error &) { return 4; }, vow::catch_policy::all_errors);
    CHECK_EQ(bounded(seen_on).get(), 4);
    CHECK(no_live_captures());
}

static void
test_finally()
{
    std::atomic<int> runs{0};
    auto ok = vow::promise<int>::fulfilled(3).finally([&runs, c = counted()] { runs++; });
    CHECK_EQ(bounded(ok).get(), 3);
    vow::error reason("app", 7, "failed");
    auto bad = vow::promise<int>::rejected(reason).finally([&runs] { runs++; });
    auto outcome = bounded(bad).try_get();
    REQUIRE(!outcome.has_value());
    CHECK_EQ(outcome.error().handle(), reason.handle());
    CHECK_EQ(runs.load(), 2);

    /* Cancelling the promise finally made: nothing else waits on the source, so the
       cancellation travels up to it, it settles, and f runs (inline: inside cancel). */
    auto [p, r] = vow::promise<int>::pending();
    auto cleanup = p.finally(vow::dispatcher::inline_(), [&runs] { runs++; });
    cleanup.cancel();
    CHECK(cleanup.is_cancelled());
    CHECK(p.is_cancelled());
    CHECK_EQ(runs.load(), 3);
    /* With another dependent the source keeps running, and f still runs once it settles. */
    auto [p2, r2] = vow::promise<int>::pending();
    auto other = p2.then([](int x) { return x; });
    auto cleanup2 = p2.finally(vow::dispatcher::inline_(), [&runs] { runs++; });
    cleanup2.cancel();
    CHECK(cleanup2.is_cancelled());
    CHECK(p2.is_pending());
    CHECK_EQ(runs.load(), 3);
    r2.resolve(1);
    CHECK_EQ(runs.load(), 4); /* inline: inside resolve */
    CHECK_EQ(bounded(other).get(), 1);
    CHECK(no_live_captures());
}

static void
test_where_callbacks_run()
{
    const std::thread::id me = main_thread();
    std::atomic<int> calls{0};
    std::thread::id seen;
    std::mutex seen_lock;
    auto record = [&](int x) {
        std::lock_guard<std::mutex> hold(seen_lock);
        seen = std::this_thread::get_id();
        calls++;
        return x;
    };
    auto seen_thread = [&] {
        std::lock_guard<std::mutex> hold(seen_lock);
        return seen;
    };

    /* The default dispatcher: never on the registering or settling thread. */
    {
        auto [p, r] = vow::promise<int>::pending();
        auto q = p.then(record);
        r.resolve(1);
        bounded(q).get();
        CHECK(seen_thread() != me);
        auto on_settled = vow::promise<int>::fulfilled(2).then(record);
        bounded(on_settled).get();
        CHECK(seen_thread() != me);
        auto explicit_default = vow::promise<int>::fulfilled(3).then(vow::dispatcher::default_(), record);
        bounded(explicit_default).get();
        CHECK(seen_thread() != me);
    }
    /* inline_(): inside the settling call, or inside then when already settled. */
    {
        calls = 0;
        auto [p, r] = vow::promise<int>::pending();
        auto q = p.then(vow::dispatcher::inline_(), record);
        CHECK_EQ(calls.load(), 0);
        r.resolve(1);
        CHECK_EQ(calls.load(), 1);
        CHECK(seen_thread() == me);
        auto now = vow::promise<int>::fulfilled(2).then(vow::dispatcher::inline_(), record);
        CHECK_EQ(calls.load(), 2);
        CHECK(now.is_fulfilled());
    }
    /* background(): the pool, not this thread. */
    {
        auto q = vow::promise<int>::fulfilled(1).then(vow::dispatcher::background(), record);
        bounded(q).get();
        CHECK(seen_thread() != me);
    }
    /* A host's loop: nothing runs until the host drains it, then on the host's thread. */
    {
        host_queue host;
        calls = 0;
        auto [p, r] = vow::promise<int>::pending();
        auto q = p.then(host.dispatcher(), record);
        r.resolve(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK_EQ(calls.load(), 0);
        CHECK(host.drain() >= 1);
        CHECK_EQ(calls.load(), 1);
        CHECK(seen_thread() == me);
        CHECK(q.is_fulfilled());

        /* set_default: then(f) without a dispatcher now runs on the host; reset_default restores. */
        vow::dispatcher::set_default(host.dispatcher());
        auto [p2, r2] = vow::promise<int>::pending();
        auto q2 = p2.then(record);
        vow::dispatcher::reset_default();
        r2.resolve(2);
        CHECK_EQ(calls.load(), 1);
        CHECK(host.drain() >= 1);
        CHECK_EQ(calls.load(), 2);
        CHECK(q2.is_fulfilled());
        auto q3 = vow::promise<int>::fulfilled(3).then(record);
        bounded(q3).get();
        CHECK(seen_thread() != me);
    }
}

static void
test_attach_order()
{
    auto [p, r] = vow::promise<int>::pending();
    std::vector<int> order;
    std::mutex lock;
    std::vector<vow::promise<void>> links;
    for (int i = 0; i < 100; i++) {
        links.push_back(p.then([i, &order, &lock](int) {
            std::lock_guard<std::mutex> hold(lock);
            order.push_back(i);
        }));
    }
    r.resolve(0);
    bounded(vow::when_all(links)).get();
    std::lock_guard<std::mutex> hold(lock);
    REQUIRE(order.size() == 100);
    bool in_order = true;
    for (int i = 0; i < 100; i++) in_order = in_order && order[static_cast<std::size_t>(i)] == i;
    CHECK(in_order);
}

static void
test_captures_destroyed_once()
{
    /* Each way a callback can end: ran, skipped by an error, its promise cancelled, its source broken. */
    {
        auto [p, r] = vow::promise<int>::pending();
        auto ran = p.then([c = counted()](int x) { return x; });
        auto skipped = vow::promise<int>::rejected(vow::error("a", 1, "b")).then([c = counted()](int x) { return x; });
        auto [p2, r2] = vow::promise<int>::pending();
        auto cancelled = p2.then([c = counted()](int x) { return x; });
        cancelled.cancel();
        auto [p3, r3] = vow::promise<int>::pending();
        auto broken = p3.then([c = counted()](int x) { return x; });
        auto recovered = p3.recover([c = counted()](const vow::error &) { return 0; });
        auto finally = p3.finally([c = counted()] {});
        CHECK(live() > 0);
        r3 = vow::resolver<int>(); /* the last reference: p3 breaks */
        r.resolve(1);
        bounded(ran).get();
        bounded(skipped).try_get();
        bounded(broken).try_get();
        bounded(recovered).try_get();
        bounded(finally).try_get();
        CHECK(broken.try_get().error().is("vow", VOW_ERROR_BROKEN));
        CHECK_EQ(recovered.get(), 0);
        r2.resolve(5); /* too late for the cancelled link */
    }
    CHECK(no_live_captures());
    /* A dispatcher that drops the job: the callback never runs, its captures go, the promise is cancelled. */
    {
        host_queue host;
        std::atomic<int> ran{0};
        auto q = vow::promise<int>::fulfilled(1).then(host.dispatcher(), [&ran, c = counted()](int x) {
            ran++;
            return x;
        });
        CHECK(wait_until([&] { return host.queued() > 0; }));
        CHECK_EQ(host.drop_all(), 1);
        CHECK(q.is_cancelled());
        CHECK_EQ(ran.load(), 0);
        CHECK_EQ(live(), 0);
    }
}

static void
test_async()
{
    auto n = vow::async(vow::dispatcher::background(), [] { return 6 * 7; });
    CHECK_EQ(bounded(n).get(), 42);
    std::atomic<int> ran{0};
    auto v = vow::async(vow::dispatcher::default_(), [&ran] { ran++; });
    static_assert(std::is_same_v<decltype(v), vow::promise<void>>);
    bounded(v).get();
    CHECK_EQ(ran.load(), 1);
    auto adopted = vow::async(vow::dispatcher::inline_(), [] { return vow::promise<std::string>::fulfilled("x"); });
    CHECK_EQ(bounded(adopted).get(), std::string("x"));
    auto thrown = vow::async(vow::dispatcher::background(), []() -> int { throw vow::error("async", 1, "no"); });
    CHECK(bounded(thrown).try_get().error().is("async", 1));
}

static void
test_many_threads_chain_at_once()
{
    /* Four threads build, resolve and read chains on shared sources at the same time. */
    auto [shared, shared_r] = vow::promise<int>::pending();
    std::atomic<int> sum{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&sum, shared = shared, t] {
            for (int i = 0; i < 200; i++) {
                auto [p, r] = vow::promise<int>::pending();
                auto q = vow::when_all(p.then([](int x) { return x + 1; }), shared)
                             .then([](std::tuple<int, int> both) { return std::get<0>(both) + std::get<1>(both); });
                r.resolve(t);
                if (i == 199) sum += bounded(q).get();
            }
        });
    }
    shared_r.resolve(100);
    for (auto &th : threads) th.join();
    CHECK_EQ(sum.load(), (1 + 100) + (2 + 100) + (3 + 100) + (4 + 100));
}

static void
test_get_inside_a_callback_does_not_hang()
{
    /* get() on the default queue for work queued behind this very callback: an error at once. */
    auto q = vow::promise<int>::fulfilled(1).then([](int) {
        auto inner = vow::promise<int>::fulfilled(2).then([](int x) { return x; });
        auto got = inner.try_get();
        if (got.has_value()) return 0;
        return got.error().is("vow", VOW_ERROR_DEADLOCK) ? 1 : 2;
    });
    CHECK_EQ(bounded(q).get(), 1);
}

int
main()
{
    (void)main_thread();
    return run_all("test_cpp_chaining", {
                                             {"then results", test_then_results},
                                             {"errors pass through then", test_errors_pass_through_then},
                                             {"recover", test_recover},
                                             {"finally", test_finally},
                                             {"where callbacks run", test_where_callbacks_run},
                                             {"attach order", test_attach_order},
                                             {"captures destroyed once", test_captures_destroyed_once},
                                             {"async", test_async},
                                             {"many threads at once", test_many_threads_chain_at_once},
                                             {"get inside a callback does not hang", test_get_inside_a_callback_does_not_hang},
                                         });
}
