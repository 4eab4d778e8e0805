/*
 * header_strict.cpp: instantiates every template of vow.hpp (each value type, each kind of
 * callback result, every combinator, the coroutine and stop_token parts), so that
 * run-cpp-tests.sh can compile it with strict warnings (-Wpedantic -Wshadow -Wconversion
 * -Wsign-conversion -Wold-style-cast), with and without exceptions, and with
 * VOW_DEBUG_SITES. Compiled only (-fsyntax-only), never run.
 */
#include "vow.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace {

template <class T>
void
every_call(const T &x)
{
    auto [p, r] = vow::promise<T>::pending();
    r.resolve(x);
    r.resolve(p);
    r.reject(vow::error("d", 1, "m"));
    (void)r.is_used();
    (void)r.on_cancel([] {});
    (void)r.on_cancel(vow::dispatcher::inline_(), [] {});
    auto same = p.then([](T v) { return v; });
    auto by_ref = p.then(vow::dispatcher::background(), [](const T &) { return 1; });
    auto as_result = p.then([](T v) { return vow::result<T>(std::move(v)); });
    auto as_promise = p.then([](T v) { return vow::promise<T>::fulfilled(v); });
    auto nothing = p.then([](T) {});
    auto recovered = p.recover([&x](const vow::error &) { return x; });
    auto recovered_on = p.recover(
        vow::dispatcher::default_(), [&x](const vow::error &) { return x; }, vow::catch_policy::all_errors);
    auto cleaned = p.finally([] {});
    (void)p.then([](T v) { return v; }, vow::site("caller.cpp", 1));
    (void)p.finally(vow::dispatcher(), [] {}, vow::site());
    (void)p.timeout(std::chrono::milliseconds(1));
    (void)vow::promise<T>::fulfilled(x).template as<vow::value>();
    (void)vow::promise<T>::rejected(vow::error::cancelled());
    (void)vow::value::of(x).template try_get<T>();
    (void)p.try_get();
    (void)vow::when_all(same, by_ref, as_result, as_promise, nothing, recovered, recovered_on, cleaned);
    (void)vow::when_all(std::vector<vow::promise<T>>{same});
    (void)vow::race(same, as_result);
    (void)vow::any(std::vector<vow::promise<T>>{same});
#if VOW_HPP_EXCEPTIONS
    (void)p.recover([&x](std::exception_ptr) { return x; });
    (void)p.get();
#endif
#if VOW_HPP_STOP_TOKEN
    std::stop_source stop;
    (void)p.then([](T v) { return v; }, stop.get_token());
    (void)p.with_stop(stop.get_token()).try_get(stop.get_token());
#endif
}

#if VOW_HPP_COROUTINES
template <class T>
vow::promise<T>
coroutine(vow::promise<T> p)
{
    T v = co_await p;
    vow::result<T> again = co_await p.try_await();
    (void)again;
    co_await p.resume_on(vow::dispatcher::inline_());
    (void)co_await p.resume_on(vow::dispatcher::background(), vow::site("caller.cpp", 2)).try_await();
    co_return v;
}

vow::promise<void>
void_coroutine(vow::promise<void> p)
{
    co_await p;
    co_return;
}
#endif

} // namespace

int
main()
{
    every_call(true);
    every_call(std::int8_t(1));
    every_call(std::uint16_t(1));
    every_call(1);
    every_call(1u);
    every_call(1L);
    every_call(std::uint64_t(1));
    every_call(1.5f);
    every_call(1.5);
    every_call(std::string("s"));
    every_call(std::vector<std::uint8_t>{1});
    every_call(std::vector<int>{1});
    every_call(std::vector<std::vector<std::string>>{{"a"}});
    every_call(std::tuple<int, std::string, double>{1, "a", 1.0});
    every_call(std::tuple<>());
    every_call(vow::value::null());
    auto [v, vr] = vow::promise<void>::pending();
    vr.resolve();
    (void)v.then([] { return 1; });
    (void)vow::async(vow::dispatcher::background(), [] { return std::string("x"); });
    (void)vow::after(std::chrono::seconds(1));
#if VOW_HPP_COROUTINES
    (void)coroutine(vow::promise<int>::fulfilled(1));
    (void)coroutine(vow::promise<std::string>::fulfilled("x"));
    (void)void_coroutine(vow::promise<void>::fulfilled());
#endif
    return 0;
}
