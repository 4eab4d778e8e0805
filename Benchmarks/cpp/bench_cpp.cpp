/*
 * bench_cpp: the C++ face (include/vow.hpp) beside the C face (include/vow.h) on the
 * workloads of Benchmarks/summary.sh, in one process, against one libvow.so.
 *
 *   bench_cpp [--callgrind DIR] [--runs N] [--scale X]
 *
 * Workloads (as in Sources/CVowBench/cvowbench.c, whose C loops are repeated here so
 * that both faces run the same steps in the same program):
 *   create-then-resolve  make a pending promise, attach one link, resolve it (ops = 10,000 x scale)
 *   chain-1k             chains of 1,000 links on a fulfilled promise, waited for (20 x scale chains)
 *   deep-chain-1m        1,000,000 x scale links built on a pending promise, then resolved
 * in two modes: the default dispatcher (C vow_then, C++ p.then(f)) and the inline one
 * (C vow_then_on(vow_dispatcher_inline(), ...), C++ p.then(vow::dispatcher::inline_(), f)).
 * The link is a pass-through in both faces: C `vow_result_return(out, value)`, C++
 * `[](int x) { return x; }` on a vow::promise<int>; C resolves with one vow_value made
 * beforehand, C++ with `r.resolve(1)`.
 *
 * Each cell: a warm-up run, then the median of N runs (default 7; 5 under callgrind; C and
 * C++ interleaved, the default queue emptied of the previous run's leftovers before each):
 * the queued rows move from run to run with how often the serial queue runs dry, so one
 * run is not enough to compare them. Under
 * callgrind (--callgrind DIR, with valgrind's --callgrind-out-file=DIR/cg.out) a run is
 * counted in instructions (every thread) between CALLGRIND_ZERO_STATS and
 * CALLGRIND_DUMP_STATS; otherwise it is timed. Allocations per op are counted by the
 * malloc interposer of Tests/Alloc/alloc_counter.c, linked into this program.
 *
 * Prints one markdown table and exits 1 if a run gave a wrong result.
 */
#include "vow.hpp"

extern "C" {
#include "alloc_counter.h"
}

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__has_include)
#  if __has_include(<valgrind/callgrind.h>)
#    include <valgrind/callgrind.h>
#    define BENCH_CALLGRIND 1
#  endif
#endif

namespace {

const char *callgrind_dir = nullptr;
int dumps = 0;
int wrong = 0;

/* ---- the C face: the loops of cvowbench.c ------------------------------------------- */

void
pass_through(void *, const vow_value *value, vow_result *out)
{
    vow_result_return(out, value);
}

vow_promise *
c_link(bool inline_mode, vow_promise *p)
{
    if (inline_mode) return vow_then_on(vow_dispatcher_inline(), p, pass_through, nullptr, nullptr, nullptr);
    return vow_then(p, pass_through, nullptr, nullptr, nullptr);
}

long
c_wait_int(vow_promise *p)
{
    vow_value *value = nullptr;
    vow_error *error = nullptr;
    long result = -1;
    if (vow_wait(p, -1, &value, &error) == VOW_FULFILLED) {
        int64_t i = 0;
        if (vow_value_get_int(value, &i) == VOW_OK) result = static_cast<long>(i);
    }
    vow_value_release(value);
    vow_error_release(error);
    return result;
}

long
c_create(long ops, bool inline_mode)
{
    vow_value *one = vow_value_int(1);
    vow_promise *last = nullptr;
    for (long i = 0; i < ops; i++) {
        vow_resolver *r = nullptr;
        vow_promise *p = vow_promise_pending(&r);
        vow_promise *q = c_link(inline_mode, p);
        vow_resolver_fulfill(r, one);
        vow_resolver_release(r);
        vow_promise_release(p);
        vow_promise_release(last);
        last = q;
    }
    long result = c_wait_int(last);
    vow_promise_release(last);
    vow_value_release(one);
    return result;
}

long
c_chain(long ops, bool inline_mode)
{
    vow_value *one = vow_value_int(1);
    long total = 0;
    for (long c = 0; c < ops / 1000; c++) {
        vow_promise *p = vow_promise_fulfilled(one);
        for (int i = 0; i < 1000; i++) {
            vow_promise *q = c_link(inline_mode, p);
            vow_promise_release(p);
            p = q;
        }
        total += c_wait_int(p);
        vow_promise_release(p);
    }
    vow_value_release(one);
    return total;
}

long
c_deep(long ops, bool inline_mode)
{
    vow_value *one = vow_value_int(1);
    vow_resolver *r = nullptr;
    vow_promise *head = vow_promise_pending(&r);
    vow_promise *p = vow_promise_retain(head);
    for (long i = 0; i < ops; i++) {
        vow_promise *q = c_link(inline_mode, p);
        vow_promise_release(p);
        p = q;
    }
    vow_resolver_fulfill(r, one);
    long result = c_wait_int(p);
    vow_promise_release(p);
    vow_promise_release(head);
    vow_resolver_release(r);
    vow_value_release(one);
    return result;
}

/* ---- the C++ face ---------------------------------------------------------------------- */

constexpr auto pass = [](int x) { return x; };

vow::promise<int>
cpp_link(bool inline_mode, const vow::dispatcher &d, const vow::promise<int> &p)
{
    return inline_mode ? p.then(d, pass) : p.then(pass);
}

long
cpp_create(long ops, bool inline_mode)
{
    const vow::dispatcher d = vow::dispatcher::inline_();
    vow::promise<int> last;
    for (long i = 0; i < ops; i++) {
        auto [p, r] = vow::promise<int>::pending();
        last = cpp_link(inline_mode, d, p);
        r.resolve(1);
    }
    return last.get();
}

long
cpp_chain(long ops, bool inline_mode)
{
    const vow::dispatcher d = vow::dispatcher::inline_();
    long total = 0;
    for (long c = 0; c < ops / 1000; c++) {
        vow::promise<int> p = vow::promise<int>::fulfilled(1);
        for (int i = 0; i < 1000; i++) p = cpp_link(inline_mode, d, p);
        total += p.get();
    }
    return total;
}

long
cpp_deep(long ops, bool inline_mode)
{
    const vow::dispatcher d = vow::dispatcher::inline_();
    auto [head, r] = vow::promise<int>::pending();
    vow::promise<int> p = head;
    for (long i = 0; i < ops; i++) p = cpp_link(inline_mode, d, p);
    r.resolve(1);
    return p.get();
}

/* ---- measuring ------------------------------------------------------------------------ */

struct figure {
    double per_op;
    double allocations;
};

double
callgrind_total(const std::string &path)
{
    FILE *file = std::fopen(path.c_str(), "r");
    if (file == nullptr) return -1;
    char line[512];
    double total = -1;
    while (std::fgets(line, sizeof line, file) != nullptr) {
        for (const char *prefix : {"totals: ", "summary: "}) {
            std::size_t n = std::strlen(prefix);
            if (std::strncmp(line, prefix, n) == 0) total = std::atof(line + n);
        }
    }
    std::fclose(file);
    return total;
}

void
noop(void *, const vow_value *, vow_result *)
{
}

/* Lets the default queue finish what the previous run left there (releases after its last
   callback), so that none of it is counted in the next run: two empty jobs, waited for. */
void
quiesce()
{
    for (int i = 0; i < 2; i++) {
        vow_promise *p = vow_dispatch(vow_dispatcher_default(), noop, nullptr, nullptr);
        vow_wait(p, -1, nullptr, nullptr);
        vow_promise_release(p);
    }
}

figure
run_once(long (*workload)(long, bool), long ops, bool inline_mode, long expected, const char *label)
{
    quiesce();
    long allocations_before = alloc_counter_total();
#ifdef BENCH_CALLGRIND
    if (callgrind_dir != nullptr) CALLGRIND_ZERO_STATS;
#endif
    auto start = std::chrono::steady_clock::now();
    long result = workload(ops, inline_mode);
    auto elapsed = std::chrono::steady_clock::now() - start;
#ifdef BENCH_CALLGRIND
    if (callgrind_dir != nullptr) CALLGRIND_DUMP_STATS;
#endif
    long allocations = alloc_counter_total() - allocations_before;
    if (result != expected) {
        std::fprintf(stderr, "bench_cpp: %s gave %ld, expected %ld\n", label, result, expected);
        wrong++;
    }
    double per_op = std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(ops);
    if (callgrind_dir != nullptr) {
        dumps++;
        per_op = callgrind_total(std::string(callgrind_dir) + "/cg.out." + std::to_string(dumps)) /
                 static_cast<double>(ops);
    }
    return {per_op, static_cast<double>(allocations) / static_cast<double>(ops)};
}

double
median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct workload {
    const char *name;
    const char *per;
    long ops;
    long expected;
    long (*c)(long, bool);
    long (*cpp)(long, bool);
};

} // namespace

int
main(int argc, char **argv)
{
    int runs = 0; /* 0: the default, 7 timed runs or 5 under callgrind */
    double scale = 1;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--callgrind") == 0 && i + 1 < argc) {
            callgrind_dir = argv[++i];
        } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = std::max(1, std::atoi(argv[++i]));
        } else if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            scale = std::atof(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: %s [--callgrind DIR] [--runs N] [--scale X]\n", argv[0]);
            return 2;
        }
    }
    long create_ops = std::max(1L, static_cast<long>(10000 * scale));
    long chain_ops = std::max(1L, static_cast<long>(20 * scale)) * 1000;
    long deep_ops = std::max(1L, static_cast<long>(1000000 * scale));
    const workload workloads[] = {
        {"create-then-resolve", "op", create_ops, 1, c_create, cpp_create},
        {"chain-1k", "link", chain_ops, chain_ops / 1000, c_chain, cpp_chain},
        {"deep-chain-1m", "link", deep_ops, 1, c_deep, cpp_deep},
    };

    const char *unit = callgrind_dir != nullptr ? "instructions" : "ns";
    std::printf("C++ face (vow.hpp, `[](int x) { return x; }`) beside the C face (vow.h, a pass-through "
                "callback): %s per op, allocations per op in parentheses; %s.\n\n",
                unit, callgrind_dir != nullptr ? "median of 5 runs after a warm-up (the queued rows vary from run to run)"
                                               : "median of the runs after a warm-up");
    std::printf("| workload | per | C inline | C++ inline | C++ / C | C default | C++ default | C++ / C |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
    int measured_runs = runs > 0 ? runs : callgrind_dir != nullptr ? 5 : 7;
    const double budget = 1.15; /* C++ / C, in instructions (issue 26) */
    std::string over;
    for (const workload &w : workloads) {
        std::printf("| %s | %s", w.name, w.per);
        for (bool inline_mode : {true, false}) {
            std::vector<double> c_ops, cpp_ops, c_alloc, cpp_alloc;
            for (int round = 0; round <= measured_runs; round++) {
                figure c = run_once(w.c, w.ops, inline_mode, w.expected, w.name);
                figure cpp = run_once(w.cpp, w.ops, inline_mode, w.expected, w.name);
                if (round == 0) continue;
                c_ops.push_back(c.per_op);
                cpp_ops.push_back(cpp.per_op);
                c_alloc.push_back(c.allocations);
                cpp_alloc.push_back(cpp.allocations);
            }
            double c = median(c_ops), cpp = median(cpp_ops);
            std::printf(" | %.0f (%.1f) | %.0f (%.1f) | %.2fx", c, median(c_alloc), cpp, median(cpp_alloc), cpp / c);
            if (cpp / c > budget) over += std::string(over.empty() ? "" : ", ") + w.name + (inline_mode ? " inline" : " default");
        }
        std::printf(" |\n");
    }
    if (callgrind_dir != nullptr) {
        std::printf("\nBudget: C++ at most %.2fx the C face's instructions: %s\n", budget,
                    over.empty() ? "met in every row" : ("OVER in " + over).c_str());
    }
    if (wrong != 0) std::printf("\nbench_cpp: %d runs gave a wrong result\n", wrong);
    return wrong == 0 ? 0 : 1;
}
