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
    # Tests by feature: no two test files of one name, every one in Tests/README.md.
    scripts/check-tests-index.sh || return 1
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

# VowNIO, the swift-nio bridge (package trait "NIO", off by default): scripts/check-nio.sh
# (the core resolves no dependency, the VowNIO tests under TSan, Examples/nio, one engine).
stage_nio() {
    scripts/check-nio.sh
}

# Not in the default list: the VowNIO tests without the sanitizer (scripts/check-nio.sh).
stage_nio_plain() {
    scripts/check-nio.sh --plain
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
    # The C test programs built with AddressSanitizer and UBSan (scripts/lib/vow-matrix.sh,
    # the native runners' one matrix: clang and lld, both in the Swift toolchain). Only the
    # C side is instrumented, not libvow.so. Where a container forbids LeakSanitizer's
    # ptrace, set ASAN_OPTIONS=detect_leaks=0 and rely on the valgrind stage for leaks.
    Tests/C/run-c-tests.sh --asan "$(release_bin)"
}

stage_cpp() {
    # The C++ face (include/vow.hpp): Tests/Cpp, every program built with g++ and clang++,
    # -std=c++17 and -std=c++20, and run plain, under valgrind and with ASan/UBSan.
    [ -x Tests/Cpp/run-cpp-tests.sh ] || { echo "Tests/Cpp/run-cpp-tests.sh missing"; return 1; }
    Tests/Cpp/run-cpp-tests.sh "$(release_bin)"
}

stage_loops() {
    # The libuv and GLib bridges: their C test programs, plain, under valgrind and with ASan/UBSan.
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
