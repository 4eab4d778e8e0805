#!/usr/bin/env bash
# Soak test: C and Swift threads create, chain, cancel and settle promises on one
# libvow.so for SECONDS (default 600), then exact totals and flat memory are checked.
#
#   scripts/soak.sh [SECONDS] [BIN_DIR]
#
# BIN_DIR: the release bin path holding libvow.so and Modules/Vow.swiftmodule (default:
# built with `swift build -c release --scratch-path .build-release`, as scripts/test.sh
# does). The test command runs `scripts/soak.sh 20`; `make soak SECONDS=600` runs it long.
#
# The program (scripts/soak/soak.c, with scripts/soak/soak_swift.swift compiled by swiftc
# into a library against the same libvow.so) runs 2 C worker threads, 2 Swift worker
# threads and a C settler thread. What it checks (see the top of soak.c):
#   every unit settled as its kind implies; every finally ran once; every C context's
#   destroy ran exactly once; unhandled-error reports == deliberately unhandled
#   rejections, and no other; RSS at the end <= RSS after warm-up (10% of the run, 1 to
#   60 s) * 1.10 + 8 MiB. It prints the totals and RSS at start, end and peak, and exits
#   non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_TO_RUN=${1:-600}

source "$ROOT/scripts/lib/vow-swift.sh"
BIN=${2:-}
if [ -z "$BIN" ]; then
    BIN=$(vow_release_bin "$ROOT") || exit 1
fi
[ -f "$BIN/libvow.so" ] || { echo "soak: no libvow.so in $BIN"; exit 1; }

OUT=$(mktemp -d "${TMPDIR:-/tmp}/vow-soak.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

vow_swiftc_flags "$BIN" "$ROOT" || exit 1
swiftc -O -emit-library -module-name VowSoakSwift "${VOW_SWIFTC_FLAGS[@]}" \
    scripts/soak/soak_swift.swift -o "$OUT/libvowsoakswift.so"

cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -pthread -Iinclude scripts/soak/soak.c -o "$OUT/soak" \
    -L "$OUT" -lvowsoakswift -L "$BIN" -lvow -Wl,-rpath,"$OUT" -Wl,-rpath,"$BIN"

SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no} "$OUT/soak" "$SECONDS_TO_RUN"
