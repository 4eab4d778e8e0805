#!/usr/bin/env bash
# The wrong builds, on purpose (Tests/TwoEngines), next to a Vow installed into PREFIX by
# `make install` (the install stage runs this), and their one-engine twins: which copies of
# the engine count is exact (ARCHITECTURE.md, "One engine whatever the products"):
#
#   scripts/check-two-engines.sh PREFIX
#
#  1. a Swift library with a copy of its own (through VowTesting) that a C program links
#     after libvow.so: two engines in use, told at load, handles refused both ways;
#     linked before libvow.so: libvow.so's entry points reach the library's copy, one engine;
#  2. a Swift program with a copy of its own (VowSwiftOnly) that loads libvow.so later with
#     dlopen (its copy exports nothing): two engines;
#  3. a Swift component built with swiftc on the installed Vow, loaded with dlopen into a
#     program with a copy of its own: the program exports what libvow.so defines (the
#     products vow and VowTesting): one engine, the component's Swift code uses the
#     program's copy; the program exports the engine's table but none of its Swift symbols
#     (an export list): libvow.so's entry points reach the program's copy but the
#     component's Swift code uses libvow.so's, so libvow.so's copy counts: two engines.
#
# Each two-engine case must get the load-time line once and have its handles refused both
# ways. Built in .build-two-engines (ignored by git), so that the copies compile once.
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
mkdir -p "$dir/Sources/Twin" "$dir/Sources/TwinApp" "$dir/Sources/TwoHost" "$dir/Sources/OneHost"
cp Tests/TwoEngines/Component.swift "$dir/Sources/Twin/"
cp Tests/TwoEngines/App/TwinAppMain.swift "$dir/Sources/TwinApp/main.swift"
cp Tests/TwoEngines/Host/HostMain.swift "$dir/Sources/TwoHost/main.swift"
cp Tests/TwoEngines/Host/HostMain.swift "$dir/Sources/OneHost/main.swift"
cp Tests/TwoEngines/main.c Tests/TwoEngines/Plugin/Plugin.swift "$dir/"
echo '{ VowEngineEntries_*; };' >"$dir/table-only.list"
cat >"$dir/Package.swift" <<PKG
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Twin",
    products: [.library(name: "Twin", type: .dynamic, targets: ["Twin"])],
    dependencies: [.package(path: "$ROOT")],
    targets: [
        .target(name: "Twin", dependencies: [.product(name: "VowTesting", package: "$identity")]),
        .executableTarget(name: "TwinApp", dependencies: [.product(name: "VowSwiftOnly", package: "$identity")]),
        .executableTarget(name: "TwoHost", dependencies: [.product(name: "VowSwiftOnly", package: "$identity")],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "--dynamic-list=$dir/table-only.list"])]),
        .executableTarget(name: "OneHost", dependencies: [.product(name: "vow", package: "$identity"),
                                                          .product(name: "VowTesting", package: "$identity")]),
    ]
)
PKG
swift build --package-path "$dir" --scratch-path "$ROOT/.build-two-engines" >"$work/twin-build.log" 2>&1 \
    || { tail -20 "$work/twin-build.log"; fail "two-engines: the component did not build"; }
bin=$(swift build --package-path "$dir" --scratch-path "$ROOT/.build-two-engines" --show-bin-path)

# told OUT RC WHAT LINE...: the run whose output is OUT and exit status RC was told of two
# engines: every LINE in OUT, the load-time line once, exit 0.
told() {
    local out=$1 status=$2 what=$3 line
    shift 3
    for line; do
        grep -qF -- "$line" "$out" || { cat "$out"; fail "$what: missing: $line"; }
    done
    [ "$(grep -c "copies of the Vow engine are loaded" "$out")" -eq 1 ] \
        || { cat "$out"; fail "$what: the load-time line must appear once"; }
    [ "$status" -eq 0 ] || { cat "$out"; fail "$what: exit $status"; }
}

# one_engine OUT RC LINE WHY: the run was one engine: nothing said of another, exit 0, LINE in OUT.
one_engine() {
    ! grep -q "copies of the Vow engine\|another copy" "$1" && [ "$2" -eq 0 ] && grep -qF -- "$3" "$1" \
        || { cat "$1"; fail "two-engines: $4 (exit $2)"; }
}

# 1. The library after libvow.so, then before it.
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
(cd "$dir" && cc -std=c11 -Wall -Wextra -Werror main.c $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs vow) \
    -L"$bin" -lTwin -Wl,-rpath,"$bin" -o two-engines \
    && cc -std=c11 -Wall -Wextra -Werror main.c -L"$bin" -lTwin -Wl,-rpath,"$bin" \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs vow) -o one-engine) \
    || fail "two-engines: the program did not build"
(cd "$dir" && env -u LD_LIBRARY_PATH ./two-engines two) >"$work/two-engines.out" 2>&1 || rc=$?
told "$work/two-engines.out" "$rc" two-engines \
    "vow: two copies of the Vow engine are loaded in this process" \
    "Fix the build: Swift code that shares promises with C links the one libvow.so" \
    "vow: AnyPromise(unsafeHandle:): the vow_promise belongs to another copy of the Vow engine" \
    "twin_double(a promise of libvow.so): refused" \
    "vow: vow_then: the vow_promise belongs to another copy of the Vow engine" \
    "vow_then(a promise of the component's copy): refused"
echo "  two-engines (wrong on purpose): a library with its own copy after libvow.so: told at load, handles refused both ways (AnyPromise(unsafeHandle:), vow_then)"
rc=0
(cd "$dir" && env -u LD_LIBRARY_PATH ./one-engine one) >"$work/one-engine.out" 2>&1 || rc=$?
one_engine "$work/one-engine.out" "$rc" "one engine: 7 doubled by the component is 14, 21 chained in C is 21" \
    "the library before libvow.so must be the one engine"
echo "  two-engines: the same library before libvow.so: libvow.so's entry points reach its copy, one engine ($(tail -1 "$work/one-engine.out" | sed 's/^one engine: //'))"

# 2. The program that loads libvow.so with dlopen.
rc=0
(cd "$dir" && env -u LD_LIBRARY_PATH "$bin/TwinApp" "$prefix/lib/libvow.so") >"$work/two-engines-app.out" 2>&1 || rc=$?
told "$work/two-engines-app.out" "$rc" "two-engines, program" \
    "vow: two copies of the Vow engine are loaded in this process" \
    "AnyPromise(unsafeHandle: a promise of libvow.so): nil" \
    "vow: AnyPromise(unsafeHandle:): the vow_promise belongs to another copy of the Vow engine" \
    "vow_promise_state(a promise of the program's copy): refused" \
    "vow: vow_promise_state: the vow_promise belongs to another copy of the Vow engine"
echo "  two-engines (wrong on purpose): a program with its own copy that dlopens libvow.so: told when it loads, handles refused both ways"

# 3. The component on the installed Vow, in a program with a copy of its own.
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
(cd "$dir" && swiftc -emit-library -module-name Plugin $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=swiftflags vow) \
    Plugin.swift -o libPlugin.so) >"$work/plugin-build.log" 2>&1 \
    || { cat "$work/plugin-build.log"; fail "two-engines: the component on the installed Vow did not build"; }
rc=0
(cd "$dir" && env -u LD_LIBRARY_PATH "$bin/OneHost" "$dir/libPlugin.so" one) >"$work/one-host.out" 2>&1 || rc=$?
one_engine "$work/one-host.out" "$rc" "one engine: the component's 21 read here is 21, 7 doubled by the component is 14" \
    "a component on the installed Vow in a program on vow and VowTesting must use the program's engine"
echo "  two-engines: a component on the installed Vow loaded into a program on vow + VowTesting: one engine, the program's (handles cross both ways)"
rc=0
(cd "$dir" && env -u LD_LIBRARY_PATH "$bin/TwoHost" "$dir/libPlugin.so" two) >"$work/two-host.out" 2>&1 || rc=$?
told "$work/two-host.out" "$rc" "two-engines, component" \
    "vow: two copies of the Vow engine are loaded in this process" \
    "(whose Swift engine $dir/libPlugin.so uses)" \
    "AnyPromise(unsafeHandle: a promise of the component): refused" \
    "plugin_double(a promise of the program): refused" \
    "vow: AnyPromise(unsafeHandle:): the vow_promise belongs to another copy of the Vow engine"
echo "  two-engines (wrong on purpose): the component in a program that exports only the engine's table: libvow.so's copy counts (the component's Swift code uses it): told at load, handles refused both ways"
