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
if ! build_log=$(swift build -c release --product BenchSummary 2>&1 && swift build -c release --product ServerMemory 2>&1); then
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
