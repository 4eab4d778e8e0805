/*
 * test_cpp_sites.cpp: debug mode from C++ (issue 35). Compiled with VOW_DEBUG_SITES, so every
 * vow.hpp call that makes a promise passes its caller's file and line (std::source_location in
 * C++20, __builtin_FILE/__builtin_LINE in C++17) to vow.h's _site twin, with no macro around
 * the C++ calls: the census (vow_debug_dump_pending) and the unhandled-error handler
 * (vow_unhandled_site) read this file's lines, never a line of vow.hpp or of its parts. Also:
 * a site passed on by hand (a wrapper's caller), the coroutine's own site for its promise and
 * for the link of a plain co_await, the "C" of the variadic combinators.
 */
#define VOW_DEBUG_SITES
#include "cpp_test.hpp"

#include <cstdio>
#include <string>

using namespace cpp_test;

namespace {

/* "THIS_FILE:line", as the library records a site. */
std::string
here(int line)
{
    return std::string(__FILE__) + ":" + std::to_string(line);
}

/* What vow_debug_dump_pending writes now. */
std::string
census()
{
    std::FILE *f = std::tmpfile();
    if (f == nullptr) std::abort();
    vow_debug_dump_pending(f);
    std::string text;
    std::rewind(f);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
    return text;
}

/* How many lines of text contain needle. */
int
lines_with(const std::string &text, const std::string &needle)
{
    int count = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (text.substr(start, end - start).find(needle) != std::string::npos) count++;
        start = end + 1;
    }
    return count;
}

/* The start of the census line of the promise made at made. */
std::string
pending_at(const std::string &made)
{
    return made + ": pending for ";
}

/* The end of a census line: what the promise waits on, where its chain began. */
std::string
waiting(const std::string &source, const std::string &chain)
{
    return "s, waiting on " + source + " (chain began at " + chain + ")";
}

std::atomic<int> reported{0};
std::string reported_site;

void
record_site(void *, const vow_error *e)
{
    const char *domain = vow_error_domain(e);
    if (domain == nullptr || std::string(domain) != "t.sites") return;
    const char *s = vow_unhandled_site();
    reported_site = s != nullptr ? s : "(none)";
    reported.fetch_add(1);
}

} // namespace

static void
test_sites_are_on()
{
    CHECK_EQ(VOW_HPP_SITES, 1);
    CHECK(vow_debug_enabled());
}

static void
test_census_reads_the_cpp_lines()
{
    host_queue host;
    const int head_line = __LINE__; auto [head, r] = vow::promise<int>::pending();
    const int then_line = __LINE__; auto doubled = head.then([](int x) { return 2 * x; });
    const int recover_line = __LINE__; auto recovered = head.recover([](const vow::error &) { return 0; });
    const int finally_line = __LINE__; auto cleaned = doubled.finally([] {});
    const int timeout_line = __LINE__; auto timed = head.timeout(std::chrono::hours(1));
    const int ready_line = __LINE__; auto ready = vow::promise<int>::fulfilled(1);
    const int on_host_line = __LINE__; auto on_host = ready.then(host.dispatcher(), [](int x) { return x; });
    const int async_line = __LINE__; auto made = vow::async(host.dispatcher(), [] { return 5; });
    const int after_line = __LINE__; auto later = vow::after(std::chrono::hours(1));
    std::vector<vow::promise<int>> inputs{head};
    const int all_line = __LINE__; auto all = vow::when_all(inputs);
    const int race_line = __LINE__; auto first = vow::race(inputs);
    const int any_line = __LINE__; auto fulfilled_first = vow::any(inputs);
    auto passed_on = head.then([](int x) { return x; }, vow::site("wrapper.cpp", 12));
    auto variadic = vow::when_all(head, doubled); /* a parameter pack: "C" */

    std::string text = census();
    CHECK_EQ(lines_with(text, pending_at(here(head_line))), 1);
    CHECK_EQ(lines_with(text, waiting("no promise", here(head_line))), 1);
    CHECK_EQ(lines_with(text, pending_at(here(then_line)) + "0."), 1);
    CHECK_EQ(lines_with(text, waiting(here(head_line), here(head_line))), 4); /* then, recover, timeout, wrapper */
    CHECK_EQ(lines_with(text, pending_at(here(recover_line))), 1);
    CHECK_EQ(lines_with(text, pending_at(here(finally_line))), 1);
    CHECK_EQ(lines_with(text, waiting(here(then_line), here(head_line))), 1); /* the finally */
    CHECK_EQ(lines_with(text, pending_at(here(timeout_line))), 1);
    CHECK_EQ(lines_with(text, pending_at(here(on_host_line))), 1);
    CHECK_EQ(lines_with(text, waiting(here(ready_line), here(ready_line))), 1); /* fulfilled(x) began that chain */
    CHECK_EQ(lines_with(text, pending_at(here(async_line))), 1);
    CHECK_EQ(lines_with(text, pending_at(here(after_line))), 1);
    CHECK_EQ(lines_with(text, pending_at(here(all_line))), 1);
    CHECK_EQ(lines_with(text, pending_at(here(race_line))), 1);
    CHECK_EQ(lines_with(text, pending_at(here(any_line))), 1);
    CHECK_EQ(lines_with(text, waiting(here(head_line), here(all_line))), 1);
    CHECK_EQ(lines_with(text, pending_at("wrapper.cpp:12")), 1);
    CHECK_EQ(lines_with(text, "C: pending for "), 1); /* the variadic when_all */
    CHECK_EQ(lines_with(text, "vow.hpp"), 0);
    CHECK_EQ(lines_with(text, "vow-inl.hpp"), 0);
    CHECK_EQ(lines_with(text, "detail.hpp"), 0);
    if (failures.load() > 0) std::fprintf(stderr, "census:\n%s", text.c_str());

    r.resolve(2);
    later.cancel();
    CHECK_EQ(host.drain(), 2);
    CHECK((bounded(variadic).get() == std::tuple<int, int>(2, 4)));
    CHECK_EQ(bounded(made).get(), 5);
    CHECK_EQ(bounded(on_host).get(), 1);
    CHECK((bounded(all).get() == std::vector<int>{2}));
    CHECK_EQ(bounded(first).get(), 2);
    CHECK_EQ(bounded(fulfilled_first).get(), 2);
    CHECK_EQ(bounded(passed_on).get(), 2);
    CHECK_EQ(bounded(cleaned).get(), 4);
    CHECK_EQ(bounded(recovered).get(), 2);
    CHECK(!bounded(later).try_get().has_value());
    CHECK_EQ(bounded(timed).get(), 2);
}

static void
test_unhandled_site_reads_the_cpp_line()
{
    reported.store(0);
    vow_set_unhandled_error_handler(record_site, nullptr, nullptr);
    int line = 0;
    {
        line = __LINE__; auto dropped = vow::promise<int>::rejected(vow::error("t.sites", 1, "never handled"));
    }
    CHECK(wait_until([] { return reported.load() == 1; }));
    CHECK_EQ(reported_site, here(line));
    {
        line = __LINE__; auto thrown = vow::promise<int>::fulfilled(1).then([](int) -> int { return 0; }).then(
            [](int) -> vow::result<int> { return vow::error("t.sites", 2, "rejected by a callback"); });
        CHECK(wait_until([&] { return thrown.is_rejected(); })); /* not a wait: that would handle it */
    }
    CHECK(wait_until([] { return reported.load() == 2; }));
    CHECK_EQ(reported_site, here(line));
    vow_set_unhandled_error_handler(nullptr, nullptr, nullptr);
}

#if VOW_HPP_COROUTINES
namespace {

const int coroutine_first_line = __LINE__;
vow::promise<int>
awaits_twice(vow::promise<int> p, vow::dispatcher d, int *resume_on_line)
{
    int x = co_await p;
    *resume_on_line = __LINE__; int y = co_await p.resume_on(d);
    co_return x + y;
}
const int coroutine_last_line = __LINE__;

/* How many census lines begin with a site of this file inside the coroutine's lines. */
int
lines_in_coroutine(const std::string &text)
{
    int count = 0;
    for (int line = coroutine_first_line; line <= coroutine_last_line; line++) {
        count += lines_with(text, pending_at(here(line)));
    }
    return count;
}

} // namespace

static void
test_coroutine_sites()
{
    host_queue host;
    const int head_line = __LINE__; auto [p, r] = vow::promise<int>::pending();
    int resume_on_line = 0;
    auto sum = awaits_twice(p, host.dispatcher(), &resume_on_line);
    /* The coroutine's promise and the link of its plain co_await: the coroutine's site. */
    std::string text = census();
    CHECK_EQ(lines_in_coroutine(text), 2);
    CHECK_EQ(lines_with(text, waiting(here(head_line), here(head_line))), 1); /* the await's link */
    r.resolve(20);
    /* Then the link of resume_on(d): the line of that co_await. */
    CHECK(wait_until([&] { return resume_on_line != 0 && host.queued() > 0; }));
    text = census();
    CHECK_EQ(lines_with(text, pending_at(here(resume_on_line))), 1); /* the link, queued on the host */
    CHECK_EQ(host.drain(), 1);
    CHECK_EQ(bounded(sum).get(), 40);
    if (failures.load() > 0) std::fprintf(stderr, "census:\n%s", text.c_str());
}
#endif

int
main()
{
    vow_debug_set(true);
    return run_all("test_cpp_sites", {
                                          {"sites are on", test_sites_are_on},
                                          {"the census reads the C++ lines", test_census_reads_the_cpp_lines},
                                          {"vow_unhandled_site reads the C++ line", test_unhandled_site_reads_the_cpp_line},
#if VOW_HPP_COROUTINES
                                          {"coroutine sites", test_coroutine_sites},
#endif
                                      });
}
