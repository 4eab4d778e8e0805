/*
 * Allocation budget of the C++ face (run by scripts/check-allocations.sh, which states the
 * budgets): heap allocations per vow::promise<T>::then link.
 *
 * Linked with Tests/Alloc/alloc_counter.c, which interposes malloc and friends for the
 * whole process (operator new ends in malloc), so every allocation of the C++ code,
 * libvow.so and the Swift runtime is counted. As Tests/Alloc/alloc_check.c does for C, each
 * figure is the difference between a chain of n and one of 2n links divided by n (the
 * head, the wait and the warm-up drop out), rounded to two decimals.
 *
 * Usage: alloc_links WORD_BUDGET QUEUED_BUDGET HEAP_BUDGET [LINKS]
 *   WORD_BUDGET    a lambda kept in the link's context word (no captures; one pointer),
 *                  and one returning a new small integer (a shared box), on the inline
 *                  dispatcher: the link is the only allocation
 *   QUEUED_BUDGET  the capture-less lambda on the default dispatcher, head pending while
 *                  the chain is built (the job travels through the queue without allocating)
 *   HEAP_BUDGET    a lambda whose captures do not fit in the context word (four longs, which
 *                  allocate nothing themselves): the link and one block for the captures
 * Exit status 0 when every figure is within its budget and every chain gave the right value.
 */
#include "vow.hpp"

extern "C" {
#include "alloc_counter.h"
}

#include <cstdio>
#include <cstdlib>
#include <array>

namespace {

int passed = 0;
int failures = 0;

/* n links of kind on a fulfilled (or pending) head, waited for; returns the end value. */
long
chain(long n, int kind)
{
    const vow::dispatcher d = vow::dispatcher::inline_();
    int *one = nullptr;
    const std::array<long, 4> big{1, 2, 3, 4}; /* 32 bytes: more than the context word holds */
    switch (kind) {
    case 0: { /* no captures, inline */
        vow::promise<int> p = vow::promise<int>::fulfilled(7);
        for (long i = 0; i < n; i++) p = p.then(d, [](int x) { return x; });
        return p.get();
    }
    case 1: { /* one pointer captured (the context word), inline */
        int step = 0;
        one = &step;
        vow::promise<int> p = vow::promise<int>::fulfilled(7);
        for (long i = 0; i < n; i++) p = p.then(d, [one](int x) { return x + *one; });
        return p.get();
    }
    case 2: { /* a new small integer each link (0, 1, 0, ...: shared boxes), inline */
        vow::promise<int> p = vow::promise<int>::fulfilled(0);
        for (long i = 0; i < n; i++) p = p.then(d, [](int x) { return x ^ 1; });
        return p.get() + 7 - static_cast<int>(n % 2);
    }
    case 3: { /* no captures, the default dispatcher, head pending while the chain is built */
        auto [head, r] = vow::promise<int>::pending();
        vow::promise<int> p = head;
        for (long i = 0; i < n; i++) p = p.then([](int x) { return x; });
        r.resolve(7);
        return p.get();
    }
    case 4: { /* captures on the heap (32 bytes that allocate nothing themselves), inline */
        vow::promise<int> p = vow::promise<int>::fulfilled(7);
        for (long i = 0; i < n; i++) p = p.then(d, [big](int x) { return big[3] == 4 ? x : 0; });
        return p.get();
    }
    }
    return -1;
}

void
check(const char *what, double budget, long n, int kind)
{
    (void)chain(n / 10, kind);
    long before = alloc_counter_total();
    long result1 = chain(n, kind);
    long middle = alloc_counter_total();
    long result2 = chain(2 * n, kind);
    long used = (alloc_counter_total() - middle) - (middle - before);
    double per_link = static_cast<double>(used) / static_cast<double>(n);
    double rounded = static_cast<double>(static_cast<long>(per_link * 100 + 0.5)) / 100;
    bool within = rounded <= budget;
    bool right = result1 == 7 && result2 == 7;
    std::printf("%-62s %5.2f allocations/link (budget %.2f) %s\n", what, per_link, budget,
                !right ? "WRONG RESULT" : within ? "ok" : "OVER BUDGET");
    if (!right) std::printf("    chains ended with %ld and %ld\n", result1, result2);
    if (within && right) {
        passed++;
    } else {
        failures++;
    }
}

} // namespace

int
main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s WORD_BUDGET QUEUED_BUDGET HEAP_BUDGET [LINKS]\n", argv[0]);
        return 2;
    }
    double word = std::atof(argv[1]);
    double queued = std::atof(argv[2]);
    double heap = std::atof(argv[3]);
    long n = argc > 4 ? std::atol(argv[4]) : 10000;
    check("C++ then, no captures, inline", word, n, 0);
    check("C++ then, one pointer captured (context word), inline", word, n, 1);
    check("C++ then, a new small int each link (shared box), inline", word, n, 2);
    check("C++ then, no captures, pending head, default dispatcher", queued, n, 3);
    check("C++ then, captures on the heap (std::array<long, 4>), inline", heap, n, 4);
    std::printf("C++ allocations: %d passed, %d failed\n", passed, failures);
    return failures == 0 ? 0 : 1;
}
