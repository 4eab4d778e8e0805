#!/usr/bin/env bash
# Builds and runs the C++ test programs (include/vow.hpp) against the shipped libvow.so.
#
# Usage: Tests/Cpp/run-cpp-tests.sh [--plain] [--valgrind] [--asan] [BIN_DIR]
#
#   BIN_DIR     the folder holding libvow.so and Modules/ (default: the release bin
#               path, built if needed by scripts/lib/vow-swift.sh). The only Swift built
#               here is the stage library of the C tests (Tests/C/swift-stage/Stage.swift,
#               for test_cpp_swift), against that same libvow.so.
#   --plain, --valgrind, --asan
#               the modes of scripts/lib/vow-matrix.sh, shared by every native runner
#               (under valgrind VOW_TEST_SCALE=small: the 1,000,000-link chain becomes
#               10,000; ASan with g++, ASan and UBSan with clang++). With none of the
#               three, all three run, one after the other.
#
# Every Tests/Cpp/test_*.cpp is compiled four times: g++ and clang++, -std=c++17 and
# -std=c++20, always with -Wall -Wextra -Werror (test_no_exceptions.cpp also with
# -fno-exceptions), into Tests/Cpp/out/ (git-ignored), and each build is run (120 s each;
# valgrind 1200 s). Each must-not-compile/*.cpp must be refused by every build, with the
# message its first line names (`// expect: ...`). First, header_strict.cpp (which instantiates every template of vow.hpp)
# is compiled with both compilers and both standards, with strict warnings (-Wpedantic
# -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast): as it is, with -fno-exceptions,
# and with -DVOW_DEBUG_SITES (vow.h's site macros).
#
# Plain runs use every build; the valgrind and ASan runs use two of them,
# CPP_SANITIZER_BUILDS (default "g++:c++17 clang++:c++20": each compiler and each standard
# under each sanitizer once, at half the cost of all four). The programs of a mode are
# compiled in parallel, one job per processor, before any of them runs.
#
# Environment: CPP_TESTS="test_cpp_values test_cpp_cancel" runs only those programs;
# CPP_BUILDS="g++:c++20 clang++:c++17" only those builds (for every mode);
# CPP_SANITIZER_BUILDS="..." the builds of the valgrind and ASan runs.
#
# One line per program and build, then exactly: `cpp-tests (MODE): N passed, M failed`
# per mode (N, M = program builds). Exit status non-zero if anything failed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"

modes=()
bin=""
for arg in "$@"; do
    case "$arg" in
        --plain) modes+=(plain) ;;
        --valgrind) modes+=(valgrind) ;;
        --asan) modes+=(asan) ;;
        -h|--help) sed -n '2,/^set /{/^#/p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "run-cpp-tests: unknown option $arg" >&2; exit 2 ;;
        *) bin="$arg" ;;
    esac
done
[ ${#modes[@]} -gt 0 ] || modes=(plain valgrind asan)

source "$root/scripts/lib/vow-matrix.sh"
bin="$(vow_matrix_bin "$root" run-cpp-tests "$bin")" || exit 2
for tool in g++ clang++; do
    command -v "$tool" >/dev/null 2>&1 || { echo "run-cpp-tests: $tool not found" >&2; exit 2; }
done

mkdir -p "$out"
export SWIFT_BACKTRACE=enable=no
status=0
builds=(g++:c++17 g++:c++20 clang++:c++17 clang++:c++20)
[[ -n "${CPP_BUILDS:-}" ]] && read -r -a builds <<<"$CPP_BUILDS"
sanitizer_builds=(g++:c++17 clang++:c++20)
if [[ -n "${CPP_SANITIZER_BUILDS:-}" ]]; then
    read -r -a sanitizer_builds <<<"$CPP_SANITIZER_BUILDS"
elif [[ -n "${CPP_BUILDS:-}" ]]; then
    sanitizer_builds=("${builds[@]}")
fi
warn=(-Wall -Wextra -Werror)

# --- the header, every template instantiated, strict warnings -------------------------------
header_failed=0
strict=(-Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast)
for build in "${builds[@]}"; do
    cxx=${build%%:*} std=${build#*:}
    for extra in "" "-fno-exceptions" "-DVOW_DEBUG_SITES"; do
        # shellcheck disable=SC2086 # extra holds zero or one flag
        if ! "$cxx" -std="$std" "${warn[@]}" "${strict[@]}" $extra -fsyntax-only -I "$root/include" \
                "$here/header_strict.cpp" >"$out/header.log" 2>&1; then
            echo "FAIL vow.hpp, strict warnings: $cxx -std=$std $extra"
            sed 's/^/    /' "$out/header.log" | head -20
            header_failed=1
        fi
    done
done
if [[ "$header_failed" -eq 0 ]]; then
    echo "ok   vow.hpp, strict warnings: ${builds[*]}; plain, -fno-exceptions, VOW_DEBUG_SITES"
else
    status=1
fi

# --- what must not compile: each must-not-compile/*.cpp fails, with the message its first line expects
refused=0 accepted=0
for src in "$here"/must-not-compile/*.cpp; do
    expect="$(sed -n '1s|^// expect: ||p' "$src")"
    for build in "${builds[@]}"; do
        cxx=${build%%:*} std=${build#*:}
        if "$cxx" -std="$std" "${warn[@]}" -fsyntax-only -I "$root/include" "$src" >"$out/refused.log" 2>&1; then
            echo "FAIL $(basename "$src") compiles with $cxx -std=$std (it must not)"
            accepted=$((accepted + 1))
        elif [[ -z "$expect" ]] || ! grep -qF -- "$expect" "$out/refused.log"; then
            echo "FAIL $(basename "$src") ($cxx -std=$std): the error does not say \"$expect\""
            grep -E "error" "$out/refused.log" | head -5 | sed 's/^/    /'
            accepted=$((accepted + 1))
        else
            refused=$((refused + 1))
        fi
    done
done
if [[ "$accepted" -eq 0 ]]; then
    echo "ok   must not compile: $refused refusals with the expected message"
else
    status=1
fi

# --- the Swift stage library (the C tests' own, reused) -----------------------------------------
stage_ok=0
stage_log="$out/libvowstage.log"
vow_matrix_swift_library "$bin" "$root" "$stage_log" VowStage "$out/libvowstage.so" \
    "$root/Tests/C/swift-stage/Stage.swift" && stage_ok=1

# --- build every program, then run it in each mode ------------------------------------------------
# program_path SRC CXX STD: where a program's build goes ($out/NAME-CXX-STD[-asan]).
program_path() {
    local name tag
    name="$(basename "$1" .cpp)"
    tag="${2%%+*}${3#c++}"
    echo "$out/$name-$tag$([[ "$VOW_MATRIX_MODE" == asan ]] && echo -asan)"
}

# build_program SRC CXX STD: compiles the program for the current mode and sets exe to its
# path. A program built and up to date is kept (the valgrind mode runs the plain builds).
build_program() {
    local src=$1 cxx=$2 std=$3 name
    name="$(basename "$src" .cpp)"
    exe="$(program_path "$src" "$cxx" "$std")"
    local flags=(-std="$std" "${warn[@]}" -g -O1 -I "$root/include" -I "$here")
    local link=(-L "$bin" -lvow "-Wl,-rpath,$bin" -lpthread)
    [[ "$name" == test_no_exceptions ]] && flags+=(-fno-exceptions)
    [[ "$name" == test_cpp_swift ]] && link=(-L "$out" -lvowstage "-Wl,-rpath,$out" "${link[@]}")
    vow_matrix_compile "$exe" "$exe.build.log" "$cxx" "${flags[@]}" "$src" "${link[@]}"
}

# The builds a mode runs: every build plain, the sanitizer builds under valgrind and ASan.
mode_builds() {
    if [[ "$1" == plain ]]; then echo "${builds[@]}"; else echo "${sanitizer_builds[@]}"; fi
}

# prebuild: compiles the current mode's programs in parallel (one job per processor); a
# program that fails to build here is built again, and its failure reported, by run_mode.
prebuild() {
    local jobs running=0 src build
    jobs=$(nproc 2>/dev/null || echo 2)
    local -a mine=()
    read -r -a mine <<<"$(mode_builds "$VOW_MATRIX_MODE")"
    for src in "$here"/test_*.cpp; do
        local name
        name="$(basename "$src" .cpp)"
        if [[ -n "${CPP_TESTS:-}" ]] && [[ " $CPP_TESTS " != *" $name "* ]]; then continue; fi
        [[ "$name" == test_cpp_swift && "$stage_ok" -ne 1 ]] && continue
        for build in "${mine[@]}"; do
            local cxx=${build%%:*} std=${build#*:}
            build_program "$src" "$cxx" "$std" >/dev/null 2>&1 &
            running=$((running + 1))
            if [[ "$running" -ge "$jobs" ]]; then wait -n; running=$((running - 1)); fi
        done
    done
    wait
}

run_mode() {
    local mode=$1 passed=0 failed=0
    # Under valgrind, Tests/Cpp/cpp-tests-valgrind.supp adds the threads the test programs start
    # themselves; test_no_exceptions forks a child that aborts on purpose.
    vow_matrix_mode "$root" "$mode" 120 "--suppressions=$here/cpp-tests-valgrind.supp" --child-silent-after-fork=yes \
        || return 1
    local -a mode_build_list=()
    read -r -a mode_build_list <<<"$(mode_builds "$mode")"
    prebuild
    local start_all
    start_all=$(date +%s.%N)
    shopt -s nullglob
    for src in "$here"/test_*.cpp; do
        local name
        name="$(basename "$src" .cpp)"
        if [[ -n "${CPP_TESTS:-}" ]] && [[ " $CPP_TESTS " != *" $name "* ]]; then continue; fi
        for build in "${mode_build_list[@]}"; do
            local cxx=${build%%:*} std=${build#*:} label="$name ($build, $mode)"
            if [[ "$name" == test_cpp_swift && "$stage_ok" -ne 1 ]]; then
                echo "FAIL $label: the Swift stage library did not build ($stage_log)"
                sed 's/^/    /' "$stage_log" | head -20
                failed=$((failed + 1))
                continue
            fi
            if ! build_program "$src" "$cxx" "$std"; then
                echo "FAIL $label: does not build ($exe.build.log)"
                grep -E "error|warning" "$exe.build.log" | head -20 | sed 's/^/    /'
                failed=$((failed + 1))
                continue
            fi
            vow_matrix_run "$exe-$mode.log" "$exe"
            if vow_matrix_judge "$label" "$exe-$mode.log"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
        done
    done
    local total_s
    total_s=$(awk -v a="$start_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "cpp-tests ($mode): $passed passed, $failed failed (${total_s} s)"
    [[ "$failed" -eq 0 ]]
}

for mode in "${modes[@]}"; do
    run_mode "$mode" || status=1
done
exit "$status"
