#!/usr/bin/env bash
# Builds and runs the tests of the event-loop bridges (include/vow_uv.h, vow_glib.h)
# against the shipped libvow.so, against the real libuv and GLib.
#
# Usage: Tests/Loops/run-loop-tests.sh [--plain|--valgrind|--asan] [BIN_DIR]
#
#   BIN_DIR     the folder holding libvow.so (default: the release build, made if needed).
#   --plain     runs each program once, natively.
#   --valgrind  runs each program under valgrind (memcheck, --leak-check=full with the
#               suppression file make install ships, scripts/vow-valgrind.supp; smaller
#               sizes, longer bounds).
#   --asan      builds each program and its bridge (compiled from its Bridges/ files into
#               the program, not from the archive) with clang -fsanitize=address,undefined
#               (lld), and runs it. Without a flag: all three passes. The passes are
#               scripts/lib/vow-matrix.sh's, shared by every native runner.
#
# Steps, one line each:
#   libvow.so    does not link libuv or GLib (readelf: no such NEEDED entry);
#   bridges      Bridges/uv and Bridges/glib (with Bridges/common) build into libvow-uv.a /
#                libvow-glib.a
#                (scripts/lib/vow-bridges.sh: C11, -Wall -Wextra -Werror);
#   headers      vow_uv.h and vow_glib.h compile alone as C99 (gcc, clang) and C++17 (g++,
#                clang++) with -Wall -Wextra -pedantic -Werror (as C99 also with
#                VOW_DEBUG_SITES, and so does its bridge), every pointer carries a
#                nullability annotation, every function they declare is defined in its
#                archive, and every function that returns a promise has its row in the
#                header's table (its NAME_site twin) and its generated VOW_DEBUG_SITES
#                macro (scripts/generate-bridge-sites.sh --check);
#   programs     every Tests/Loops/test_uv_*.c (linked with libvow-uv.a and libuv) and
#                test_glib_*.c (libvow-glib.a and GLib), `cc -std=c11 -Wall -Wextra -Werror`,
#                into Tests/Loops/out/ (git-ignored), run one after the other (60 s each;
#                600 s under valgrind), in each pass; the ASan pass builds its own copies
#                into Tests/Loops/out/asan/.
# Then exactly `loops: N passed, M failed` (N, M = the lines above). Exit status non-zero
# if anything failed. Environment: LOOP_TESTS="test_uv_tcp ..." runs only those programs.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"

passes=(plain valgrind asan)
bin=""
for arg in "$@"; do
    case "$arg" in
        --plain) passes=(plain) ;;
        --valgrind) passes=(valgrind) ;;
        --asan) passes=(asan) ;;
        -h|--help) sed -n '2,/^set /{/^#/p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "run-loop-tests: unknown option $arg" >&2; exit 2 ;;
        *) bin="$arg" ;;
    esac
done

source "$root/scripts/lib/vow-matrix.sh"
source "$root/scripts/lib/vow-bridges.sh"
bin="$(vow_matrix_bin "$root" run-loop-tests "$bin")" || exit 2
lib="$bin/libvow.so"
for pkg in libuv glib-2.0; do
    pkg-config --exists "$pkg" || { echo "run-loop-tests: pkg-config does not find $pkg (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

mkdir -p "$out"
export SWIFT_BACKTRACE=enable=no
start_all=$(date +%s.%N)
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# --- libvow.so stays free of both loops -----------------------------------------------------
needed="$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
if grep -qE 'libuv|libglib|libgobject|libgio' <<<"$needed"; then
    fail "libvow.so links an event loop: $needed"
else
    ok "libvow.so links neither libuv nor GLib"
fi

# --- the bridges ------------------------------------------------------------------------------
bridges_ok=1
for name in $(vow_bridge_names); do
    if ! vow_build_bridge "$root" "$name" "$out" >/dev/null 2>&1; then
        bridges_ok=0
        fail "bridge libvow-$name.a does not build:"
        sed 's/^/    /' "$out/libvow-$name.build.log" | head -20
    fi
done
[[ "$bridges_ok" -eq 1 ]] && ok "bridges: libvow-uv.a, libvow-glib.a (C11, no warnings)"

# --- the headers ------------------------------------------------------------------------------
header_log="$out/headers.log"
: >"$header_log"
headers_ok=1
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for name in $(vow_bridge_names); do
    header="vow_$name.h"
    pkg="$(vow_bridge_pkg "$name")"
    read -r -a pkg_cflags <<<"$(pkg-config --cflags "$pkg")"
    fn="vow_${name}_dispatcher_close"
    # uv.h needs POSIX declarations under a strict -std (it says so itself).
    printf '#define _POSIX_C_SOURCE 200809L\n#include "%s"\nint main(void) { return %s(NULL) == VOW_EINVAL ? 0 : 1; }\n' \
        "$header" "$fn" >"$tmp/h_$name.c"
    cp "$tmp/h_$name.c" "$tmp/h_$name.cpp"
    for compiler in "gcc -std=c99 -x c" "clang -std=c99 -x c" "g++ -std=c++17 -x c++" "clang++ -std=c++17 -x c++"; do
        src="$tmp/h_$name.c"
        [[ "$compiler" == *c++* ]] && src="$tmp/h_$name.cpp"
        # shellcheck disable=SC2086 # $compiler is a command with its flags
        if ! $compiler -Wall -Wextra -pedantic -Werror -fsyntax-only -I "$root/include" "${pkg_cflags[@]}" "$src" >>"$header_log" 2>&1; then
            headers_ok=0
            echo "$header: $compiler failed" >>"$header_log"
        fi
    done
    # Debug sites: every function that returns a promise has its row in the header's table
    # (its NAME_site twin) and its generated VOW_DEBUG_SITES macro.
    if ! "$root/scripts/generate-bridge-sites.sh" --check >>"$header_log" 2>&1; then
        headers_ok=0
        echo "$header: the debug sites are not what its table makes (scripts/generate-bridge-sites.sh)" >>"$header_log"
    fi
    if ! gcc -std=c99 -x c -DVOW_DEBUG_SITES -Wall -Wextra -pedantic -Werror -fsyntax-only -I "$root/include" \
            "${pkg_cflags[@]}" "$tmp/h_$name.c" >>"$header_log" 2>&1; then
        headers_ok=0
        echo "$header: does not compile with VOW_DEBUG_SITES" >>"$header_log"
    fi
    # The bridge itself builds in a program whose CFLAGS define VOW_DEBUG_SITES.
    while read -r bridge_src; do
        if ! gcc -std=c11 -DVOW_DEBUG_SITES -Wall -Wextra -Werror -fsyntax-only -I "$root/include" \
                "${pkg_cflags[@]}" "$bridge_src" >>"$header_log" 2>&1; then
            headers_ok=0
            echo "${bridge_src#"$root"/}: does not build with VOW_DEBUG_SITES" >>"$header_log"
        fi
    done < <(vow_bridge_sources "$root" "$name")
    # Nullability completeness: copies of the header and of vow.h without the line that
    # silences it (VOW_BEGIN_DECLS, vow.h).
    mkdir -p "$tmp/null_$name"
    cp "$root/include/$header" "$tmp/null_$name/$header"
    grep -v 'define VOW_NULLABILITY_QUIET_ _Pragma' "$root/include/vow.h" >"$tmp/null_$name/vow.h"
    if cmp -s "$root/include/vow.h" "$tmp/null_$name/vow.h" || ! grep -q '^VOW_BEGIN_DECLS$' "$root/include/$header"; then
        headers_ok=0
        echo "$header: the -Wnullability-completeness pragma (VOW_BEGIN_DECLS) was not found" >>"$header_log"
    elif ! clang -std=c99 -fsyntax-only -Werror=nullability-completeness -I "$tmp/null_$name" -I "$root/include" \
            "${pkg_cflags[@]}" "$tmp/h_$name.c" >>"$header_log" 2>&1; then
        headers_ok=0
        echo "$header: a pointer lacks a nullability annotation" >>"$header_log"
    fi
    # Every function declared (VOW_EXTERN) in the header is defined in the archive.
    if [[ -f "$out/libvow-$name.a" ]]; then
        mark=VOW_EXTERN__DECLARATION_MARK
        declared="$(gcc -E -P -x c -std=c99 -D_POSIX_C_SOURCE=200809L -DVOW_EXTERN="$mark" -I "$root/include" \
                "${pkg_cflags[@]}" "$root/include/$header" 2>>"$header_log" | tr '\n' ' ' | sed "s/$mark/\n$mark/g" \
            | grep "^$mark" | sed -E 's/^[^(]*[^a-zA-Z0-9_](vow_[a-z0-9_]+)[[:space:]]*\(.*$/\1/' \
            | grep "^vow_${name}_" | sort -u)"
        defined="$(nm --defined-only "$out/libvow-$name.a" | awk '$2 == "T" { print $3 }' | sort -u)"
        missing="$(comm -23 <(printf '%s\n' "$declared") <(printf '%s\n' "$defined"))"
        count="$(printf '%s\n' "$declared" | grep -c . || true)"
        if [[ "$count" -lt 2 || -n "$missing" ]]; then
            headers_ok=0
            echo "$header: $count declared; not defined in libvow-$name.a: ${missing:-none}" >>"$header_log"
        fi
        echo "$header: $count functions declared, all defined in libvow-$name.a" >>"$header_log"
    fi
done
if [[ "$headers_ok" -eq 1 ]]; then
    ok "headers: vow_uv.h, vow_glib.h as C99 and C++17, nullability complete, every function defined, every promise maker with its _site twin"
else
    fail "headers: see $header_log"
    sed 's/^/    /' "$header_log" | tail -20
fi

# --- the programs -----------------------------------------------------------------------------
cc_flags=(-std=c11 -Wall -Wextra -Werror -g -O1 -I "$root/include" -I "$root/Tests/C" -I "$here")
shopt -s nullglob
sources=("$here"/test_uv_*.c "$here"/test_glib_*.c)
names=()
for src in "${sources[@]}"; do
    name="$(basename "$src" .c)"
    if [[ -n "${LOOP_TESTS:-}" ]] && [[ " $LOOP_TESTS " != *" $name "* ]]; then continue; fi
    names+=("$name")
done

# build_programs DIR: builds every selected program for the current mode into DIR; sets
# `built`. The ASan builds compile the bridge into the program, not from the archive.
build_programs() {
    local dir=$1 name bridge
    mkdir -p "$dir"
    built=()
    for name in "${names[@]}"; do
        case "$name" in
            test_uv_*) bridge=uv ;;
            *) bridge=glib ;;
        esac
        read -r -a loop_flags <<<"$(pkg-config --cflags --libs "$(vow_bridge_pkg "$bridge")")"
        local bridge_code=("$out/libvow-$bridge.a")
        [[ "$VOW_MATRIX_MODE" == asan ]] && mapfile -t bridge_code < <(vow_bridge_sources "$root" "$bridge")
        if ! vow_matrix_compile "$dir/$name" "$dir/$name.build.log" cc "${cc_flags[@]}" "$here/$name.c" \
                "${bridge_code[@]}" "${loop_flags[@]}" -L "$bin" -lvow "-Wl,-rpath,$bin" -lpthread -lm; then
            fail "$name [$VOW_MATRIX_MODE] (does not build: $dir/$name.build.log)"
            sed 's/^/    /' "$dir/$name.build.log" | head -20
            continue
        fi
        built+=("$name")
    done
}
vow_matrix_mode "$root" plain 60
build_programs "$out"
plain_built=("${built[@]}")

for pass in "${passes[@]}"; do
    if ! vow_matrix_mode "$root" "$pass" 60 "--suppressions=$here/loop-tests-valgrind.supp" 2>"$out/mode.log"; then
        fail "$pass: $(cat "$out/mode.log")"
        continue
    fi
    prog_dir="$out"
    built=("${plain_built[@]}")
    if [[ "$pass" == asan ]]; then
        prog_dir="$out/asan"
        build_programs "$prog_dir"
    fi
    for name in "${built[@]}"; do
        log="$out/$name.$pass.log"
        vow_matrix_run "$log" "$prog_dir/$name"
        if vow_matrix_judge "$name [$pass]" "$log" \
                'uv_loop_close|definitely|indirectly|Invalid|uninitialised|GLib-CRITICAL|GLib-WARNING'; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    done
done

# Issue 27: a Swift actor on the libuv bridge (a C program with a Swift component).
source "$here/actor_uv.sh" && run_actor_uv_test

total_s=$(awk -v a="$start_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "loops (${passes[*]}) took ${total_s} s"
echo "loops: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
