/*
 * cpp_test.hpp: the small harness every C++ test program includes (first).
 *
 * Each Tests/Cpp/test_*.cpp is a standalone program, in the style of the C
 * tests (Tests/C/test_support.h): main runs the file's tests one after the
 * other and ends with the line `RESULT checks=N failures=M` that
 * run-cpp-tests.sh reads; the exit status is non-zero if a check failed.
 *
 *   int main() {
 *       return cpp_test::run_all("test_cpp_values", {
 *           {"integers", test_integers},
 *       });
 *   }
 *
 * Pieces:
 *   CHECK(cond), CHECK_EQ(a, b), CHECK_STR(a, b), CHECK_THROWS(type, expr)
 *       count checks and failures; a failure prints file:line and what was
 *       compared. REQUIRE(cond) returns from the (void) test on failure.
 *   counted
 *       a capture that counts its live copies (cpp_test::live()): once every
 *       chain is done and the default queue flushed, it must be 0, so each
 *       callback's captures were destroyed, and exactly once.
 *   bounded(p), flush_default(), wait_until(pred)
 *       bounded waits: nothing here waits without a limit (10 s, or
 *       VOW_TEST_WAIT seconds); a watchdog ends the program after
 *       VOW_TEST_WATCHDOG seconds (default 110) if a test hangs anyway.
 *   small()
 *       VOW_TEST_SCALE=small (the runner sets it under valgrind).
 *   host_queue
 *       a host loop for vow_dispatcher_new: jobs wait until the test drains
 *       them on its own thread (or drops them); dispatcher() is its vow::dispatcher.
 */
#ifndef VOW_CPP_TEST_HPP
#define VOW_CPP_TEST_HPP

#include "vow.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

namespace cpp_test {

inline std::atomic<long> checks{0};
inline std::atomic<long> failures{0};
inline const char *current = "(setup)";

inline bool
check(bool ok, const char *file, int line, const std::string &what)
{
    checks.fetch_add(1);
    if (ok) return true;
    failures.fetch_add(1);
    std::fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", file, line, current, what.c_str());
    return false;
}

template <class T>
std::string
show(const T &x)
{
    if constexpr (std::is_same_v<T, std::string>) {
        return "\"" + x + "\"";
    } else if constexpr (std::is_convertible_v<const T &, const char *>) {
        const char *s = x;
        return s != nullptr ? "\"" + std::string(s) + "\"" : "(null)";
    } else if constexpr (std::is_enum_v<T>) {
        return std::to_string(static_cast<long long>(x));
    } else if constexpr (std::is_pointer_v<T>) {
        std::ostringstream out;
        out << static_cast<const void *>(x);
        return out.str();
    } else {
        std::ostringstream out;
        out << x;
        return out.str();
    }
}

template <class A, class B>
bool
check_eq(const A &a, const B &b, const char *file, int line, const char *ea, const char *eb)
{
    bool ok = a == b;
    return check(ok, file, line, ok ? "" : std::string(ea) + " == " + eb + " (" + show(a) + " vs " + show(b) + ")");
}

inline bool
check_str(const char *a, const char *b, const char *file, int line, const char *ea, const char *eb)
{
    bool ok = a != nullptr && b != nullptr && std::strcmp(a, b) == 0;
    return check(ok, file, line,
                 ok ? "" : std::string(ea) + " == " + eb + " (\"" + (a ? a : "(null)") + "\" vs \"" + (b ? b : "(null)") + "\")");
}

#define CHECK(cond) ::cpp_test::check(static_cast<bool>(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ(a, b) ::cpp_test::check_eq((a), (b), __FILE__, __LINE__, #a, #b)
#define CHECK_STR(a, b) ::cpp_test::check_str((a), (b), __FILE__, __LINE__, #a, #b)
#define REQUIRE(cond)             \
    do {                          \
        if (!CHECK(cond)) return; \
    } while (0)
/* Checks that expr throws an exception of type type (nothing else). */
#define CHECK_THROWS(type, expr)                                                                     \
    do {                                                                                             \
        bool thrown_as_expected_ = false;                                                            \
        try {                                                                                        \
            (void)(expr);                                                                            \
        } catch (const type &) {                                                                     \
            thrown_as_expected_ = true;                                                              \
        } catch (...) {                                                                              \
        }                                                                                            \
        ::cpp_test::check(thrown_as_expected_, __FILE__, __LINE__, #expr " throws " #type);         \
    } while (0)

/* ---- scale and time ------------------------------------------------------------------- */

inline bool
small()
{
    const char *s = std::getenv("VOW_TEST_SCALE");
    return s != nullptr && std::strcmp(s, "small") == 0;
}

inline double
wait_seconds()
{
    const char *s = std::getenv("VOW_TEST_WAIT");
    return s != nullptr && std::atof(s) > 0 ? std::atof(s) : 10.0;
}

/**
 * p, once settled: waits (vow_wait) at most the harness bound, and fails a check
 * if p is still pending then (a get() after that would hang until the watchdog).
 * Not p.timeout(...): a time-out's timer keeps its promise until it fires.
 */
template <class T>
vow::promise<T>
bounded(const vow::promise<T> &p)
{
    vow_state s = p ? vow_wait(p.handle(), wait_seconds(), nullptr, nullptr) : VOW_STATE_INVALID;
    check(s != VOW_PENDING && s != VOW_DEADLOCK, __FILE__, __LINE__, "the promise settled within the wait bound");
    return p;
}

/** Polls pred every millisecond until it holds or the bound passes. */
template <class Pred>
bool
wait_until(Pred pred)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_seconds());
    while (!pred()) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

/** Runs two empty jobs through the default dispatcher (serial, in order) and waits for them. */
inline void
flush_default()
{
    for (int i = 0; i < 2; i++) {
        auto done = vow::async(vow::dispatcher::default_(), [] {});
        CHECK(done.try_get().has_value());
    }
}

/* ---- lifetimes --------------------------------------------------------------------------- */

inline std::atomic<long> live_counted{0};

/** A capture that counts its live copies; see the top of this file. */
struct counted {
    counted() noexcept { live_counted.fetch_add(1); }
    counted(const counted &) noexcept { live_counted.fetch_add(1); }
    counted(counted &&) noexcept { live_counted.fetch_add(1); }
    counted &operator=(const counted &) = default;
    counted &operator=(counted &&) = default;
    ~counted() { live_counted.fetch_sub(1); }
};

inline long
live()
{
    return live_counted.load();
}

/** Waits (bounded) until every counted capture is gone. */
inline bool
no_live_captures()
{
    return wait_until([] { return live() == 0; });
}

/* ---- a host loop ------------------------------------------------------------------------ */

/** A host loop: submitted jobs are queued until drain() runs them or drop_all() drops them. */
class host_queue {
public:
    host_queue()
        : dispatcher_(vow::dispatcher::adopt(vow_dispatcher_new(&submit, this, &destroyed)))
    {
    }
    host_queue(const host_queue &) = delete;
    host_queue &operator=(const host_queue &) = delete;
    ~host_queue()
    {
        drop_all();
        dispatcher_ = vow::dispatcher::inline_(); /* drops this queue's reference */
        CHECK(wait_until([this] { return gone_.load(); }));
    }

    const vow::dispatcher &dispatcher() const noexcept { return dispatcher_; }

    /** Runs the queued jobs (and the ones they queue) on this thread; returns how many ran. */
    int drain()
    {
        int ran = 0;
        for (;;) {
            std::pair<vow_job, void *> next;
            {
                std::lock_guard<std::mutex> hold(lock_);
                if (jobs_.empty()) return ran;
                next = jobs_.front();
                jobs_.pop_front();
            }
            next.first(next.second);
            ran++;
        }
    }
    /** Drops every queued job (vow_job_drop); returns how many. */
    int drop_all()
    {
        int dropped = 0;
        for (;;) {
            void *job = nullptr;
            {
                std::lock_guard<std::mutex> hold(lock_);
                if (jobs_.empty()) return dropped;
                job = jobs_.front().second;
                jobs_.pop_front();
            }
            vow_job_drop(job);
            dropped++;
        }
    }
    std::size_t queued()
    {
        std::lock_guard<std::mutex> hold(lock_);
        return jobs_.size();
    }

private:
    static void submit(void *ctx, vow_job run, void *job)
    {
        auto *self = static_cast<host_queue *>(ctx);
        std::lock_guard<std::mutex> hold(self->lock_);
        self->jobs_.emplace_back(run, job);
    }
    static void destroyed(void *ctx) { static_cast<host_queue *>(ctx)->gone_.store(true); }

    std::mutex lock_;
    std::deque<std::pair<vow_job, void *>> jobs_;
    std::atomic<bool> gone_{false};
    vow::dispatcher dispatcher_;
};

/* ---- running -------------------------------------------------------------------------------- */

using test_fn = void (*)();

inline int
run_all(const char *program, std::initializer_list<std::pair<const char *, test_fn>> tests)
{
    const char *w = std::getenv("VOW_TEST_WATCHDOG");
    double watchdog = w != nullptr && std::atof(w) > 0 ? std::atof(w) : 110.0;
    std::thread([watchdog, program] {
        std::this_thread::sleep_for(std::chrono::duration<double>(watchdog));
        std::fprintf(stderr, "%s: watchdog: still running after %.0f s (in %s)\n", program, watchdog, current);
        std::fflush(stderr);
        std::_Exit(3);
    }).detach();
    for (const auto &test : tests) {
        current = test.first;
        long before = failures.load();
        test.second();
        std::printf("%s %s\n", failures.load() == before ? "ok  " : "FAIL", test.first);
        std::fflush(stdout);
    }
    current = "(end)";
    std::printf("RESULT checks=%ld failures=%ld\n", checks.load(), failures.load());
    return failures.load() == 0 ? 0 : 1;
}

} // namespace cpp_test

#endif /* VOW_CPP_TEST_HPP */
