#!/usr/bin/env bash
# Builds and runs programs on an installed Vow the ways a user does, with nothing but what
# is installed (run by the install stage on `make install`'s prefix and by the package
# stage on the installed Debian packages, both times with the Swift toolchain hidden):
#
#   scripts/check-programs.sh WORK HIDDEN
#
# WORK: an empty scratch folder. HIDDEN: the toolchain's folder (scripts/lib/vow-toolchain.sh),
# of which no program may load anything. pkg-config and CMake find Vow through their
# environment (PKG_CONFIG_PATH, CMAKE_PREFIX_PATH; empty for a system install).
#   1. Tests/Install/app.c, built with `cc app.c $(pkg-config --cflags --libs vow)`, runs;
#      ldd shows libvow.so.N resolved and nothing from HIDDEN;
#   2. Examples/cmake (find_package(Vow 0.3 CONFIG REQUIRED COMPONENTS uv glib)): a C++
#      program (Vow::vow), a libuv program (Vow::uv) and a GLib program (Vow::glib) build
#      and run; VowConfigVersion.cmake accepts 0.3.x and refuses other versions;
#   3. the same three sources built with pkg-config (vow, vow-uv, vow-glib) run;
#   4. app passes valgrind's standard leak check with the installed suppression file, and
#      a program that leaks one promise fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
work=$1 hidden=$2
source scripts/lib/vow-version.sh
version=$(vow_version "$ROOT")
fail() { echo "programs: FAILED: $*"; exit 1; }

# run NAME EXPECTED...: runs $work/NAME with no LD_LIBRARY_PATH; its output must hold each
# EXPECTED line, and ldd must show nothing from the hidden toolchain.
run() {
    local name=$1 line
    shift
    env -u LD_LIBRARY_PATH "$work/$name" >"$work/$name.out" 2>&1 || { cat "$work/$name.out"; fail "$name exited non-zero"; }
    for line in "$@"; do
        grep -qF -- "$line" "$work/$name.out" || { cat "$work/$name.out"; fail "$name did not print: $line"; }
    done
    ldd "$work/$name" >"$work/$name.ldd"
    ! grep -q "not found" "$work/$name.ldd" || { cat "$work/$name.ldd"; fail "$name: a library is not found"; }
    ! grep -qF "$hidden/" "$work/$name.ldd" || { cat "$work/$name.ldd"; fail "$name loads from the toolchain"; }
    grep -qE "libvow\.so\.$VOW_SOVERSION => " "$work/$name.ldd" || { cat "$work/$name.ldd"; fail "$name does not load libvow.so.$VOW_SOVERSION"; }
}

[ -z "$(ls -A "$hidden" 2>/dev/null)" ] || fail "$hidden is not hidden"
! command -v swiftc >/dev/null 2>&1 || fail "swiftc is still on the PATH"

# 1. A C program with pkg-config.
[ "$(pkg-config --modversion vow)" = "$version" ] || fail "vow.pc says $(pkg-config --modversion vow), the header $version"
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
cc -std=c11 -Wall -Wextra -Werror Tests/Install/app.c $(pkg-config --cflags --libs vow) -o "$work/app" \
    || fail "app.c did not build with pkg-config's flags"
run app "app: libvow $version, 21 doubled is 42" "app: caught an error from C"
runtime=$(awk '$1 == "libswiftCore.so" { print $3 }' "$work/app.ldd")
echo "  pkg-config vow: $(tail -1 "$work/app.out" | sed 's/^app: //'); the Swift runtime from $(dirname "$runtime")"

# 2. CMake.
cmake -S Examples/cmake -B "$work/cmake" >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "Examples/cmake: cmake did not configure"; }
cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "Examples/cmake did not build"; }
for name in cpp-app uv-app glib-app; do cp "$work/cmake/$name" "$work/$name"; done
run cpp-app "cpp-app: libvow $version, 21 doubled is 42"
run uv-app "uv-app: the timer's promise ran its callback inside uv_run" "uv-app: loop closed"
run glib-app "glib-app: the timeout's promise settled inside the main context" "glib-app: closed"
echo "  CMake find_package(Vow 0.3 ... COMPONENTS uv glib): cpp-app, uv-app and glib-app built and ran"
# VowConfigVersion.cmake, through find_package (one build folder: C is checked once):
# these requests find this version, ...
mkdir -p "$work/versions"
printf 'cmake_minimum_required(VERSION 3.19)\nproject(VersionCheck C)\nfind_package(Vow ${WANT} CONFIG REQUIRED)\n' \
    >"$work/versions/CMakeLists.txt"
major_minor=${version%.*}
next_minor="${version%%.*}.$(( $(cut -d. -f2 <<<"$version") + 1 ))"
for want in "$major_minor" "$version" "$major_minor...$next_minor" "$major_minor...<$next_minor"; do
    cmake -S "$work/versions" -B "$work/versions/build" -DWANT="$want" -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON \
        >"$work/versions.log" 2>&1 || { cat "$work/versions.log"; fail "find_package(Vow $want) refused $version"; }
done
# ... and these do not (another minor before 1.0, another major, a newer patch).
for want in "${version%%.*}.$(( $(cut -d. -f2 <<<"$version") - 1 ))" "$next_minor" "$(( ${version%%.*} + 1 )).0" \
        "$major_minor.$(( ${version##*.} + 1 ))" "${version%%.*}.0...$major_minor"; do
    if cmake -S "$work/versions" -B "$work/versions/build" -DWANT="$want" >"$work/versions.log" 2>&1; then
        cat "$work/versions.log"; fail "find_package(Vow $want) accepted $version"
    fi
    grep -q "version: $version" "$work/versions.log" && grep -q "considered but not accepted" "$work/versions.log" \
        || { cat "$work/versions.log"; fail "find_package(Vow $want) failed, but not on the version"; }
done
echo "  VowConfigVersion.cmake: $version meets 0.3, $version and 0.3 ranges; refuses another minor, major or a later patch"

# 3. The same programs with pkg-config.
# shellcheck disable=SC2046
c++ -std=c++17 -Wall -Wextra -Werror Examples/cmake/cpp_app.cpp $(pkg-config --cflags --libs vow) -o "$work/cpp-app" \
    || fail "cpp_app.cpp did not build with pkg-config vow"
run cpp-app "cpp-app: libvow $version, 21 doubled is 42"
for name in uv glib; do
    # shellcheck disable=SC2046
    cc -Wall -Wextra -Werror "Examples/cmake/${name}_app.c" $(pkg-config --cflags --libs "vow-$name") \
        -o "$work/$name-app" || fail "${name}_app.c did not build with pkg-config vow-$name"
done
run uv-app "uv-app: loop closed"
run glib-app "glib-app: closed"
echo "  pkg-config vow, vow-uv, vow-glib: cpp-app, uv-app and glib-app built and ran"

# 4. valgrind with the installed suppression file: a clean program passes, a leak fails.
supp=$(pkg-config --variable=valgrind_suppressions vow)
[ -f "$supp" ] || fail "pkg-config --variable=valgrind_suppressions vow names no file: $supp"
valgrind --error-exitcode=9 --leak-check=full --suppressions="$supp" "$work/app" >"$work/valgrind.out" 2>&1 \
    || { tail -40 "$work/valgrind.out"; fail "app under valgrind --leak-check=full --suppressions=$supp"; }
# shellcheck disable=SC2046
cc -std=c11 Tests/C/valgrind/leaks_a_promise.c $(pkg-config --cflags --libs vow) -o "$work/leaks" \
    || fail "leaks_a_promise.c did not build"
rc=0
valgrind --error-exitcode=9 --leak-check=full --suppressions="$supp" "$work/leaks" >"$work/leaks.out" 2>&1 || rc=$?
[ "$rc" -eq 9 ] && grep -q "definitely lost" "$work/leaks.out" \
    || { tail -20 "$work/leaks.out"; fail "valgrind with $supp did not fail a program that leaks a promise (exit $rc)"; }
echo "  valgrind --leak-check=full --suppressions=$supp: app passes, a leaked promise fails"
