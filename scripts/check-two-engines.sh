#!/usr/bin/env bash
# The wrong builds, on purpose (Tests/TwoEngines), next to a Vow installed into PREFIX by
# `make install` (the install stage runs this):
#
#   scripts/check-two-engines.sh PREFIX
#
# Each has a copy of the engine of its own (the SwiftPM product VowSwiftOnly) next to the
# installed libvow.so: a component that a C program links (both copies load at start), and
# a Swift program that loads libvow.so later with dlopen (its copy exports no symbol). Each
# must get the load-time line once and have its handles refused both ways. Built in
# .build-two-engines (ignored by git), so that the copy compiles once.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
prefix=$1
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "two-engines: FAILED: $*"; exit 1; }

dir="$work/two-engines" rc=0
identity=$(basename "$ROOT" | tr '[:upper:]' '[:lower:]')
mkdir -p "$dir/Sources/Twin" "$dir/Sources/TwinApp"
cp Tests/TwoEngines/Component.swift "$dir/Sources/Twin/"
cp Tests/TwoEngines/App/main.swift "$dir/Sources/TwinApp/"
cp Tests/TwoEngines/main.c "$dir/"
cat >"$dir/Package.swift" <<PKG
// swift-tools-version:6.1
import PackageDescription
let package = Package(
name: "Twin",
products: [.library(name: "Twin", type: .dynamic, targets: ["Twin"])],
dependencies: [.package(path: "$ROOT")],
targets: [
    .target(name: "Twin", dependencies: [.product(name: "VowSwiftOnly", package: "$identity")]),
    .executableTarget(name: "TwinApp", dependencies: [.product(name: "VowSwiftOnly", package: "$identity")]),
]
)
PKG
swift build --package-path "$dir" --scratch-path "$ROOT/.build-two-engines" >"$work/twin-build.log" 2>&1 \
    || { tail -20 "$work/twin-build.log"; fail "two-engines: the component did not build"; }
bin=$(swift build --package-path "$dir" --scratch-path "$ROOT/.build-two-engines" --show-bin-path)
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
(cd "$dir" && cc -std=c11 -Wall -Wextra -Werror main.c $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs vow) \
    -L"$bin" -lTwin -Wl,-rpath,"$bin" -o two-engines) || fail "two-engines: the program did not build"
(cd "$dir" && env -u LD_LIBRARY_PATH ./two-engines) >"$work/two-engines.out" 2>&1 || rc=$?

for line in \
        "vow: two copies of the Vow engine are loaded in this process" \
        "Fix the build: Swift code that shares promises with C links the one libvow.so" \
        "vow: AnyPromise(unsafeHandle:): the vow_promise belongs to another copy of the Vow engine" \
        "twin_double(a promise of libvow.so): refused" \
        "vow: vow_then: the vow_promise belongs to another copy of the Vow engine" \
        "vow_then(a promise of the component's copy): refused"; do
    grep -qF -- "$line" "$work/two-engines.out" || { cat "$work/two-engines.out"; fail "two-engines: missing: $line"; }
done
[ "$(grep -c "copies of the Vow engine are loaded" "$work/two-engines.out")" -eq 1 ] \
    || { cat "$work/two-engines.out"; fail "two-engines: the load-time line must appear once"; }
[ "$rc" -eq 0 ] || { cat "$work/two-engines.out"; fail "two-engines: exit $rc"; }
echo "  two-engines (wrong on purpose): a component with its own copy: told at load, handles refused both ways (AnyPromise(unsafeHandle:), vow_then)"

rc=0
(cd "$dir" && env -u LD_LIBRARY_PATH "$bin/TwinApp" "$prefix/lib/libvow.so") >"$work/two-engines-app.out" 2>&1 || rc=$?
for line in \
        "vow: two copies of the Vow engine are loaded in this process" \
        "AnyPromise(unsafeHandle: a promise of libvow.so): nil" \
        "vow: AnyPromise(unsafeHandle:): the vow_promise belongs to another copy of the Vow engine" \
        "vow_promise_state(a promise of the program's copy): refused" \
        "vow: vow_promise_state: the vow_promise belongs to another copy of the Vow engine"; do
    grep -qF -- "$line" "$work/two-engines-app.out" || { cat "$work/two-engines-app.out"; fail "two-engines, program: missing: $line"; }
done
[ "$(grep -c "copies of the Vow engine are loaded" "$work/two-engines-app.out")" -eq 1 ] \
    || { cat "$work/two-engines-app.out"; fail "two-engines, program: the load-time line must appear once"; }
[ "$rc" -eq 0 ] || { cat "$work/two-engines-app.out"; fail "two-engines, program: exit $rc"; }
echo "  two-engines (wrong on purpose): a program with its own copy that dlopens libvow.so: told when it loads, handles refused both ways"
