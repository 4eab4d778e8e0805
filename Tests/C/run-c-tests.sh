#!/usr/bin/env bash
# Builds and runs the C test programs against the shipped libvow.so.
#
# Usage: Tests/C/run-c-tests.sh [--valgrind|--asan] [BIN_DIR]
#
#   BIN_DIR     the folder holding libvow.so and Modules/ (default: the
#               release bin path, `swift build -c release --show-bin-path`).
#               This script builds no Swift except the small stage library
#               Tests/C/swift-stage/Stage.swift (for test_swift_bridge), which
#               links against that same libvow.so.
#   --valgrind, --asan
#               the modes of scripts/lib/vow-matrix.sh (shared by every native runner:
#               memcheck with the shipped suppression file, smaller sizes, longer
#               bounds; clang with ASan and UBSan); under valgrind, also checks that the
#               same flags still fail a program that leaks a promise
#               (Tests/C/valgrind/leaks_a_promise.c).
#
# Environment: C_TESTS="test_values test_wait" runs only those programs.
#
# Steps: the header checks (Tests/C/header/check_header.sh, check_symbols.sh,
# check_site_twins.sh),
# the stage library, then every Tests/C/test_*.c and Tests/C/ffi_*.c compiled
# with `cc -std=c11 -Wall -Wextra -Werror` into Tests/C/out/ (git-ignored; ASan builds in
# Tests/C/out/asan/; a build up to date is kept, so the valgrind mode runs the plain ones)
# and run one after the other (120 s each; valgrind 1200 s); under valgrind,
# also Tests/C/valgrind/leaks_a_promise.c, which must fail. One line per
# program, then exactly: `c-tests: N passed, M failed` (N, M = programs).
# Exit status: non-zero if a program failed or did not build, or a header
# check failed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"

mode=plain
bin=""
for arg in "$@"; do
    case "$arg" in
        --valgrind) mode=valgrind ;;
        --asan) mode=asan ;;
        -h|--help) sed -n '2,/^set /{/^#/p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "run-c-tests: unknown option $arg" >&2; exit 2 ;;
        *) bin="$arg" ;;
    esac
done

source "$root/scripts/lib/vow-matrix.sh"
bin="$(vow_matrix_bin "$root" run-c-tests "$bin")" || exit 2
lib="$bin/libvow.so"

mkdir -p "$out"
export SWIFT_BACKTRACE=enable=no
start_all=$(date +%s.%N)
status=0

# --- header checks -----------------------------------------------------------
if bash "$here/header/check_header.sh" "$root" > "$out/check_header.log" 2>&1; then
    echo "ok   header: C99 / C++ / nullability"
else
    echo "FAIL header: see $out/check_header.log"
    sed 's/^/    /' "$out/check_header.log" | tail -20
    status=1
fi
if bash "$here/header/check_symbols.sh" "$root" "$lib" > "$out/check_symbols.log" 2>&1; then
    echo "ok   header symbols: $(grep -o '[0-9]* declared, [0-9]* exported' "$out/check_symbols.log")"
else
    echo "FAIL header symbols: $(grep -o '[0-9]* declared, [0-9]* exported' "$out/check_symbols.log" || true)"
    sed 's/^/    /' "$out/check_symbols.log" | tail -20
    status=1
fi
if bash "$here/header/check_site_twins.sh" "$root" > "$out/check_site_twins.log" 2>&1; then
    echo "ok   header $(tail -1 "$out/check_site_twins.log")"
else
    echo "FAIL header site twins: see $out/check_site_twins.log"
    sed 's/^/    /' "$out/check_site_twins.log" | tail -30
    status=1
fi

# --- the mode (scripts/lib/vow-matrix.sh) and the Swift stage library -----------------
# Under valgrind, Tests/C/c-tests-valgrind.supp adds test_support.h's own watchdog thread.
vow_matrix_mode "$root" "$mode" 120 "--suppressions=$here/c-tests-valgrind.supp" || exit 2
cc_flags=(-std=c11 -Wall -Wextra -Werror -g -O1 -I "$root/include" -I "$here")
# The ASan builds have a folder of their own: the valgrind mode runs the plain builds.
programs="$out"
[[ "$mode" == asan ]] && programs="$out/asan" && mkdir -p "$programs"
link_flags=(-L "$bin" -lvow "-Wl,-rpath,$bin" -lpthread -lm)
# Built against the same libvow.so.
stage_ok=0
stage_log="$out/libvowstage.log"
vow_matrix_swift_library "$bin" "$root" "$stage_log" VowStage "$out/libvowstage.so" \
    "$here/swift-stage/Stage.swift" && stage_ok=1

# --- build and run each program -------------------------------------------------
passed=0
failed=0
shopt -s nullglob
sources=("$here"/test_*.c "$here"/ffi_*.c)
for src in "${sources[@]}"; do
    name="$(basename "$src" .c)"
    if [[ -n "${C_TESTS:-}" ]] && [[ " $C_TESTS " != *" $name "* ]]; then
        continue
    fi
    exe="$programs/$name"
    log="$out/$name.log"
    extra=()
    if [[ "$name" == "test_swift_bridge" ]]; then
        if [[ "$stage_ok" -ne 1 ]]; then
            echo "FAIL $name (the Swift stage library did not build: $stage_log)"
            sed 's/^/    /' "$stage_log" | head -20
            failed=$((failed + 1))
            continue
        fi
        extra=(-L "$out" -lvowstage "-Wl,-rpath,$out")
    fi
    if ! vow_matrix_compile "$exe" "$exe.build.log" cc "${cc_flags[@]}" "$src" "${extra[@]}" "${link_flags[@]}"; then
        # GNU ld: undefined reference to `vow_x'; lld: undefined symbol: vow_x
        missing="$(grep -oE "(undefined reference to \`|undefined symbol: )vow_[a-z0-9_]*" "$exe.build.log" \
            | grep -oE 'vow_[a-z0-9_]*$' | sort -u | tr '\n' ' ')"
        if [[ -n "$missing" ]]; then
            echo "FAIL $name (does not link: not implemented in libvow.so: $missing)"
        else
            echo "FAIL $name (does not compile: $exe.build.log)"
            sed 's/^/    /' "$exe.build.log" | head -20
        fi
        failed=$((failed + 1))
        continue
    fi
    vow_matrix_run "$log" "$exe"
    if vow_matrix_judge "$name" "$log"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done

# --- the suppression file hides the runtime, not a leak ---------------------------
# Under valgrind: a program that leaks one promise (Tests/C/valgrind/leaks_a_promise.c)
# must fail with the same flags, its loss record naming the call that made the promise
# (vow_promise_fulfilled, which the record shows by the library's own name,
# vowface_promise_fulfilled: the entry point is an indirect function resolved to it).
if [[ "$mode" == valgrind ]] && { [[ -z "${C_TESTS:-}" ]] || [[ " $C_TESTS " == *" leaks_a_promise "* ]]; }; then
    name=leaks_a_promise
    log="$out/$name.log"
    if ! vow_matrix_compile "$out/$name" "$out/$name.build.log" cc "${cc_flags[@]}" \
            "$here/valgrind/$name.c" "${link_flags[@]}"; then
        echo "FAIL $name (does not compile: $out/$name.build.log)"
        failed=$((failed + 1))
    else
        vow_matrix_run "$log" "$out/$name"
        rc=$VOW_MATRIX_RC
        if [[ "$rc" -eq 99 ]] && grep -q "definitely lost in loss record" "$log" \
                && grep -A12 "definitely lost in loss record" "$log" | grep -qE "vow(face)?_promise_fulfilled"; then
            echo "ok   $name (valgrind fails it: the leaked promise is reported, the suppressions hide only the runtime)"
            passed=$((passed + 1))
        else
            echo "FAIL $name (exit $rc: valgrind with scripts/vow-valgrind.supp must report the leaked promise; log: $log)"
            grep -E "lost|ERROR SUMMARY" "$log" | head -10 | sed 's/^/    /'
            failed=$((failed + 1))
        fi
    fi
fi

total_s=$(awk -v a="$start_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "c-tests ($mode) took ${total_s} s"
echo "c-tests: $passed passed, $failed failed"
if [[ "$failed" -ne 0 ]]; then status=1; fi
exit "$status"
