#!/usr/bin/env bash
# Runs every test of the repository: the command README.md calls "the test command".
#
#   scripts/test.sh            all stages
#   scripts/test.sh STAGE...   only the named stages (see `stages` below)
#
# Exits non-zero on the first failing stage. Prints a summary line per stage and, at the
# end, `vow-tests: N passed, M failed` (stages).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

stages=(build compile swift-tests tsan nio docs c-tests valgrind asan cpp loops fuzz examples install package abi allocations soak)
[ $# -gt 0 ] && stages=("$@")

passed=0
failed=0
log_dir="$ROOT/.build-logs"
mkdir -p "$log_dir"

source "$ROOT/scripts/lib/vow-swift.sh"
release_bin() { vow_release_bin "$ROOT"; }

stage_build() {
    # The library must build without a single warning, in debug and in release.
    swift build --build-tests 2>&1 | tee "$log_dir/build.log" | grep -E "warning:|error:" && return 1
    grep -q "Build complete" "$log_dir/build.log" || { tail -20 "$log_dir/build.log"; return 1; }
    vow_release_build "$ROOT" 2>&1 | tee "$log_dir/build-release.log" | grep -E "warning:|error:" && return 1
    grep -q "Build complete" "$log_dir/build-release.log" || { tail -20 "$log_dir/build-release.log"; return 1; }
    # The engine's interface is the list in Interface.swift; the faces are layers, each
    # compiles without the others (ARCHITECTURE.md, "Layers").
    local interface
    interface=$(scripts/check-engine-interface.sh) || { echo "$interface"; return 1; }
    # The version is written once, in include/vow.h (CHANGELOG.md).
    scripts/check-version.sh || return 1
    scripts/check-layers.sh 2>&1 | tee "$log_dir/layers.log" | grep -v "compiles alone"
    test "${PIPESTATUS[0]}" -eq 0
}

stage_compile() {
    # What the compiler must accept and refuse in Swift 6 mode (Tests/Compile).
    local bin
    bin=$(release_bin) || return 1
    "$ROOT/Tests/Compile/run-compile-tests.sh" "$bin" 2>&1 | tee "$log_dir/compile.log" | tail -1
    test "${PIPESTATUS[0]}" -eq 0
}

stage_swift_tests() {
    swift test 2>&1 | tee "$log_dir/swift-tests.log" | grep -E "✘|error:|Test run with|Executed" | tail -40
    test "${PIPESTATUS[0]}" -eq 0
}

stage_tsan() {
    # ThreadSanitizer over the whole Swift suite. Stress tests scale down under VOW_TSAN=1.
    VOW_TSAN=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
        swift test --sanitize=thread --scratch-path "$ROOT/.build-tsan" 2>&1 \
        | tee "$log_dir/tsan.log" | grep -E "✘|error:|WARNING: ThreadSanitizer|Test run with" | tail -40
    local rc=${PIPESTATUS[0]}
    grep -q "WARNING: ThreadSanitizer" "$log_dir/tsan.log" && return 1
    test "$rc" -eq 0
}

# VowNIO, the swift-nio bridge (package trait "NIO", off by default). Three checks:
#  1. the core resolves no dependency: a fresh build of a pristine copy of the package
#     (the library and the VowNIO test target), trait off, must fetch, check out and
#     compile nothing of swift-nio;
#  2. the VowNIO tests with the trait on, under ThreadSanitizer (the test run must find
#     them: with the trait silently off they would compile to nothing and "pass"). One
#     run, the sanitized one: a plain run of the same tests would add a third build of
#     swift-nio (about three minutes of a fresh CI machine) and find nothing this one
#     does not; `scripts/test.sh nio-plain` runs them without the sanitizer;
#  3. the README's swift-nio example (Examples/nio/, a package that depends on Vow with
#     the trait, as a user's does) builds without warnings, runs, and is what README shows.
# Builds with the trait on write Package.resolved at the root, and a plain `swift build`
# checks out whatever a Package.resolved pins (it builds none of it): the stage leaves the
# root's Package.resolved as it found it.
stage_nio() {
    keeping_package_resolved nio_checks
}

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

# Not in the default list: the VowNIO tests without the sanitizer (see stage_nio).
stage_nio_plain() {
    keeping_package_resolved nio_tests
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
    if ! diff -q <(awk -v marker="<!-- $file -->" '
            $0 == marker { found = 1; next }
            found && /^```/ { if (inside) exit; inside = 1; next }
            inside { print }' README.md) "$file" >/dev/null; then
        echo "FAIL: the code block after <!-- $file --> in README.md differs from $file"
        return 1
    fi
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

stage_docs() {
    # make docs with 0 warnings (DocC per catalog, Doxygen per header), and the check's
    # self-test on a copy. After nio: VowNIO's documentation reuses its build.
    scripts/check-docs.sh
}

stage_c_tests() {
    [ -x Tests/C/run-c-tests.sh ] || { echo "Tests/C/run-c-tests.sh missing"; return 1; }
    Tests/C/run-c-tests.sh "$(release_bin)"
}

stage_valgrind() {
    Tests/C/run-c-tests.sh --valgrind "$(release_bin)"
}

stage_asan() {
    # The C test programs built with AddressSanitizer (clang and lld, both in the Swift
    # toolchain). Only the C side is instrumented; the Swift runtime and libvow.so are not,
    # so ASan sees the C code's own accesses and LeakSanitizer the leaks reachable from it.
    # LeakSanitizer needs to stop the process's threads with ptrace: where that is not
    # allowed (some containers), set ASAN_OPTIONS=detect_leaks=0 and rely on the valgrind
    # stage for leaks.
    command -v clang >/dev/null 2>&1 || { echo "asan: clang not found (it ships with the Swift toolchain)"; return 1; }
    command -v ld.lld >/dev/null 2>&1 || { echo "asan: ld.lld not found (it ships with the Swift toolchain)"; return 1; }
    Tests/C/run-c-tests.sh --asan "$(release_bin)"
}

stage_cpp() {
    # The C++ face (include/vow.hpp): Tests/Cpp, every program built with g++ and clang++,
    # -std=c++17 and -std=c++20, and run plain, under valgrind and with ASan.
    [ -x Tests/Cpp/run-cpp-tests.sh ] || { echo "Tests/Cpp/run-cpp-tests.sh missing"; return 1; }
    Tests/Cpp/run-cpp-tests.sh "$(release_bin)"
}

stage_loops() {
    # The libuv and GLib bridges: their C test programs, plain, under valgrind and with ASan.
    [ -x Tests/Loops/run-loop-tests.sh ] || { echo "Tests/Loops/run-loop-tests.sh missing"; return 1; }
    Tests/Loops/run-loop-tests.sh "$(release_bin)"
}

stage_fuzz() {
    [ -x Tests/Fuzz/run-fuzz.sh ] || { echo "Tests/Fuzz/run-fuzz.sh missing"; return 1; }
    Tests/Fuzz/run-fuzz.sh --short
}

stage_examples() {
    [ -x Examples/run-examples.sh ] || { echo "Examples/run-examples.sh missing"; return 1; }
    Examples/run-examples.sh "$(release_bin)"
}

stage_install() {
    [ -x scripts/check-install.sh ] || { echo "scripts/check-install.sh missing"; return 1; }
    scripts/check-install.sh
}

stage_package() {
    # make deb, lintian, and the packages installed with dpkg -i in a private mount
    # namespace without the Swift toolchain, programs built and run on them.
    scripts/check-package.sh
}

stage_abi() {
    # The C interface against the release's baseline (abi/), and the gate's self-test.
    scripts/check-abi.sh && scripts/check-abi.sh --self-test
}

stage_allocations() {
    [ -x scripts/check-allocations.sh ] || { echo "scripts/check-allocations.sh missing"; return 1; }
    scripts/check-allocations.sh "$(release_bin)"
}

stage_soak() {
    [ -x scripts/soak.sh ] || { echo "scripts/soak.sh missing"; return 1; }
    scripts/soak.sh 20
}

for stage in "${stages[@]}"; do
    fn="stage_${stage//-/_}"
    if ! declare -F "$fn" >/dev/null; then
        echo "unknown stage: $stage"; exit 2
    fi
    echo "=== $stage"
    start=$SECONDS
    if "$fn"; then
        echo "=== $stage: ok ($((SECONDS - start)) s)"
        passed=$((passed + 1))
    else
        echo "=== $stage: FAILED ($((SECONDS - start)) s)"
        failed=$((failed + 1))
        break
    fi
done
echo "vow-tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
