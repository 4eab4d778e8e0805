#!/usr/bin/env bash
# Installs Vow for C programs (what `make install PREFIX=...` runs):
#
#   PREFIX/include/vow.h
#   PREFIX/include/vow_testing.h    test loops for C tests (its functions are in libvow.so)
#   PREFIX/lib/libvow.so
#   PREFIX/lib/pkgconfig/vow.pc     so that `cc app.c $(pkg-config --cflags --libs vow)` works
#
# and the event-loop bridges, static archives that programs link with their loop:
#
#   PREFIX/include/vow_uv.h, PREFIX/lib/libvow-uv.a, PREFIX/lib/pkgconfig/vow-uv.pc
#   PREFIX/include/vow_glib.h, PREFIX/lib/libvow-glib.a, PREFIX/lib/pkgconfig/vow-glib.pc
#
# (`pkg-config --cflags --libs vow-uv` / `vow-glib`). A bridge whose loop's development
# files are missing (libuv1-dev, libglib2.0-dev) is skipped with a note.
#
#   scripts/install.sh PREFIX                        the default: Swift runtime linked dynamically
#   VOW_STATIC_STDLIB=1 scripts/install.sh PREFIX    the Swift runtime linked into libvow.so
#
# Builds the release library first, in `.build-release` (`.build-static` for the static
# variant; VOW_SCRATCH=DIR picks another scratch folder). Ends by listing what an installed
# program needs at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 PREFIX" >&2
    exit 2
fi
mkdir -p "$1"
PREFIX=$(cd "$1" && pwd)   # absolute: it is written into vow.pc and, through it, into programs

# The release recipe of scripts/lib/vow-swift.sh; the static variant adds one flag.
source scripts/lib/vow-swift.sh
scratch=${VOW_SCRATCH:-$ROOT/.build-release}
extra=()
if [ "${VOW_STATIC_STDLIB:-0}" = "1" ]; then
    scratch=${VOW_SCRATCH:-$ROOT/.build-static}
    extra=(-Xswiftc -static-stdlib)
fi
echo "building libvow.so: swift build -c release --scratch-path $scratch ${extra[*]}"
log=$(mktemp)
if ! vow_release_build "$ROOT" "$scratch" "${extra[@]}" >"$log" 2>&1; then
    tail -30 "$log"
    rm -f "$log"
    exit 1
fi
rm -f "$log"
BIN=$(vow_release_build "$ROOT" "$scratch" "${extra[@]}" --show-bin-path)

# The version comes from the header, the single source of truth for the C interface.
version_part() { sed -n "s/^#define VOW_VERSION_$1 \([0-9][0-9]*\)$/\1/p" include/vow.h; }
VERSION="$(version_part MAJOR).$(version_part MINOR).$(version_part PATCH)"

install -d "$PREFIX/include" "$PREFIX/lib/pkgconfig"
install -m 644 include/vow.h "$PREFIX/include/vow.h"
install -m 644 include/vow_testing.h "$PREFIX/include/vow_testing.h"
install -m 755 "$BIN/libvow.so" "$PREFIX/lib/libvow.so"
sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" scripts/vow.pc.in >"$PREFIX/lib/pkgconfig/vow.pc"

# The event-loop bridges (scripts/lib/vow-bridges.sh builds them; libvow.so does not link them).
source scripts/lib/vow-bridges.sh
bridges=()
for name in $(vow_bridge_names); do
    pkg=$(vow_bridge_pkg "$name")
    if ! pkg-config --exists "$pkg"; then
        echo "note: $pkg not found by pkg-config: vow_$name.h is not installed (scripts/install-deps.sh installs it)"
        continue
    fi
    work=$(mktemp -d)
    if ! vow_build_bridge "$ROOT" "$name" "$work"; then
        rm -rf "$work"
        exit 1
    fi
    install -m 644 "$(vow_bridge_header "$ROOT" "$name")" "$PREFIX/include/vow_$name.h"
    install -m 644 "$work/libvow-$name.a" "$PREFIX/lib/libvow-$name.a"
    rm -rf "$work"
    sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" "scripts/vow-$name.pc.in" >"$PREFIX/lib/pkgconfig/vow-$name.pc"
    bridges+=("$name")
done

cat <<INFO
installed Vow $VERSION:
  $PREFIX/include/vow.h
  $PREFIX/include/vow_testing.h
  $PREFIX/lib/libvow.so
  $PREFIX/lib/pkgconfig/vow.pc
build a C program with:
  cc app.c \$(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --cflags --libs vow)
INFO
for name in "${bridges[@]}"; do
    cat <<INFO
the bridge to $(vow_bridge_pkg "$name"):
  $PREFIX/include/vow_$name.h
  $PREFIX/lib/libvow-$name.a
  $PREFIX/lib/pkgconfig/vow-$name.pc
  cc app.c \$(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --cflags --libs vow-$name)
INFO
done

# What the library loads at run time, and where this machine finds it.
echo "at run time, libvow.so needs (ldd $PREFIX/lib/libvow.so):"
ldd "$PREFIX/lib/libvow.so" | awk '$1 !~ /^(linux-vdso|\/)/ { print "  " $1 " => " $3 }'
runpath=$(readelf -d "$PREFIX/lib/libvow.so" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
echo "libvow.so looks for them in its RUNPATH: ${runpath:-none} (then the system's directories)."
if [ "${VOW_STATIC_STDLIB:-0}" = "1" ]; then
    echo "The Swift runtime is inside libvow.so: a program needs only libvow.so, libffi8 and the C/C++ runtime."
else
    echo "Elsewhere, ship the Swift libraries above next to libvow.so (\$ORIGIN), or install"
    echo "with VOW_STATIC_STDLIB=1 to link the Swift runtime into libvow.so."
fi
