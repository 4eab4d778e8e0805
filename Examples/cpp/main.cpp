// main.cpp: a C++ program and a Swift component (prices.swift) share one chain through
// vow.hpp, the C++ face of Vow. C++20 (for co_await and std::stop_token); built and run by
// Examples/run-examples.sh:
//
//   g++ -std=c++20 -I include -I Examples/cpp Examples/cpp/main.cpp -L . -lprices -L $BIN -lvow
//
// [1] C++ starts a chain, Swift prices the symbols on its background pool, C++ sums them.
// [2] A C++ exception crosses a Swift step (which catches and rethrows it) and C++ further
//     down catches it by its own type.
// [3] A Swift error arrives in C++ as a vow::error.
// [4] A coroutine co_awaits the Swift promise.
// [5] A stop request on a std::stop_token cancels a Swift producer that is still working.
#include "prices.h"

#include <vow.hpp>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using symbols = std::vector<std::string>;

// An exception type of the program's own: Swift never sees its type, only an error in
// domain "c++" that carries it, and gives it back unchanged.
struct budget_exceeded : std::runtime_error {
    budget_exceeded(double limit, double cost) : std::runtime_error("budget exceeded"), limit(limit), cost(cost) {}
    double limit;
    double cost;
};

// The Swift component's functions take and return C handles; these two lines make them typed.
static vow::promise<std::vector<double>>
prices_of(const vow::promise<symbols> &names)
{
    return vow::promise<std::vector<double>>::adopt(quote_prices(names.handle()));
}

static vow::promise<double>
audited(const vow::promise<double> &order)
{
    return vow::promise<double>::adopt(quote_audit(order.handle()));
}

// A coroutine: awaits the Swift promise (resuming on Vow's default queue) and returns a promise.
static vow::promise<double>
portfolio_value(symbols names, std::vector<int> shares)
{
    std::vector<double> prices = co_await prices_of(vow::promise<symbols>::fulfilled(names));
    double value = 0;
    for (std::size_t i = 0; i < prices.size(); i++) value += prices[i] * shares[i];
    co_return value;
}

int
main()
{
    // [1] The symbols come later: the Swift step is chained before they are known.
    auto [names, names_resolver] = vow::promise<symbols>::pending();
    vow::promise<double> total = prices_of(names).then([](const std::vector<double> &prices) {
        return std::accumulate(prices.begin(), prices.end(), 0.0);
    });
    names_resolver.resolve(symbols{"ACME", "GLOBEX", "INITECH"});
    std::printf("[1] ACME + GLOBEX + INITECH cost %.2f (priced in Swift, summed in C++)\n", total.get());

    // [2] The order step throws a C++ exception; the Swift audit step catches and rethrows it.
    vow::promise<double> order = total.then([](double cost) -> double {
        if (cost > 50) throw budget_exceeded(50, cost);
        return cost;
    });
    try {
        audited(order).get();
        std::printf("[2] the order went through (not expected)\n");
    } catch (const budget_exceeded &e) {
        std::printf("[2] caught budget_exceeded after the Swift step: %.2f is over the limit of %.2f\n", e.cost,
                    e.limit);
    }
    std::printf("    the Swift audit step saw %lld error\n", static_cast<long long>(quote_count(0)));

    // [3] An unknown symbol: the Swift error, read without an exception this time.
    vow::result<std::vector<double>> outcome = prices_of(vow::promise<symbols>::fulfilled({"ACME", "NOPE"})).try_get();
    if (!outcome) std::printf("[3] %s: %s\n", outcome.error().domain(), outcome.error().what());

    // [4] A coroutine.
    std::printf("[4] a coroutine awaited the Swift prices: 10 UMBRELLA + 4 ACME are worth %.2f\n",
                portfolio_value({"UMBRELLA", "ACME"}, {10, 4}).get());

    // [5] A live quote that takes 30 s; the program stops waiting after 50 ms.
    std::stop_source stop;
    vow::promise<double> live = vow::promise<double>::adopt(quote_live("ACME", 30.0));
    std::jthread stopper([&stop] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        stop.request_stop();
    });
    try {
        live.get(stop.get_token());
        std::printf("[5] the live quote arrived (not expected)\n");
    } catch (const vow::error &e) {
        std::printf("[5] stopped waiting for the live quote: %s\n", e.is_cancelled() ? "cancelled" : e.what());
    }
    // The cancellation travelled up to the Swift producer (its handler runs on Vow's queue).
    for (int i = 0; i < 4000 && quote_count(1) == 0; i++) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::printf("    the Swift producer heard the cancellation: %s\n", quote_count(1) == 1 ? "yes" : "no");

    bool ok = quote_count(0) == 1 && quote_count(1) == 1 && live.is_cancelled();
    std::printf("cpp example: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
