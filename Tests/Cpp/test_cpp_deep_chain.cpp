/*
 * test_cpp_deep_chain.cpp: a chain of 1,000,000 then links built from C++ on a
 * pending promise settles when its head is resolved, and a chain of 1,000,000
 * links dropped unresolved is freed, both without recursion: no C++
 * destructor recurses (each vow::promise releases one handle; the library
 * frees the chain in a loop). With captures on the heap (each link's lambda
 * holds a counted object and a shared_ptr) every capture is destroyed exactly
 * once. The main thread's stack is not needed: the chains are also built and
 * settled from a thread with a 256 KB stack. VOW_TEST_SCALE=small (valgrind):
 * 10,000 links.
 */
#include "cpp_test.hpp"

#include <memory>
#include <pthread.h>

using namespace cpp_test;

namespace {

int
links()
{
    return small() ? 10000 : 1000000;
}

/** Runs f on a new thread with a stack of the given size; false if the thread could not start. */
template <class F>
bool
on_small_stack(std::size_t stack_bytes, F f)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    pthread_t thread;
    auto *task = new F(std::move(f));
    int rc = pthread_create(
        &thread, &attr,
        [](void *arg) -> void * {
            std::unique_ptr<F> run(static_cast<F *>(arg));
            (*run)();
            return nullptr;
        },
        task);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        delete task;
        return false;
    }
    pthread_join(thread, nullptr);
    return true;
}

} // namespace

static void
test_deep_chain_settles()
{
    const int n = links();
    std::atomic<long> calls{0};
    for (bool inline_mode : {false, true}) {
        calls = 0;
        auto [head, r] = vow::promise<long>::pending();
        vow::promise<long> p = head;
        const vow::dispatcher d = inline_mode ? vow::dispatcher::inline_() : vow::dispatcher::default_();
        for (int i = 0; i < n; i++) {
            p = p.then(d, [&calls](long x) {
                calls.fetch_add(1, std::memory_order_relaxed);
                return x + 1;
            });
        }
        CHECK(p.is_pending());
        r.resolve(0);
        auto outcome = bounded(p).try_get();
        REQUIRE(outcome.has_value());
        CHECK_EQ(*outcome, static_cast<long>(n));
        CHECK_EQ(calls.load(), static_cast<long>(n));
    }
}

static void
test_deep_chain_with_heap_captures()
{
    const int n = links();
    auto shared = std::make_shared<int>(1);
    {
        auto [head, r] = vow::promise<int>::pending();
        vow::promise<int> p = head;
        for (int i = 0; i < n; i++) p = p.then([shared, c = counted()](int x) { return x + *shared; });
        CHECK_EQ(live(), static_cast<long>(n));
        r.resolve(0);
        CHECK_EQ(bounded(p).get(), n);
    }
    CHECK(no_live_captures());
    CHECK_EQ(shared.use_count(), 1L);
}

static void
test_deep_chain_dropped_unresolved()
{
    const int n = links();
    {
        auto [head, r] = vow::promise<int>::pending();
        vow::promise<int> p = head;
        for (int i = 0; i < n; i++) p = p.then([c = counted()](int x) { return x; });
        CHECK_EQ(live(), static_cast<long>(n));
        /* Dropping the head's resolver breaks the chain: the error passes down every link. */
        r = vow::resolver<int>();
        auto outcome = bounded(p).try_get();
        REQUIRE(!outcome.has_value());
        CHECK(outcome.error().is("vow", VOW_ERROR_BROKEN));
    }
    CHECK(no_live_captures());
    {
        /* Every promise of the chain dropped while pending: the head (held by its resolver)
           keeps the million links; settling it runs them and frees them, in a loop. */
        vow::resolver<int> keep;
        {
            auto [head, r] = vow::promise<int>::pending();
            keep = r;
            vow::promise<int> p = head;
            for (int i = 0; i < n; i++) p = p.then([c = counted()](int x) { return x; });
        }
        CHECK_EQ(live(), static_cast<long>(n));
        keep.reject(vow::error("test", 1, "dropped"));
        keep = vow::resolver<int>();
    }
    CHECK(no_live_captures());
}

static void
test_on_a_small_stack()
{
    const int n = links();
    long result = -1;
    bool started = on_small_stack(256 * 1024, [n, &result] {
        auto [head, r] = vow::promise<int>::pending();
        vow::promise<int> p = head;
        const vow::dispatcher d = vow::dispatcher::inline_();
        for (int i = 0; i < n; i++) p = p.then(d, [](int x) { return x + 1; });
        r.resolve(0); /* inline: the whole chain settles inside this call, on this stack */
        result = p.is_fulfilled() ? p.get() : -2;
        /* and a chain dropped here */
        auto [head2, r2] = vow::promise<int>::pending();
        vow::promise<int> q = head2;
        for (int i = 0; i < n; i++) q = q.then(d, [c = counted()](int x) { return x; });
    });
    REQUIRE(started);
    CHECK_EQ(result, static_cast<long>(n));
    CHECK(no_live_captures());
}

int
main()
{
    return run_all("test_cpp_deep_chain", {
                                               {"a deep chain settles", test_deep_chain_settles},
                                               {"a deep chain with heap captures", test_deep_chain_with_heap_captures},
                                               {"a deep chain dropped unresolved", test_deep_chain_dropped_unresolved},
                                               {"on a small stack", test_on_a_small_stack},
                                           });
}
