#!/usr/bin/env bash
# Prints the summary table of Benchmarks/README.md: every workload on Vow (Swift .inline
# and .default, C inline and default), swift-nio (embedded and real loop) and the bare
# lock+closure box, as ns/op with allocations per op, and Vow's ratios to the others.
#
#   Benchmarks/summary.sh [--runs N] [--scale X] [--only WORKLOAD,...]
#   Benchmarks/summary.sh --callgrind [--scale X] [--only WORKLOAD,...]
#
# Release build of this package (the first one takes a few minutes: swift-nio), then one
# run of BenchSummary: each cell is the median of N runs (default 7) after a warm-up run;
# the runs of all implementations are interleaved. With --callgrind, BenchSummary runs
# under valgrind's callgrind and each cell is instructions per op (default scale 0.1):
# counts that do not depend on the machine's load, for comparing builds.
# Then ServerMemory (never under valgrind: its figures are exact byte counts) prints the
# peak heap bytes per request of the server workloads (doxbee, parallel), unless --only
# names other workloads only.
# VOW_PATH=/other/checkout measures another copy of the library.
set -euo pipefail
cd "$(dirname "$0")"
# SwiftPM keeps this package's build plan across builds and misses source files added to
# the library it depends on (..) since the plan was made; drop the plan so it is made anew.
rm -f .build/release.yaml
# A failed or warning build stops here (it must never measure a stale binary).
# -Xcc -gdwarf-4: the library's C files with DWARF 4 debug info, as scripts/lib/vow-swift.sh
# builds them (valgrind 3.19 gives up on a libvow.so that holds clang's DWARF 5 units).
if ! build_log=$(swift build -c release -Xcc -gdwarf-4 --product BenchSummary 2>&1 \
                 && swift build -c release -Xcc -gdwarf-4 --product ServerMemory 2>&1); then
    echo "$build_log" | grep -E "error" || echo "$build_log" | tail -20
    exit 1
fi
if echo "$build_log" | grep -q "warning:"; then
    echo "$build_log" | grep "warning:"
    exit 1
fi
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), Vow at $(git -C "${VOW_PATH:-..}" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "${VOW_PATH:-..}" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(swift --version 2>&1 | head -1)"
echo
BIN="$(swift build -c release --show-bin-path)/BenchSummary"
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
# The server workloads' memory table follows unless --only leaves both out.
server_memory=1
args=" $* "
if [[ "$args" == *" --only "* ]]; then
    only_list=$(echo "$args" | sed -E 's/.* --only ([^ ]*).*/\1/')
    [[ ",$only_list," == *",doxbee,"* || ",$only_list," == *",parallel,"* ]] || server_memory=0
fi
scale_args=()
[[ "$args" == *" --scale "* ]] && scale_args=(--scale "$(echo "$args" | sed -E 's/.* --scale ([^ ]*).*/\1/')")
if [ "${1:-}" = "--callgrind" ]; then
    shift
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/vow-callgrind.XXXXXX")
    trap 'rm -rf "$DIR"' EXIT
    # valgrind 3.19 cannot read the DWARF 5 debug info of Swift 6 binaries: run a copy
    # without it (next to the original, so its RUNPATH still finds libvow.so).
    strip -g -o "$BIN.nodebug" "$BIN"
    # --fair-sched=yes: valgrind runs one thread at a time; with its ticket lock the
    # threads take turns in order, so how often a serial queue runs dry between two
    # handlers (the queued rows' main source of variance) moves much less from run to run.
    valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$DIR/cg.out" --dump-instr=no --dump-line=no \
        --log-file="$DIR/valgrind.log" "$BIN.nodebug" --callgrind "$DIR" --runs 1 --scale 0.1 "$@" \
        || { cat "$DIR/valgrind.log"; exit 1; }
else
    "$BIN" "$@"
fi
if [ "$server_memory" = 1 ]; then
    "$(dirname "$BIN")/ServerMemory" "${scale_args[@]}"
fi

# ---- The C++ face (issue 26): C++ rows beside the C rows ------------------------------------
# Benchmarks/cpp/bench_cpp.cpp runs create-then-resolve, chain-1k and deep-chain-1m through
# include/vow.hpp and, in the same process, through vow.h (the loops of CVowBench), against
# the libvow.so measured above: instructions per op under --callgrind (the C++ face's budget
# is 1.15x the C face's), ns per op otherwise, with allocations per op. Skipped when --only
# names none of those workloads. (--callgrind was shifted off the arguments above: it is
# read from this process's command line.)
cpp_mode=time cpp_scale=1 cpp_runs=7 cpp_only=""
if tr '\0' '\n' </proc/$$/cmdline | grep -qx -- --callgrind; then cpp_mode=callgrind cpp_scale=0.1; fi
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) cpp_scale=${2:-$cpp_scale}; shift ;;
        --runs) cpp_runs=${2:-$cpp_runs}; shift ;;
        --only) cpp_only=${2:-}; shift ;;
    esac
    shift
done
if [ -z "$cpp_only" ] || echo ",$cpp_only," | grep -qE ',(create-then-resolve|chain-1k|deep-chain-1m),'; then
    # libvow.so, which the benchmark programs above do not load (they link Vow statically).
    swift build -c release -Xcc -gdwarf-4 --product vow >/dev/null 2>&1 \
        || { swift build -c release -Xcc -gdwarf-4 --product vow 2>&1 | grep -E "error|warning:"; exit 1; }
    cpp_lib=$(swift build -c release --show-bin-path)
    cpp_dir=$(mktemp -d "${TMPDIR:-/tmp}/vow-cpp.XXXXXX")
    cc -std=c11 -O2 -c ../Tests/Alloc/alloc_counter.c -o "$cpp_dir/alloc_counter.o"
    g++ -std=c++17 -O2 -Wall -Wextra -Werror -I ../include -I ../Tests/Alloc cpp/bench_cpp.cpp \
        "$cpp_dir/alloc_counter.o" -o "$cpp_dir/bench_cpp" -L "$cpp_lib" -lvow -Wl,-rpath,"$cpp_lib"
    echo
    if [ "$cpp_mode" = callgrind ]; then
        valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$cpp_dir/cg.out" --dump-instr=no \
            --dump-line=no --log-file="$cpp_dir/valgrind.log" "$cpp_dir/bench_cpp" --callgrind "$cpp_dir" \
            --scale "$cpp_scale" || { cat "$cpp_dir/valgrind.log"; rm -rf "$cpp_dir"; exit 1; }
    else
        "$cpp_dir/bench_cpp" --runs "$cpp_runs" --scale "$cpp_scale" || { rm -rf "$cpp_dir"; exit 1; }
    fi
    rm -rf "$cpp_dir"
fi
