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

stages=(build swift-tests tsan c-tests valgrind loops fuzz examples install allocations soak)
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
    swift build -c release --scratch-path "$ROOT/.build-release" 2>&1 | tee "$log_dir/build-release.log" | grep -E "warning:|error:" && return 1
    grep -q "Build complete" "$log_dir/build-release.log" || { tail -20 "$log_dir/build-release.log"; return 1; }
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

stage_c_tests() {
    [ -x Tests/C/run-c-tests.sh ] || { echo "Tests/C/run-c-tests.sh missing"; return 1; }
    Tests/C/run-c-tests.sh "$(release_bin)"
}

stage_valgrind() {
    Tests/C/run-c-tests.sh --valgrind "$(release_bin)"
}

stage_loops() {
    # The libuv and GLib bridges: their C test programs, plain and under valgrind.
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
