/*
 * test_cpp_coroutines.cpp (C++20): co_await on pending, fulfilled, rejected and
 * cancelled promises (and an empty one); try_await; where the coroutine
 * resumes (the default dispatcher, or the one given with resume_on; inline
 * only with inline_()); resume_on(d) on a promise already settled (or empty),
 * from a thread of the test's own: still on d; a function returning vow::promise<T> as a coroutine
 * (co_return of a value or a promise, an exception escaping it); a stop
 * request through with_stop; a dispatcher that drops the job; long loops of
 * awaits without recursion; every frame freed. In a C++17 build the file checks
 * that the coroutine support is compiled out.
 */
#include "cpp_test.hpp"

#include <optional>
#include <stdexcept>
#include <thread>

using namespace cpp_test;

static void
test_support_matches_the_standard()
{
#if __cplusplus >= 202002L
    CHECK(VOW_HPP_COROUTINES + 0 == 1);
#else
#  ifdef VOW_HPP_COROUTINES
    CHECK(!"VOW_HPP_COROUTINES defined in C++17");
#  else
    CHECK(true);
#  endif
#endif
}

#if VOW_HPP_COROUTINES

namespace {

/* Static initialization runs on the main thread. */
const std::thread::id main_id = std::this_thread::get_id();

std::thread::id
main_thread()
{
    return main_id;
}

struct thrown_here : std::runtime_error {
    thrown_here() : std::runtime_error("thrown in a coroutine") {}
};

vow::promise<int>
add(vow::promise<int> a, vow::promise<int> b)
{
    counted frame_mark; /* freed with the frame */
    int x = co_await a;
    int y = co_await b;
    co_return x + y;
}

/** Awaits p; the error, as the string "error: DOMAIN CODE" (or "cancelled"), else "value: N". */
vow::promise<std::string>
describe(vow::promise<int> p)
{
    try {
        int v = co_await p;
        co_return "value: " + std::to_string(v);
    } catch (const vow::error &e) {
        if (e.is_cancelled()) co_return std::string("cancelled");
        co_return std::string("error: ") + e.domain() + " " + std::to_string(e.code());
    } catch (const std::out_of_range &e) {
        co_return std::string("out_of_range: ") + e.what();
    }
}

vow::promise<void>
fails()
{
    co_await vow::promise<int>::fulfilled(1);
    throw thrown_here();
}

vow::promise<int>
follows(vow::promise<int> p)
{
    co_return p; /* adopted: settles as p settles */
}

/** Whether the coroutine resumes on the main thread after awaiting p (on d, or the default). */
vow::promise<bool>
resumed_on_main(vow::promise<int> p, std::optional<vow::dispatcher> d)
{
    if (d) {
        co_await p.resume_on(*d);
    } else {
        co_await p;
    }
    co_return std::this_thread::get_id() == main_thread();
}

vow::promise<long>
sum_ready(int n)
{
    long total = 0;
    for (int i = 0; i < n; i++) total += co_await vow::promise<int>::fulfilled(1);
    co_return total;
}

} // namespace

static void
test_await_each_state()
{
    /* fulfilled: no suspension */
    CHECK_EQ(bounded(describe(vow::promise<int>::fulfilled(5))).get(), std::string("value: 5"));
    /* pending, resolved from another thread */
    auto [p, r] = vow::promise<int>::pending();
    auto waiting = describe(p);
    CHECK(waiting.is_pending());
    std::thread t([r = r] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        r.resolve(6);
    });
    CHECK_EQ(bounded(waiting).get(), std::string("value: 6"));
    t.join();
    /* rejected, settled before and after the await */
    CHECK_EQ(bounded(describe(vow::promise<int>::rejected(vow::error("app", 3, "no")))).get(), std::string("error: app 3"));
    auto [p2, r2] = vow::promise<int>::pending();
    auto later = describe(p2);
    r2.reject(vow::error("app", 4, "later"));
    CHECK_EQ(bounded(later).get(), std::string("error: app 4"));
    /* a C++ exception arrives as itself */
    auto thrown = vow::promise<int>::fulfilled(1).then([](int) -> int { throw std::out_of_range("at 9"); });
    CHECK_EQ(bounded(describe(thrown)).get(), std::string("out_of_range: at 9"));
    /* cancelled, before and while awaiting */
    auto [p3, r3] = vow::promise<int>::pending();
    p3.cancel();
    CHECK_EQ(bounded(describe(p3)).get(), std::string("cancelled"));
    auto [p4, r4] = vow::promise<int>::pending();
    auto awaiting = describe(p4);
    p4.cancel();
    CHECK_EQ(bounded(awaiting).get(), std::string("cancelled"));
    /* an empty promise */
    CHECK_EQ(bounded(describe(vow::promise<int>())).get(), std::string("error: c++ 2"));
}

static void
test_try_await()
{
    auto run = [](vow::promise<int> p) -> vow::promise<std::string> {
        vow::result<int> r = co_await p.try_await();
        co_return r ? std::to_string(*r) : std::string(r.error().domain());
    };
    CHECK_EQ(bounded(run(vow::promise<int>::fulfilled(1))).get(), std::string("1"));
    CHECK_EQ(bounded(run(vow::promise<int>::rejected(vow::error("x", 1, "y")))).get(), std::string("x"));
    auto [p, r] = vow::promise<int>::pending();
    auto pending = run(p);
    r.resolve(2);
    CHECK_EQ(bounded(pending).get(), std::string("2"));
    auto on_background = [](vow::promise<int> q) -> vow::promise<bool> {
        vow::result<int> got = co_await q.resume_on(vow::dispatcher::background()).try_await();
        co_return !got.has_value() && got.error().is_cancelled();
    };
    auto [p2, r2] = vow::promise<int>::pending();
    auto cancelled = on_background(p2);
    p2.cancel();
    CHECK(bounded(cancelled).get());
}

static void
test_where_coroutines_resume()
{
    /* Default: never on the settling thread. */
    {
        auto [p, r] = vow::promise<int>::pending();
        auto where = resumed_on_main(p, std::nullopt);
        r.resolve(1);
        CHECK(!bounded(where).get());
    }
    /* resume_on(inline_()): inside the settling call, on the settling thread. */
    {
        auto [p, r] = vow::promise<int>::pending();
        auto where = resumed_on_main(p, vow::dispatcher::inline_());
        CHECK(where.is_pending());
        r.resolve(1);
        CHECK(where.is_fulfilled());
        CHECK(where.get());
    }
    /* resume_on(a host loop): only when the host drains, on its thread. */
    {
        host_queue host;
        auto [p, r] = vow::promise<int>::pending();
        auto where = resumed_on_main(p, host.dispatcher());
        r.resolve(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK(where.is_pending());
        CHECK(host.drain() >= 1);
        CHECK(where.is_fulfilled());
        CHECK(where.get());
    }
    /* A dispatcher that drops the job: the coroutine resumes with cancellation. */
    {
        host_queue host;
        auto [p, r] = vow::promise<int>::pending();
        auto awaited = [](vow::promise<int> q, vow::dispatcher d) -> vow::promise<std::string> {
            try {
                co_await q.resume_on(d);
                co_return std::string("resumed normally");
            } catch (const vow::error &e) {
                co_return std::string(e.is_cancelled() ? "cancelled" : "other error");
            }
        }(p, host.dispatcher());
        r.resolve(1);
        CHECK(wait_until([&] { return host.queued() > 0; }));
        CHECK(host.drop_all() >= 1);
        CHECK_EQ(bounded(awaited).get(), std::string("cancelled"));
    }
}

/*
 * co_await p.resume_on(d) resumes on d whatever p's state (issue 35). A thread of the
 * test's own (foreign to the library) starts a coroutine that awaits, with resume_on, a
 * promise settled before the await (fulfilled, rejected) or an empty one: the coroutine
 * must not go on there and then, but only when the host loop d drains, on the draining
 * thread (the main thread here); on the background pool, on a pool thread. With inline_(),
 * a settled promise goes on at once, on the foreign thread, as an inline callback would.
 * (Before: await_ready answered true for a settled promise, so the coroutine went on at
 * once on the foreign thread whatever d was.)
 */
namespace {

struct resumption {
    std::atomic<bool> resumed{false};
    std::thread::id thread;
    std::string outcome;
};

vow::promise<void>
await_on(vow::promise<int> p, vow::dispatcher d, resumption *seen)
{
    vow::result<int> r = co_await p.resume_on(d).try_await();
    seen->thread = std::this_thread::get_id();
    seen->outcome = r ? std::to_string(*r) : std::string("error ") + r.error().domain();
    seen->resumed.store(true);
}

} // namespace

static void
test_resume_on_settled_from_a_foreign_thread()
{
    const std::pair<vow::promise<int>, const char *> cases[] = {
        {vow::promise<int>::fulfilled(7), "7"},
        {vow::promise<int>::rejected(vow::error("app", 1, "settled before the await")), "error app"},
        {vow::promise<int>(), "error c++"},
    };
    for (const auto &[settled, expected] : cases) {
        /* A host loop: the coroutine resumes when the main thread drains it, on the main thread. */
        host_queue host;
        resumption seen;
        vow::promise<void> running;
        std::thread foreign([&, p = settled] {
            running = await_on(p, host.dispatcher(), &seen);
            CHECK(!seen.resumed.load()); /* not on the foreign thread, inside the await */
        });
        foreign.join();
        CHECK(!seen.resumed.load());
        CHECK(running.is_pending());
        CHECK(wait_until([&] { return host.queued() > 0; }));
        CHECK(host.drain() >= 1);
        CHECK(seen.resumed.load());
        CHECK(seen.thread == std::this_thread::get_id());
        CHECK_EQ(seen.outcome, std::string(expected));
        CHECK(bounded(running).is_fulfilled());

        /* The background pool: a pool thread, never the foreign one (which waits until the
           coroutine has resumed, so that its id cannot be reused meanwhile). */
        resumption pooled;
        std::thread::id foreign_id;
        std::thread waiting([&, p = settled] {
            foreign_id = std::this_thread::get_id();
            auto done = await_on(p, vow::dispatcher::background(), &pooled);
            CHECK(wait_until([&] { return pooled.resumed.load(); }));
            CHECK(bounded(done).is_fulfilled());
        });
        waiting.join();
        CHECK(pooled.resumed.load());
        CHECK(pooled.thread != foreign_id);
        CHECK(pooled.thread != std::this_thread::get_id());
        CHECK_EQ(pooled.outcome, std::string(expected));
    }

    /* inline_(): a settled promise goes on at once, on the foreign thread. */
    resumption here;
    std::thread::id foreign_id;
    std::thread at_once([&] {
        foreign_id = std::this_thread::get_id();
        auto done = await_on(vow::promise<int>::fulfilled(3), vow::dispatcher::inline_(), &here);
        CHECK(here.resumed.load());
        CHECK(done.is_fulfilled());
    });
    at_once.join();
    CHECK(here.thread == foreign_id);
    CHECK_EQ(here.outcome, std::string("3"));
}

static void
test_coroutine_promises()
{
    auto [a, ra] = vow::promise<int>::pending();
    auto sum = add(a, vow::promise<int>::fulfilled(2));
    ra.resolve(40);
    CHECK_EQ(bounded(sum).get(), 42);
    /* An exception escaping the coroutine rejects its promise, with its own type. */
    CHECK_THROWS(thrown_here, bounded(fails()).get());
    /* co_return of a promise: adopted. */
    auto [p, r] = vow::promise<int>::pending();
    auto following = follows(p);
    CHECK(following.is_pending());
    r.resolve(7);
    CHECK_EQ(bounded(following).get(), 7);
    /* A coroutine's promise is an ordinary promise: then, when_all, Swift, C. */
    auto both = vow::when_all(add(vow::promise<int>::fulfilled(1), vow::promise<int>::fulfilled(1)), sum);
    CHECK((bounded(both).get() == std::tuple<int, int>(2, 42)));
    /* void coroutines */
    std::atomic<int> steps{0};
    auto walk = [&steps]() -> vow::promise<void> {
        co_await vow::after(std::chrono::milliseconds(1));
        steps++;
        co_await vow::promise<void>::fulfilled();
        steps++;
    };
    bounded(walk()).get();
    CHECK_EQ(steps.load(), 2);
    CHECK(no_live_captures()); /* add's frames are gone */
}

static void
test_cancelling_a_coroutine_promise()
{
    /* The promise settles (cancelled) at once; the body runs on to its co_return, which is ignored. */
    std::atomic<int> reached_end{0};
    auto [p, r] = vow::promise<int>::pending();
    /* No captures: the lambda object is gone before the body resumes; parameters live in the frame. */
    auto running = [](vow::promise<int> q, std::atomic<int> *end) -> vow::promise<int> {
        int v = co_await q.resume_on(vow::dispatcher::inline_());
        (*end)++;
        co_return v;
    }(p, &reached_end);
    running.cancel();
    CHECK(running.is_cancelled());
    CHECK(p.is_pending()); /* the coroutine's awaiting link still waits on p */
    r.resolve(3);
    CHECK_EQ(reached_end.load(), 1);
    CHECK(running.is_cancelled());
}

static void
test_with_stop_in_co_await()
{
    std::stop_source source;
    auto [p, r] = vow::promise<int>::pending();
    std::atomic<int> heard{0};
    r.on_cancel([&heard] { heard++; });
    auto awaiting = [](vow::promise<int> q, std::stop_token token) -> vow::promise<std::string> {
        try {
            co_await q.with_stop(token);
            co_return std::string("value");
        } catch (const vow::error &e) {
            co_return std::string(e.is_cancelled() ? "stopped" : "other");
        }
    }(p, source.get_token());
    CHECK(awaiting.is_pending());
    source.request_stop();
    CHECK_EQ(bounded(awaiting).get(), std::string("stopped"));
    CHECK(wait_until([&] { return heard.load() == 1; }));
}

static void
test_long_loops_do_not_recurse()
{
    /* 100,000 awaits of settled promises in one coroutine: no suspension, no recursion. */
    int n = small() ? 10000 : 100000;
    CHECK_EQ(bounded(sum_ready(n)).get(), static_cast<long>(n));
    /* Chains of coroutines, each awaiting the previous one: resumed one after the other on the
       default queue, and on the inline dispatcher, where each resumption settles the next
       coroutine's promise inside the previous one's (the library runs those in a loop). */
    int links = small() ? 2000 : 100000;
    for (bool inline_mode : {false, true}) {
        auto [head, r] = vow::promise<int>::pending();
        vow::promise<int> tail = head;
        for (int i = 0; i < links; i++) {
            tail = [](vow::promise<int> prev, bool in) -> vow::promise<int> {
                int before = in ? co_await prev.resume_on(vow::dispatcher::inline_()) : co_await prev;
                co_return before + 1;
            }(tail, inline_mode);
        }
        r.resolve(0);
        CHECK_EQ(bounded(tail).get(), links);
    }
}

#endif /* VOW_HPP_COROUTINES */

int
main()
{
    return run_all("test_cpp_coroutines", {
                                               {"support matches the standard", test_support_matches_the_standard},
#if VOW_HPP_COROUTINES
                                               {"await each state", test_await_each_state},
                                               {"try_await", test_try_await},
                                               {"where coroutines resume", test_where_coroutines_resume},
                                               {"resume_on a settled promise from a foreign thread",
                                                test_resume_on_settled_from_a_foreign_thread},
                                               {"coroutine promises", test_coroutine_promises},
                                               {"cancelling a coroutine's promise", test_cancelling_a_coroutine_promise},
                                               {"with_stop in co_await", test_with_stop_in_co_await},
                                               {"long loops do not recurse", test_long_loops_do_not_recurse},
#endif
                                           });
}
