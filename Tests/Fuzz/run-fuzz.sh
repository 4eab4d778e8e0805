#!/usr/bin/env bash
# Fuzzes the libffi layer with libFuzzer (clang/swiftc -sanitize=fuzzer,address).
#
#   Tests/Fuzz/run-fuzz.sh [SECONDS]    long run: SECONDS (default 600) per harness, both
#                                       harnesses at once (one per core)
#   Tests/Fuzz/run-fuzz.sh --short      the test command's mode: the committed corpus plus
#                                       2 s of fresh inputs per harness (about 4 s of fuzzing)
#
# Harnesses (see their headers):
#   fuzz_signature   the Swift signature parser (Sources/Vow/FFI/Signature.swift compiled
#                    alone with the harness), coverage-guided, with a reference recogniser
#                    as oracle; inputs up to 400 bytes so the 256/257 limit is crossed.
#   fuzz_then_call   the C entry points of libvow.so: signatures through vow_then_call and
#                    vow_trampoline_new, random LISTs spread into real C functions of known
#                    signatures, with an oracle for the expected result or type error.
#                    Long runs link a libvow.so built with AddressSanitizer and coverage
#                    (so libFuzzer is guided by the Swift code too); --short links the
#                    release libvow.so of the test command (no rebuild).
#
# Work files go to .build-fuzz/ (git-ignored; FUZZ_WORK overrides): new corpus entries,
# crash artifacts, logs, the instrumented library. --short uses the release build folder
# of the test command, .build-release (FUZZ_RELEASE_SCRATCH overrides).
# The committed corpus (Tests/Fuzz/corpus/<harness>/) is read, never written. Prints one
# line per harness (`fuzz_signature: 1234567 inputs in 2 s, 0 crashes`) and a final
# `fuzz: N passed, M failed`; exits non-zero if a harness crashed or failed to build.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

short=0
seconds=600
case "${1:-}" in
    --short) short=1; seconds=2 ;;
    "") ;;
    *[!0-9]*) echo "usage: $0 [--short | SECONDS]"; exit 2 ;;
    *) seconds=$1 ;;
esac

# Overridable so parallel users do not share build folders (names must start with .build-).
WORK=${FUZZ_WORK:-$ROOT/.build-fuzz}
source "$ROOT/scripts/lib/vow-swift.sh"
RELEASE_SCRATCH=${FUZZ_RELEASE_SCRATCH:-$ROOT/.build-release}
mkdir -p "$WORK/artifacts" "$WORK/corpus-fuzz_signature" "$WORK/corpus-fuzz_then_call"
CLANG=${CLANG:-$(dirname "$(command -v swiftc)")/clang}
[ -x "$CLANG" ] || CLANG=clang

# ---------------------------------------------------------------- builds

build_signature() {
    swiftc -sanitize=fuzzer,address -parse-as-library -O -use-ld=lld \
        Tests/Fuzz/fuzz_signature.swift Sources/Vow/FFI/Signature.swift \
        -o "$WORK/fuzz_signature" >"$WORK/build-signature.log" 2>&1
}

build_then_call() {
    local bin
    if [ "$short" -eq 1 ]; then
        # The release library the test command already built (incremental, else built now).
        # (The one recipe of scripts/lib/vow-swift.sh: the same flags, so nothing is rebuilt.)
        vow_release_build "$ROOT" "$RELEASE_SCRATCH" >"$WORK/build-lib.log" 2>&1 || return 1
        bin=$(vow_release_build "$ROOT" "$RELEASE_SCRATCH" --show-bin-path)
    else
        # A debug library with AddressSanitizer and libFuzzer-compatible coverage.
        local flags=(-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,trace-cmp,pc-table)
        swift build --scratch-path "$WORK/swift" "${flags[@]}" >"$WORK/build-lib.log" 2>&1 || return 1
        bin=$(swift build --scratch-path "$WORK/swift" "${flags[@]}" --show-bin-path)
    fi
    "$CLANG" -g -O1 -fsanitize=fuzzer,address -fuse-ld=lld -Wall -Wextra -Werror -I include \
        Tests/Fuzz/fuzz_then_call.c -L"$bin" -lvow -Wl,-rpath,"$bin" \
        -o "$WORK/fuzz_then_call" >"$WORK/build-then_call.log" 2>&1
}

# ---------------------------------------------------------------- runs

# run NAME MAX_LEN VALUE_PROFILE: fuzzes for $seconds, new inputs into the work corpus,
# the committed corpus read as seeds. Writes the log to $WORK/NAME.log. Value profiling
# (comparison operands as features) pays off for the conversion harness; the parser's
# coverage saturates within seconds and runs twice as fast without it.
run() {
    local name=$1 max_len=$2 value_profile=$3
    # The quarantine stays at ASan's default (use-after-free detection); leak checking is
    # the harnesses' own (the Swift runtime keeps caches LeakSanitizer would report).
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
        "$WORK/$name" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=3072 \
        -use_value_profile="$value_profile" -print_final_stats=1 -artifact_prefix="$WORK/artifacts/$name-" \
        "$WORK/corpus-$name" "Tests/Fuzz/corpus/$name" >"$WORK/$name.log" 2>&1
}

report() {
    local name=$1 rc=$2 log="$WORK/$1.log"
    local runs secs
    runs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}')
    secs=$(grep -E '^Done [0-9]+ runs in' "$log" | sed -E 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/')
    if [ "$rc" -eq 0 ]; then
        echo "$name: ${runs:-?} inputs in ${secs:-?} s, 0 crashes"
        return 0
    fi
    echo "$name: FAILED (exit $rc) after ${runs:-?} inputs; crash inputs in $WORK/artifacts:"
    ls "$WORK/artifacts" | grep "^$name-" | sed 's/^/  /'
    grep -E 'ERROR: |check failed|fuzz_signature: |SUMMARY' "$log" | head -5 | sed 's/^/  /'
    return 1
}

passed=0
failed=0
if ! build_signature; then
    echo "fuzz_signature: FAILED to build"; tail -n 5 "$WORK/build-signature.log"; failed=$((failed + 1))
    sig_built=0
else
    sig_built=1
fi
if ! build_then_call; then
    echo "fuzz_then_call: FAILED to build"; tail -n 5 "$WORK/build-lib.log" "$WORK/build-then_call.log"
    failed=$((failed + 1))
    call_built=0
else
    call_built=1
fi

# Both harnesses at once: one per core.
pids=()
[ "$sig_built" -eq 1 ] && { run fuzz_signature 400 0 & pids+=("signature:$!"); }
[ "$call_built" -eq 1 ] && { run fuzz_then_call 512 1 & pids+=("then_call:$!"); }
for entry in "${pids[@]}"; do
    name=fuzz_${entry%%:*}
    pid=${entry#*:}
    wait "$pid"
    if report "$name" $?; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
