#!/usr/bin/env bash
# The test command's nio stage (scripts/test.sh nio).
#
#   scripts/check-nio.sh           the four checks below
#   scripts/check-nio.sh --plain   the VowNIO tests without the sanitizer (scripts/test.sh nio-plain)
#
# VowNIO, the swift-nio bridge (package trait "NIO", off by default). Four checks:
#  1. the core resolves no dependency: a fresh build of a pristine copy of the package
#     (the library and the VowNIO test target), trait off, must fetch, check out and
#     compile nothing of swift-nio;
#  2. the VowNIO tests with the trait on, under ThreadSanitizer (the test run must find
#     them: with the trait silently off they would compile to nothing and "pass"). One
#     run, the sanitized one: a plain run of the same tests would add a third build of
#     swift-nio (about three minutes of a fresh CI machine) and find nothing this one
#     does not; `scripts/check-nio.sh --plain` (`scripts/test.sh nio-plain`) runs them
#     without the sanitizer;
#  3. the README's swift-nio example (Examples/nio/, a package that depends on Vow with
#     the trait, as a user's does) builds without warnings, runs, and is what README shows.
#  4. one engine whatever the products (nio_one_engine, below).
# Builds with the trait on write Package.resolved at the root, and a plain `swift build`
# checks out whatever a Package.resolved pins (it builds none of it): the stage leaves the
# root's Package.resolved as it found it.
nio_checks() {
    local check start
    for check in nio_core_resolves_nothing nio_tests_tsan nio_example nio_one_engine; do
        start=$SECONDS
        "$check" || return 1
        echo "     ($check: $((SECONDS - start)) s)"
    done
}

nio_core_resolves_nothing() {
    local check="$ROOT/.build-core-check"
    local log="$log_dir/nio-core-check.log"
    rm -rf "$check"
    mkdir -p "$check/package"
    # The package as a fresh clone has it (no build folders, no Package.resolved).
    tar -c --exclude='./.build*' --exclude=./.git --exclude='Package.resolved' \
        --exclude=./Benchmarks --exclude=./Examples --exclude=./Tests/C/out . \
        | tar -x -C "$check/package" || return 1
    # The library, then the VowNIO test target (empty with the trait off). Resolution is
    # per package: what these resolve is what `swift test` resolves too.
    if ! (cd "$check/package" && swift build --scratch-path "$check/scratch" \
            && swift build --target VowNIOTests --scratch-path "$check/scratch") >"$log" 2>&1; then
        echo "FAIL: the core (trait NIO off) does not build:"; tail -20 "$log"; return 1
    fi
    local problems=()
    grep -qiE "fetching|cloning|computing version|resolved at|updating https" "$log" \
        && problems+=("the build fetched or resolved a dependency: $(grep -iE "fetching|cloning|computing version|resolved at|updating https" "$log" | head -3 | tr '\n' ' ')")
    grep -qE "Compiling (CNIO|NIO|_NIO|Atomics|_Atomics|DequeModule|InternalCollections|SystemPackage)" "$log" \
        && problems+=("the build compiled swift-nio or one of its dependencies")
    [ -n "$(ls -A "$check/scratch/checkouts" 2>/dev/null)" ] \
        && problems+=("checkouts/ is not empty: $(ls "$check/scratch/checkouts" | tr '\n' ' ')")
    [ -n "$(ls -A "$check/scratch/repositories" 2>/dev/null)" ] \
        && problems+=("repositories/ is not empty: $(ls "$check/scratch/repositories" | tr '\n' ' ')")
    [ -e "$check/package/Package.resolved" ] \
        && problems+=("the build wrote a Package.resolved: $(tr -d '\n ' < "$check/package/Package.resolved" | head -c 300)")
    if ! grep -qE '"dependencies" : \[[[:space:]]*\]' <(tr -d '\n' < "$check/scratch/workspace-state.json"); then
        problems+=("workspace-state.json lists dependencies")
    fi
    grep -q "complete!" "$log" || problems+=("no 'Build complete' in the log")
    if [ ${#problems[@]} -gt 0 ]; then
        echo "FAIL: building the core (trait NIO off) must resolve no dependency, but:"
        printf '    %s\n' "${problems[@]}"
        return 1
    fi
    if [ -n "$(grep -l '"swift-nio"' Package.resolved 2>/dev/null)" ]; then
        echo "note: ./Package.resolved pins swift-nio (left by a build with --traits NIO): a plain"
        echo "      'swift build' here checks it out (builds none of it) until you delete that file."
    fi
    echo "ok   the core resolves no dependency (fresh build of a copy, trait off)"
    rm -rf "$check"
}

# run_nio_tests LOG SWIFT-TEST-ARGS...: runs the VowNIO tests, fails on a failed or empty run.
run_nio_tests() {
    local log=$1
    shift
    swift test --traits NIO --filter VowNIOTests "$@" 2>&1 | tee "$log" \
        | grep -E "✘|error:|warning:|WARNING: ThreadSanitizer|Test run with" | grep -v "/checkouts/" | tail -40
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || return 1
    grep -E "warning:" "$log" | grep -qvE "/checkouts/" && { echo "FAIL: warnings"; return 1; }
    grep -q "WARNING: ThreadSanitizer" "$log" && return 1
    grep -qE "Test run with [1-9][0-9]* tests? .*passed" "$log" || { echo "FAIL: no VowNIO test ran (is the trait on?)"; return 1; }
}

nio_tests() {
    run_nio_tests "$log_dir/nio-tests.log" --scratch-path "$ROOT/.build-nio"
}

nio_tests_tsan() {
    VOW_TSAN=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
        run_nio_tests "$log_dir/nio-tsan.log" --sanitize=thread --scratch-path "$ROOT/.build-nio-tsan"
}

nio_example() {
    local log="$log_dir/nio-example.log"
    local scratch="$ROOT/.build-nio-example"
    if ! swift build --package-path Examples/nio --scratch-path "$scratch" >"$log" 2>&1; then
        echo "FAIL: Examples/nio does not build:"; grep -E "error" "$log" | head -10; return 1
    fi
    if grep "warning:" "$log" | grep -qv "/checkouts/"; then
        echo "FAIL: Examples/nio builds with warnings:"; grep "warning:" "$log" | head -5; return 1
    fi
    local bin
    bin=$(swift build --package-path Examples/nio --scratch-path "$scratch" --show-bin-path) || return 1
    local output
    output=$(timeout 60 "$bin/NIOExample" 2>&1) || { echo "FAIL: Examples/nio exited non-zero: $output"; return 1; }
    [ "$output" = "the answer is 42" ] || { echo "FAIL: Examples/nio printed: $output"; return 1; }
    local file=Examples/nio/Sources/NIOExample/main.swift
    vow_readme_shows "$file" || return 1
    echo "ok   Examples/nio builds, prints 'the answer is 42', and README.md shows it as it is"
}

# Examples/nio's OneEngine (built with NIOExample above, in the same scratch folder: one
# build of swift-nio): a program that lists the products vow, VowNIO and VowTesting, with C
# code sharing its promises, has one engine (ARCHITECTURE.md, "One engine whatever the
# products"): it defines no vow_* function, nothing is said about a second copy, and its
# checks pass (crossings both ways, one unhandled-error handler, one default dispatcher, a C
# timer on a TestLoop's clock, a VowNIO step on a NIO loop).
nio_one_engine() {
    local scratch="$ROOT/.build-nio-example"
    local bin output rc=0
    bin=$(swift build --package-path Examples/nio --scratch-path "$scratch" --show-bin-path) || return 1
    [ -x "$bin/OneEngine" ] || { echo "FAIL: Examples/nio did not build OneEngine"; return 1; }
    if nm "$bin/OneEngine" | grep -E " [TtWw] vow_" >/dev/null; then
        echo "FAIL: OneEngine defines vow_* functions of its own:"; nm "$bin/OneEngine" | grep -E " [TtWw] vow_" | head -5
        return 1
    fi
    output=$(cd "$bin" && timeout 60 ./OneEngine 2>&1) || rc=$?
    if [ "$rc" -ne 0 ] || echo "$output" | grep -q "copies of the Vow engine"; then
        echo "FAIL: Examples/nio's OneEngine (exit $rc):"; echo "$output" | sed 's/^/    /'
        return 1
    fi
    [ "$(echo "$output" | grep -c '^ok ')" -eq 6 ] || { echo "FAIL: OneEngine printed:"; echo "$output"; return 1; }
    echo "ok   one engine with the products vow + VowNIO + VowTesting (Examples/nio OneEngine): no vow_* of its own, 6 checks"
}

set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
log_dir="$ROOT/.build-logs"
mkdir -p "$log_dir"
source "$ROOT/scripts/lib/vow-swift.sh"
source "$ROOT/scripts/lib/vow-doc-blocks.sh"

if [ "${1:-}" = "--plain" ]; then
    keeping_package_resolved nio_tests
else
    keeping_package_resolved nio_checks
fi
