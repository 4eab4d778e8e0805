#!/usr/bin/env bash
# Installs Vow (what `make install` runs):
#
#   scripts/install.sh PREFIX        LIBDIR=DIR (default PREFIX/lib), DESTDIR=DIR (staging,
#                                    as packagers use it: files go to DESTDIR/PREFIX/...,
#                                    the paths written into them say PREFIX/...)
#
# For C and C++ programs:
#   PREFIX/include/vow.h, vow.hpp, vow_testing.h (and vow_uv.h, vow_glib.h below)
#   PREFIX/include/vow/vow-inl.hpp, detail.hpp    vow.hpp's parts (definitions, internals)
#   LIBDIR/libvow.so.VERSION         SONAME libvow.so.N (N = VOW_SOVERSION, which counts ABI
#   LIBDIR/libvow.so.N -> libvow.so.VERSION      breaks: CHANGELOG.md), RUNPATH
#   LIBDIR/libvow.so -> libvow.so.N              $ORIGIN/vow/runtime-N
#   LIBDIR/vow/runtime-N/            the Swift runtime libraries libvow.so was linked with,
#                                    copied from the toolchain that built it: a program on
#                                    Vow runs where no Swift toolchain is installed, and a
#                                    Swift component built with that toolchain shares this
#                                    one runtime (the loader takes a library whose SONAME is
#                                    already loaded for the other)
#   LIBDIR/pkgconfig/vow.pc          `cc app.c $(pkg-config --cflags --libs vow)`
#   LIBDIR/cmake/Vow/                `find_package(Vow 0.3 CONFIG REQUIRED)`: Vow::vow,
#                                    Vow::uv, Vow::glib (scripts/cmake/)
#   LIBDIR/vow-valgrind.supp         `pkg-config --variable=valgrind_suppressions vow`
# the event-loop bridges, static archives a program links with its loop (skipped with a
# note where the loop's development files are missing: libuv1-dev, libglib2.0-dev):
#   PREFIX/include/vow_uv.h, LIBDIR/libvow-uv.a, LIBDIR/pkgconfig/vow-uv.pc
#   PREFIX/include/vow_glib.h, LIBDIR/libvow-glib.a, LIBDIR/pkgconfig/vow-glib.pc
# and what Swift code that shares promises with those programs needs to `import Vow` and
# link this libvow.so (scripts/lib/vow-install-swift.sh):
#   LIBDIR/vow/swift/, LIBDIR/pkgconfig/vow-swift.pc, `pkg-config --variable=swiftflags vow`
#
# Builds the release library first (scripts/lib/vow-swift.sh, in .build-release, or
# VOW_SCRATCH=DIR). Installed files keep their debug information (`make deb` strips).
# Needs patchelf (scripts/install-deps.sh). Ends by listing what a program needs at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: [LIBDIR=DIR] [DESTDIR=DIR] $0 PREFIX" >&2
    exit 2
fi
source scripts/lib/vow-swift.sh
source scripts/lib/vow-version.sh
source scripts/lib/vow-bridges.sh
source scripts/lib/vow-install-swift.sh

DESTDIR=${DESTDIR:-}
if [ -n "$DESTDIR" ]; then
    case "$1" in /*) ;; *) echo "$0: with DESTDIR, PREFIX is absolute (it is written into the files)" >&2; exit 2 ;; esac
    PREFIX=$1
else
    mkdir -p "$1"
    PREFIX=$(cd "$1" && pwd)   # absolute: it is written into vow.pc and, through it, into programs
fi
LIBDIR=${LIBDIR:-$PREFIX/lib}
INCLUDEDIR=$PREFIX/include
VERSION=$(vow_version "$ROOT")
SOVERSION=$VOW_SOVERSION
runtime_dir="vow/runtime-$SOVERSION"     # relative to LIBDIR, as libvow.so's RUNPATH says
command -v patchelf >/dev/null || { echo "$0: patchelf not found (scripts/install-deps.sh installs it)" >&2; exit 1; }

scratch=${VOW_SCRATCH:-$ROOT/.build-release}
echo "building libvow.so: swift build -c release --scratch-path $scratch"
log=$(mktemp)
if ! vow_release_build "$ROOT" "$scratch" >"$log" 2>&1; then
    tail -30 "$log"; rm -f "$log"; exit 1
fi
rm -f "$log"
BIN=$(vow_release_build "$ROOT" "$scratch" --show-bin-path)

install -d "$DESTDIR$INCLUDEDIR" "$DESTDIR$LIBDIR/pkgconfig" "$DESTDIR$LIBDIR/$runtime_dir" "$DESTDIR$LIBDIR/cmake/Vow"
for header in vow.h vow.hpp vow_testing.h; do
    install -m 644 "include/$header" "$DESTDIR$INCLUDEDIR/$header"
done
# vow.hpp's parts, which it includes: the definitions and the internals
install -d "$DESTDIR$INCLUDEDIR/vow"
install -m 644 include/vow/vow-inl.hpp include/vow/detail.hpp "$DESTDIR$INCLUDEDIR/vow/"

# The library under its versioned name, with its SONAME and a RUNPATH beside it instead of
# the toolchain's directory (SwiftPM links neither; patchelf edits the installed copy, so the
# build directory's libvow.so, which the tests link, stays as it is).
real="libvow.so.$VERSION"
install -m 755 "$BIN/libvow.so" "$DESTDIR$LIBDIR/$real"
# (One change a call: patchelf 0.14 given both writes only the first.)
patchelf --set-soname "libvow.so.$SOVERSION" "$DESTDIR$LIBDIR/$real"
patchelf --set-rpath "\$ORIGIN/$runtime_dir" "$DESTDIR$LIBDIR/$real"
ln -sfn "$real" "$DESTDIR$LIBDIR/libvow.so.$SOVERSION"
ln -sfn "libvow.so.$SOVERSION" "$DESTDIR$LIBDIR/libvow.so"

# The Swift runtime: every library the built libvow.so loads from the toolchain's runtime
# directory (ldd follows them all, libswift_Builtin_float.so through libswiftCore.so too).
toolchain_runtime=$(ldd "$BIN/libvow.so" | awk '$1 == "libswiftCore.so" { print $3 }' | xargs -r dirname)
[ -n "$toolchain_runtime" ] || { echo "$0: libvow.so does not load libswiftCore.so (ldd $BIN/libvow.so)" >&2; exit 1; }
rm -f "$DESTDIR$LIBDIR/$runtime_dir"/*.so
runtime_libs=()
for lib in $(ldd "$BIN/libvow.so" | awk -v dir="$toolchain_runtime/" 'index($3, dir) == 1 { print $3 }'); do
    install -m 644 "$lib" "$DESTDIR$LIBDIR/$runtime_dir/$(basename "$lib")"
    runtime_libs+=("$(basename "$lib")")
done
install -m 644 scripts/vow-valgrind.supp "$DESTDIR$LIBDIR/vow-valgrind.supp"

# pkg-config and CMake. A program gets an rpath to LIBDIR unless LIBDIR is one of the
# system's own library directories (where the loader looks anyway, and Debian forbids one).
case "$LIBDIR" in
    /usr/lib | /usr/lib64 | /lib | /lib64 | /usr/lib/*-linux-gnu* | /lib/*-linux-gnu*) rpath_c="" rpath_swift="" ;;
    *) rpath_c=" -Wl,-rpath,\${libdir}" rpath_swift=" -Xlinker -rpath -Xlinker \${libdir}" ;;
esac
ffi_flags=""
for flag in $(pkg-config --cflags-only-I libffi 2>/dev/null); do ffi_flags="$ffi_flags -Xcc $flag"; done
# fill TEMPLATE OUT: the template with the install's paths and version.
fill() {
    sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@LIBDIR@|$LIBDIR|g" -e "s|@INCLUDEDIR@|$INCLUDEDIR|g" \
        -e "s|@VERSION@|$VERSION|g" -e "s|@SOVERSION@|$SOVERSION|g" \
        -e "s|@RPATH_C@|$rpath_c|g" -e "s|@RPATH_SWIFT@|$rpath_swift|g" -e "s|@FFI_SWIFTFLAGS@|$ffi_flags|g" \
        -e "s|@CMAKE_TO_LIBDIR@|../..|g" \
        -e "s|@CMAKE_TO_INCLUDEDIR@|$(realpath -m --relative-to="$LIBDIR/cmake/Vow" "$INCLUDEDIR")|g" \
        "$1" >"$2"
}
for pc in vow vow-swift; do fill "scripts/$pc.pc.in" "$DESTDIR$LIBDIR/pkgconfig/$pc.pc"; done
for file in VowConfig.cmake VowConfigVersion.cmake; do
    fill "scripts/cmake/$file.in" "$DESTDIR$LIBDIR/cmake/Vow/$file"
done

# The event-loop bridges (scripts/lib/vow-bridges.sh builds them; libvow.so does not link them).
bridges=()
for name in $(vow_bridge_names); do
    pkg=$(vow_bridge_pkg "$name")
    if ! pkg-config --exists "$pkg"; then
        echo "note: $pkg not found by pkg-config: vow_$name.h is not installed (scripts/install-deps.sh installs it)"
        continue
    fi
    work=$(mktemp -d)
    if ! vow_build_bridge "$ROOT" "$name" "$work"; then
        rm -rf "$work"; exit 1
    fi
    install -m 644 "$(vow_bridge_header "$ROOT" "$name")" "$DESTDIR$INCLUDEDIR/vow_$name.h"
    install -m 644 "$work/libvow-$name.a" "$DESTDIR$LIBDIR/libvow-$name.a"
    rm -rf "$work"
    fill "scripts/vow-$name.pc.in" "$DESTDIR$LIBDIR/pkgconfig/vow-$name.pc"
    bridges+=("$name")
done

# Swift: the modules and the module map of the C modules they import.
vow_install_swift_modules "$BIN" "$DESTDIR$LIBDIR/vow/swift" "$(realpath -m --relative-to="$LIBDIR/vow/swift" "$INCLUDEDIR")"

cat <<INFO
installed Vow $VERSION${DESTDIR:+ into $DESTDIR}:
  $INCLUDEDIR/vow.h, vow.hpp, vow_testing.h
  $LIBDIR/$real (SONAME libvow.so.$SOVERSION), libvow.so.$SOVERSION, libvow.so
  $LIBDIR/$runtime_dir/ (the Swift runtime: ${runtime_libs[*]})
  $LIBDIR/pkgconfig/vow.pc, vow-swift.pc
  $LIBDIR/cmake/Vow/ (find_package(Vow $VERSION))
  $LIBDIR/vow/swift/ (the Swift modules: ${VOW_SWIFT_MODULES[*]})
  $LIBDIR/vow-valgrind.supp
build a C program with:
  cc app.c \$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --cflags --libs vow)
or with CMake (CMAKE_PREFIX_PATH=$PREFIX):
  find_package(Vow $(cut -d. -f1,2 <<<"$VERSION") CONFIG REQUIRED)  target_link_libraries(app PRIVATE Vow::vow)
a Swift component that shares its promises (same compiler: $(swiftc --version 2>&1 | sed -n 1p)):
  swiftc -emit-library \$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --variable=swiftflags vow) component.swift
  or, with SwiftPM, a system-library target on pkgConfig "vow-swift" (README, "One engine per process")
check for leaks with:
  valgrind --leak-check=full --suppressions=$LIBDIR/vow-valgrind.supp ./a.out
INFO
for name in "${bridges[@]}"; do
    echo "the bridge to $(vow_bridge_pkg "$name"): $INCLUDEDIR/vow_$name.h, $LIBDIR/libvow-$name.a, vow-$name.pc, Vow::$name"
done
echo "at run time, $real needs (besides its runtime directory) $(readelf -d "$DESTDIR$LIBDIR/$real" \
    | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^libswift\|^libdispatch\|^libBlocksRuntime' | tr '\n' ' ')from the system, and libstdc++ and libgcc_s through the Swift runtime."
