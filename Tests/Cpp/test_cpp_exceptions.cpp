/*
 * test_cpp_exceptions.cpp: a callback that throws rejects its derived promise. A
 * vow::error keeps domain, code, message and payload; any other exception
 * becomes a "c++" error that keeps the original, which C++ further down the
 * chain catches by its own type, also after a C step that passes the error on;
 * a C error arrives as vow::error; the original exception object is freed with
 * the last reference to its error. (Through Swift: test_cpp_swift.cpp.)
 */
#include "cpp_test.hpp"

#include <stdexcept>

using namespace cpp_test;

namespace {

/** An exception type whose objects are counted (cpp_test::counted). */
struct tracked_error : std::runtime_error {
    explicit tracked_error(const char *what) : std::runtime_error(what) {}
    counted mark;
};

/** A C step: passes the error on as it is (vow_result_throw of the same handle). */
void
c_pass_error(void *, const vow_error *error, vow_result *out)
{
    vow_result_throw(out, error);
}

std::atomic<int> unhandled{0};
std::string unhandled_line;

void
record_unhandled(void *, const vow_error *error)
{
    unhandled_line = std::string(vow_error_domain(error)) + " " + std::to_string(vow_error_code(error)) + ": " +
                     vow_error_message(error);
    unhandled.fetch_add(1);
}

} // namespace

static void
test_vow_error_keeps_everything()
{
    vow::value payload = vow::value::of(std::vector<int>{1, 2});
    auto p = vow::promise<int>::fulfilled(1).then([payload](int) -> int {
        throw vow::error("app.db", 1205, "deadlock found", payload);
    });
    try {
        bounded(p).get();
        CHECK(!"get() did not throw");
    } catch (const vow::error &e) {
        CHECK_STR(e.domain(), "app.db");
        CHECK_EQ(e.code(), 1205);
        CHECK_STR(e.what(), "deadlock found");
        CHECK_EQ(e.payload().handle(), payload.handle());
    }
    /* C sees the same error. */
    vow_error *seen = vow_promise_error(p.handle());
    CHECK_STR(vow_error_domain(seen), "app.db");
    CHECK_EQ(vow_error_code(seen), 1205);
    vow_error_release(seen);
}

static void
test_std_exception_keeps_its_type()
{
    auto p = vow::promise<int>::fulfilled(1).then([](int) -> int { throw std::out_of_range("index 7 of 3"); });
    bounded(p).try_get();
    /* In C: domain "c++", code cxx_exception, what() as the message. */
    vow_error *seen = vow_promise_error(p.handle());
    CHECK_STR(vow_error_domain(seen), "c++");
    CHECK_EQ(vow_error_code(seen), static_cast<std::int64_t>(vow::cxx_exception));
    CHECK_STR(vow_error_message(seen), "index 7 of 3");
    vow_error_release(seen);
    /* Through a C step that passes the error on, then a C++ then that does not run. */
    vow_promise *c_step = vow_then(p.handle(), nullptr, c_pass_error, nullptr, nullptr);
    auto after_c = vow::promise<int>::adopt(c_step).then([](int x) { return x + 1; });
    CHECK_THROWS(std::out_of_range, bounded(after_c).get());
    try {
        after_c.get();
    } catch (const std::out_of_range &e) {
        CHECK_STR(e.what(), "index 7 of 3");
    }
    /* recover sees a vow::error that carries the exception; rethrow() throws the original. */
    auto recovered = after_c.recover([](const vow::error &e) {
        CHECK(e.is(vow::cxx_domain, vow::cxx_exception));
        CHECK(static_cast<bool>(e.exception()));
        try {
            e.rethrow();
        } catch (const std::out_of_range &) {
            return 1;
        } catch (...) {
        }
        return 2;
    });
    CHECK_EQ(bounded(recovered).get(), 1);
    /* recover with a std::exception_ptr gets the original exception. */
    auto by_pointer_int = after_c.recover([](std::exception_ptr e) {
        try {
            std::rethrow_exception(e);
        } catch (const std::out_of_range &) {
            return 10;
        } catch (...) {
            return 20;
        }
    });
    CHECK_EQ(bounded(by_pointer_int).get(), 10);
    /* A vow::error without an exception, seen through an exception_ptr, is the vow::error itself. */
    auto plain = vow::promise<int>::rejected(vow::error("c.lib", 3, "x")).recover([](std::exception_ptr e) {
        try {
            std::rethrow_exception(e);
        } catch (const vow::error &x) {
            return static_cast<int>(x.code());
        }
    });
    CHECK_EQ(bounded(plain).get(), 3);
}

static void
test_anything_thrown()
{
    auto p = vow::promise<int>::fulfilled(1).then([](int) -> int { throw 42; });
    auto outcome = bounded(p).try_get();
    REQUIRE(!outcome.has_value());
    CHECK(outcome.error().is("c++", vow::cxx_exception));
    CHECK_STR(outcome.error().what(), "unknown C++ exception");
    try {
        p.get();
        CHECK(!"get() did not throw");
    } catch (int x) {
        CHECK_EQ(x, 42);
    }
    /* In recover, finally and async too. */
    auto from_recover = vow::promise<int>::rejected(vow::error("a", 1, "b")).recover([](const vow::error &) -> int {
        throw std::invalid_argument("bad recovery");
    });
    CHECK_THROWS(std::invalid_argument, bounded(from_recover).get());
    auto from_async = vow::async(vow::dispatcher::background(), []() -> int { throw std::length_error("long"); });
    CHECK_THROWS(std::length_error, bounded(from_async).get());
}

static void
test_c_errors_arrive_as_vow_error()
{
    vow_error *e = vow_error_new("c.lib", 32, "broken pipe");
    auto p = vow::promise<std::string>::adopt(vow_promise_rejected(e));
    vow_error_release(e);
    try {
        bounded(p).get();
        CHECK(!"get() did not throw");
    } catch (const std::out_of_range &) {
        CHECK(!"a C error must not become another type");
    } catch (const vow::error &x) {
        CHECK_STR(x.domain(), "c.lib");
        CHECK_EQ(x.code(), 32);
        CHECK_STR(x.what(), "broken pipe");
        CHECK(!x.exception());
    }
    /* A "c++" error made elsewhere (not by vow.hpp) is not taken for one with an exception. */
    vow_value *fake_items[2] = {vow_value_pointer(&unhandled, nullptr), vow_value_pointer(&unhandled, nullptr)};
    vow_value *fake_payload = vow_value_list(fake_items, 2);
    vow_error *fake = vow_error_with_payload("c++", vow::cxx_exception, "made in C", fake_payload);
    auto forged = vow::promise<int>::adopt(vow_promise_rejected(fake));
    CHECK_THROWS(vow::error, forged.get());
    vow_value_release(fake_items[0]);
    vow_value_release(fake_items[1]);
    vow_value_release(fake_payload);
    vow_error_release(fake);
}

static void
test_resolver_reject_with_exception()
{
    auto [p, r] = vow::promise<int>::pending();
    CHECK(r.reject(std::make_exception_ptr(std::domain_error("from a producer"))));
    CHECK_THROWS(std::domain_error, bounded(p).get());
    auto direct = vow::promise<int>::rejected(std::make_exception_ptr(std::overflow_error("o")));
    CHECK_THROWS(std::overflow_error, direct.get());
    /* A vow::error as an exception_ptr travels as itself. */
    vow::error original("app", 8, "itself");
    auto same = vow::promise<int>::rejected(std::make_exception_ptr(original));
    CHECK_EQ(same.try_get().error().handle(), original.handle());
    CHECK(!vow::error::from_exception(std::exception_ptr()).handle());
}

static void
test_exception_freed_with_its_error()
{
    {
        auto p = vow::promise<int>::fulfilled(1).then([](int) -> int { throw tracked_error("counted"); });
        auto q = p.then([](int x) { return x; });
        CHECK_THROWS(tracked_error, bounded(q).get());
        CHECK(live() > 0); /* the exception lives in the error's payload */
    }
    flush_default();
    CHECK(no_live_captures());
}

static void
test_unhandled_report()
{
    unhandled.store(0);
    vow_set_unhandled_error_handler(record_unhandled, nullptr, nullptr);
    {
        auto p = vow::promise<int>::fulfilled(1).then([](int) -> int { throw std::runtime_error("nobody looks"); });
        CHECK(wait_until([&] { return p.is_rejected(); })); /* waits without handling */
        CHECK_EQ(unhandled.load(), 0);
    }
    flush_default();
    CHECK(wait_until([] { return unhandled.load() == 1; }));
    CHECK_EQ(unhandled_line, std::string("c++ 1: nobody looks"));
    vow_set_unhandled_error_handler(nullptr, nullptr, nullptr);
}

int
main()
{
    return run_all("test_cpp_exceptions", {
                                               {"vow::error keeps everything", test_vow_error_keeps_everything},
                                               {"std exceptions keep their type", test_std_exception_keeps_its_type},
                                               {"anything thrown", test_anything_thrown},
                                               {"C errors arrive as vow::error", test_c_errors_arrive_as_vow_error},
                                               {"resolver reject with an exception", test_resolver_reject_with_exception},
                                               {"the exception is freed with its error", test_exception_freed_with_its_error},
                                               {"unhandled report", test_unhandled_report},
                                           });
}
