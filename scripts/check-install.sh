#!/usr/bin/env bash
# The test command's "install" stage: `make install` (scripts/install.sh) into a temporary
# prefix, then, each job in its own script:
#
#   here                          the layout: libvow.so.VERSION with its SONAME and its
#                                 RUNPATH beside it, the links, the Swift runtime in
#                                 lib/vow/runtime-N, the pkg-config and CMake files, with the
#                                 header's version; a second install over the first
#   scripts/check-programs.sh     C, C++, libuv and GLib programs built with pkg-config and
#                                 with CMake's find_package(Vow), run, and the C program
#                                 under valgrind, all in a mount namespace where the Swift
#                                 toolchain is hidden (nothing loads from it)
#   scripts/check-one-engine.sh   Swift components and programs on the installed libvow.so,
#                                 with the documents' own commands (one engine, one runtime)
#   scripts/check-two-engines.sh  the wrong builds, on purpose: a second engine is told and
#                                 refused
#
# The prefix is removed at the end. Prints `install: ok` or what went wrong; exits non-zero
# on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
source scripts/lib/vow-version.sh
source scripts/lib/vow-toolchain.sh
source scripts/lib/vow-install-swift.sh

work=$(mktemp -d)
prefix=$(mktemp -d)
trap 'rm -rf "$work" "$prefix"' EXIT
fail() { echo "install: FAILED: $*"; exit 1; }
version=$(vow_version "$ROOT")
so=$VOW_SOVERSION

scripts/install.sh "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "scripts/install.sh"; }
lib="$prefix/lib"
for file in include/vow.h include/vow.hpp include/vow/vow-inl.hpp include/vow/detail.hpp \
        include/vow_testing.h include/vow_uv.h include/vow_glib.h \
        "lib/libvow.so.$version" lib/libvow-uv.a lib/libvow-glib.a lib/vow-valgrind.supp \
        lib/pkgconfig/vow.pc lib/pkgconfig/vow-uv.pc lib/pkgconfig/vow-glib.pc lib/pkgconfig/vow-swift.pc \
        lib/cmake/Vow/VowConfig.cmake lib/cmake/Vow/VowConfigVersion.cmake lib/vow/swift/module.modulemap; do
    [ -f "$prefix/$file" ] || fail "$prefix/$file was not installed"
done
for module in "${VOW_SWIFT_MODULES[@]}"; do
    [ -f "$lib/vow/swift/$module.swiftmodule" ] || fail "the Swift module $module was not installed"
done
[ "$(readlink "$lib/libvow.so.$so")" = "libvow.so.$version" ] || fail "libvow.so.$so does not link to libvow.so.$version"
[ "$(readlink "$lib/libvow.so")" = "libvow.so.$so" ] || fail "libvow.so does not link to libvow.so.$so"
dynamic=$(readelf -d "$lib/libvow.so.$version")
grep -qF "Library soname: [libvow.so.$so]" <<<"$dynamic" || fail "libvow.so.$version has no SONAME libvow.so.$so"
grep -qF "Library runpath: [\$ORIGIN/vow/runtime-$so]" <<<"$dynamic" \
    || fail "libvow.so.$version's RUNPATH is not \$ORIGIN/vow/runtime-$so: $(grep -i path <<<"$dynamic")"
# Every Swift library libvow.so needs is found beside it, none in the toolchain.
hidden=$(vow_toolchain_dir)
needed=$(ldd "$lib/libvow.so.$version")
! grep -q "not found" <<<"$needed" || fail "libvow.so.$version: $(grep "not found" <<<"$needed")"
! grep -qF "$hidden/" <<<"$needed" || fail "libvow.so.$version loads from the toolchain: $(grep -F "$hidden/" <<<"$needed")"
[ "$(grep -c "$lib/vow/runtime-$so/" <<<"$needed")" -eq "$(find "$lib/vow/runtime-$so" -name '*.so' | wc -l)" ] \
    || fail "lib/vow/runtime-$so holds libraries libvow.so does not load"
runtime_size=$(du -sh "$lib/vow/runtime-$so" | cut -f1)
echo "  layout: libvow.so.$version (SONAME libvow.so.$so, RUNPATH \$ORIGIN/vow/runtime-$so, $(du -h "$lib/libvow.so.$version" | cut -f1)), the Swift runtime beside it ($(find "$lib/vow/runtime-$so" -name '*.so' | wc -l) libraries, $runtime_size)"
# make install twice: the second replaces the first (links and runtime included).
scripts/install.sh "$prefix" >"$work/install2.log" 2>&1 || { cat "$work/install2.log"; fail "scripts/install.sh a second time"; }
[ "$(readlink "$lib/libvow.so")" = "libvow.so.$so" ] || fail "a second install broke the links"

# Programs on the prefix, with the toolchain hidden.
mkdir -p "$work/programs"
PKG_CONFIG_PATH="$lib/pkgconfig" CMAKE_PREFIX_PATH="$prefix" \
    vow_without_toolchain env PATH=/usr/local/bin:/usr/bin:/bin scripts/check-programs.sh "$work/programs" "$hidden" \
    || fail "programs on the installed prefix, without the toolchain"

scripts/check-one-engine.sh "$prefix" || fail "one engine per process"
scripts/check-two-engines.sh "$prefix" || fail "two engines, on purpose"
echo "install: ok (temporary prefix removed)"
