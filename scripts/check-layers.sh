#!/usr/bin/env bash
# Checks that the faces of the Vow module are layers (ARCHITECTURE.md, "Layers"): each
# group of folders below compiles as a module of its own, with the engine and the C
# modules, and without the folders not listed in it. So
#
#   Shared/             uses the engine only: what both faces speak (values, errors, the
#                       objects behind the C handles, thenables, the process-wide settings'
#                       namespace)
#   FFI/                uses Shared/ only
#   Swift/, AnyPromise/ (the Swift face) use Shared/ and FFI/, nothing of C/
#   C/                  (the C face) uses Shared/ and FFI/, nothing of Swift/ or AnyPromise/
#
# A compiler error here names a declaration one layer takes from another: move what both
# need into Shared/ (or the engine), or pass it through a protocol Shared/ declares.
#
# Usage: scripts/check-layers.sh   (about a minute and a half on 2 cores; the test command's
# build stage runs it). Builds in a temporary package of symbolic links.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/vow-layers.XXXXXX")"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/Sources"
for target in VowEngine VowTestLoop CVow CFFI; do ln -s "$root/Sources/$target" "$work/Sources/$target"; done
cat > "$work/Package.swift" <<'SWIFT'
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "VowLayers",
    targets: [
        .target(name: "CVow", path: "Sources/CVow"),
        .systemLibrary(name: "CFFI", path: "Sources/CFFI", pkgConfig: "libffi"),
        .target(name: "VowEngine", swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "VowTestLoop", dependencies: ["VowEngine"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "Vow", dependencies: ["VowEngine", "VowTestLoop", "CVow", "CFFI"], swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
SWIFT

failed=0
for layer in "Shared" "Shared FFI" "Shared FFI Swift AnyPromise" "Shared FFI C"; do
    rm -rf "$work/Sources/Vow"
    mkdir "$work/Sources/Vow"
    for folder in $layer; do
        for file in "$root/Sources/Vow/$folder"/*.swift; do ln -s "$file" "$work/Sources/Vow/"; done
    done
    if log=$(cd "$work" && swift build 2>&1); then
        echo "layers: $layer: compiles alone"
    else
        echo "layers: $layer: does not compile without the other folders:"
        grep -E "^/.*error:" <<< "$log" | sed -E "s|$work/Sources/Vow/||" | sort -u | head -20
        failed=1
    fi
done
exit "$failed"
