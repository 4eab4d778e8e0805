#!/usr/bin/env bash
# The test command's "install" stage: `scripts/install.sh` into a temporary prefix, then a
# small C program built the way a user builds one,
#
#   cc app.c $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs vow)
#
# run with no LD_LIBRARY_PATH, its output checked, and the prefix removed; then the same for
# a tiny program on a libuv loop (`pkg-config ... vow-uv`) and one on a GLib main loop
# (`pkg-config ... vow-glib`), built the way a user builds them. Done twice: for
# the default install and for VOW_STATIC_STDLIB=1 (the Swift runtime inside libvow.so,
# checked to need nothing from the toolchain); VOW_CHECK_STATIC=0 skips the second.
#
# Then, for the default install, one engine per process (README, "One engine per
# process"): the documents' own commands, run in a copy of each example folder outside
# the checkout with only PREFIX, PATH and HOME in the environment, for the three builds
#   swiftpm-component   a C program + a Swift component built with SwiftPM on the
#                       installed libvow.so (Examples/c-program-swift-component), also
#                       linked the other way round: one libvow.so, the installed one;
#   swiftc-component    the same component built with swiftc and `pkg-config
#                       --variable=swiftflags vow`;
#   swiftpm-program     a Swift program (SwiftPM) on a C library built on vow.h
#                       (Examples/swift-program-c-library);
# and valgrind with the installed suppression file (a clean program passes, one that
# leaks a promise fails). Each block must read the same in README.md, the DocC article
# SwiftRuntimeInCHost.md and Examples/README.md. Last, the wrong build on purpose
# (Tests/TwoEngines): a component with a copy of the engine of its own, next to the
# installed libvow.so, must get the load-time line and have its handles refused both ways.
# Prints `install: ok` or what went wrong; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

work=$(mktemp -d)
prefix=""
trap 'rm -rf "$work" ${prefix:+"$prefix"}' EXIT
fail() { echo "install: FAILED: $*"; exit 1; }
header_version=$(sed -n 's/^#define VOW_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/vow.h | paste -sd.)

cat >"$work/app.c" <<'C'
/* A user's first program: a promise made in C, a then and a catch, a bounded wait. */
#include <stdio.h>
#include <vow.h>

static void twice(void *ctx, const vow_value *value, vow_result *out) {
    int64_t n = 0;
    vow_value_get_int(value, &n);
    vow_value *doubled = vow_value_int(2 * n);
    vow_result_return(out, doubled);
    vow_value_release(doubled);
    (void)ctx;
}

static void note(void *ctx, const vow_error *error, vow_result *out) {
    printf("app: caught %s\n", vow_error_message(error));
    (void)ctx;
    (void)out;
}

int main(void) {
    if (vow_version_number() != VOW_VERSION_NUMBER) {
        printf("app: header %d, library %d\n", VOW_VERSION_NUMBER, vow_version_number());
        return 1;
    }
    vow_resolver *r;
    vow_promise *p = vow_promise_pending(&r);
    vow_promise *doubled = vow_then(p, twice, NULL, NULL, NULL);
    vow_value *n = vow_value_int(21);
    vow_resolver_fulfill(r, n);
    vow_value *result = NULL;
    int64_t answer = 0;
    if (vow_wait(doubled, 10.0, &result, NULL) == VOW_FULFILLED) vow_value_get_int(result, &answer);

    vow_error *e = vow_error_new("app", 1, "an error from C");
    vow_promise *rejected = vow_promise_rejected(e);
    vow_promise *caught = vow_catch(rejected, note, NULL, NULL);
    vow_state caught_state = vow_wait(caught, 10.0, NULL, NULL);

    printf("app: libvow %s, 21 doubled is %lld\n", vow_version(), (long long)answer);
    vow_value_release(result);
    vow_value_release(n);
    vow_error_release(e);
    vow_resolver_release(r);
    vow_promise_release(p);
    vow_promise_release(doubled);
    vow_promise_release(rejected);
    vow_promise_release(caught);
    return answer == 42 && caught_state == VOW_FULFILLED ? 0 : 1;
}
C

cat >"$work/app.cpp" <<'CPP'
// A first C++ program: vow.hpp, installed beside vow.h, found by the same pkg-config vow.
#include <cstdio>
#include <vow.hpp>

int main() {
    auto [p, r] = vow::promise<int>::pending();
    vow::promise<int> doubled = p.then([](int n) { return 2 * n; });
    r.resolve(21);
    std::printf("cpp-app: 21 doubled is %d\n", doubled.get());
    return doubled.get() == 42 ? 0 : 1;
}
CPP

cat >"$work/uv_app.c" <<'C'
/* A first program on libuv: a job on the loop's dispatcher, then a clean close. */
#include <stdio.h>
#include <vow_uv.h>

static void greet(void *ctx, const vow_value *value, vow_result *out) {
    printf("uv-app: %s\n", (const char *)ctx);
    (void)value;
    (void)out;
}

int main(void) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    vow_dispatcher *d = vow_uv_dispatcher_new(&loop);
    vow_promise *p = vow_dispatch(d, greet, "ran inside uv_run", NULL);
    uv_run(&loop, UV_RUN_DEFAULT);             /* returns once the job ran */
    int ok = vow_promise_state(p) == VOW_FULFILLED;
    vow_uv_dispatcher_close(d);
    vow_dispatcher_release(d);
    uv_run(&loop, UV_RUN_DEFAULT);             /* the dispatcher's close callback */
    ok = ok && uv_loop_close(&loop) == 0;
    vow_promise_release(p);
    printf("uv-app: %s\n", ok ? "loop closed" : "FAILED");
    return ok ? 0 : 1;
}
C

cat >"$work/glib_app.c" <<'C'
/* A first program on GLib: a job on the default context's dispatcher quits the loop. */
#include <stdio.h>
#include <vow_glib.h>

static void greet(void *ctx, const vow_value *value, vow_result *out) {
    printf("glib-app: ran inside g_main_loop_run\n");
    g_main_loop_quit(ctx);
    (void)value;
    (void)out;
}

int main(void) {
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    vow_dispatcher *d = vow_glib_dispatcher_new(NULL);
    vow_promise *p = vow_dispatch(d, greet, loop, NULL);
    g_main_loop_run(loop);
    int ok = vow_promise_state(p) == VOW_FULFILLED && vow_glib_dispatcher_close(d) == VOW_OK;
    vow_dispatcher_release(d);
    vow_promise_release(p);
    g_main_loop_unref(loop);
    printf("glib-app: %s\n", ok ? "closed" : "FAILED");
    return ok ? 0 : 1;
}
C

# check_bridge LABEL NAME EXPECTED-LINE: builds NAME_app.c with `pkg-config vow-NAME`, runs it.
check_bridge() {
    local label=$1 name=$2 expected=$3
    for file in "include/vow_$name.h" "lib/libvow-$name.a" "lib/pkgconfig/vow-$name.pc"; do
        [ -f "$prefix/$file" ] || fail "$label: $prefix/$file was not installed"
    done
    pkg-config --exists "vow-$name" || fail "$label: pkg-config does not find vow-$name.pc: $(pkg-config --print-errors --exists "vow-$name" 2>&1)"
    rm -f "$work/${name}_app"
    # shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
    (cd "$work" && cc -Wall -Wextra -Werror "${name}_app.c" $(pkg-config --cflags --libs "vow-$name") -o "${name}_app") \
        || fail "$label: the $name program did not build with pkg-config's flags"
    env -u LD_LIBRARY_PATH "$work/${name}_app" >"$work/$name.out" 2>&1 || { cat "$work/$name.out"; fail "$label: the $name program failed"; }
    grep -qF "$expected" "$work/$name.out" || { cat "$work/$name.out"; fail "$label: unexpected output from the $name program"; }
    echo "  $label: vow-$name: $(tail -1 "$work/$name.out")"
}

# --- one engine per process -------------------------------------------------------------

# The documents that show the build commands; each block must read the same in all three.
docs=(README.md Sources/Vow/Vow.docc/SwiftRuntimeInCHost.md Examples/README.md)

# doc_block FILE NAME: the code block after the line `<!-- install-check: NAME -->` in FILE.
doc_block() {
    awk -v marker="<!-- install-check: $2 -->" '
        $0 == marker { found = 1; next }
        found && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$1"
}

# run_doc_block NAME DIR EXPECTED-LINE...: runs the documents' block NAME in DIR with only
# PREFIX, PATH and HOME set (nothing from the checkout), output in $work/NAME.out; the
# block must succeed, print each expected line, warn about nothing and load one engine.
run_doc_block() {
    local name=$1 dir=$2
    shift 2
    local block doc
    block=$(doc_block README.md "$name")
    [ -n "$block" ] || fail "README.md has no block after <!-- install-check: $name -->"
    for doc in "${docs[@]:1}"; do
        [ "$(doc_block "$doc" "$name")" = "$block" ] \
            || fail "the block '$name' in $doc differs from README.md's (or is missing)"
    done
    if ! (cd "$dir" && env -i HOME="$HOME" PATH="$PATH" PREFIX="$prefix" SWIFT_BACKTRACE=enable=no \
            bash -euo pipefail -c "$block") >"$work/$name.out" 2>&1; then
        tail -30 "$work/$name.out"
        fail "$name: the documents' commands failed (in a copy of the example, with only the prefix)"
    fi
    local line
    for line in "$@"; do
        grep -qF -- "$line" "$work/$name.out" || { tail -30 "$work/$name.out"; fail "$name: missing output: $line"; }
    done
    if grep "warning:" "$work/$name.out" | grep -qv "unhandled dwarf"; then
        grep "warning:" "$work/$name.out" | head -5
        fail "$name: warnings"
    fi
    if grep -q "copies of the Vow engine" "$work/$name.out"; then
        grep "copies of the Vow engine" "$work/$name.out"
        fail "$name: more than one engine in the process"
    fi
}

# example_copy EXAMPLE NAME: a fresh copy of Examples/EXAMPLE at $work/NAME (its path).
example_copy() {
    rm -rf "${work:?}/$2"
    cp -r "Examples/$1" "$work/$2"
    rm -rf "$work/$2/.build" "$work/$2/.swiftpm"
    echo "$work/$2"
}

# only_installed_libvow PROGRAM LABEL: PROGRAM loads exactly one libvow.so, the installed one.
only_installed_libvow() {
    local found
    found=$(ldd "$1" | grep -F "libvow" | awk '{ print $3 }' | sort -u)
    [ "$found" = "$prefix/lib/libvow.so" ] || fail "$2: loads [$found], not only $prefix/lib/libvow.so"
}

# readme_shows FILE: README.md shows FILE verbatim, in the code block after `<!-- FILE -->`.
readme_shows() {
    diff -q <(awk -v marker="<!-- $1 -->" '
            $0 == marker { found = 1; next }
            found && /^```/ { if (inside) exit; inside = 1; next }
            inside { print }' README.md) "$1" >/dev/null \
        || fail "the code block after <!-- $1 --> in README.md differs from $1"
}

check_one_engine() {
    local dir out bin
    local counted="16 words in 3 texts, counted in Swift, gathered in C"
    readme_shows Examples/c-program-swift-component/Package.swift
    readme_shows Examples/c-program-swift-component/Sources/InstalledVow/module.modulemap

    # 1. A C program + a Swift component built with SwiftPM on the installed libvow.so.
    dir=$(example_copy c-program-swift-component swiftpm-component)
    run_doc_block swiftpm-component "$dir" "$counted"
    bin="$dir/.build/release"
    [ -z "$(find "$dir/.build" -name 'libvow*.so*' -print -quit)" ] \
        || fail "swiftpm-component: the SwiftPM build made a libvow.so of its own"
    only_installed_libvow "$dir/word-stats" swiftpm-component
    # Whatever the link order: the component's -L and rpath before pkg-config's.
    out=$(cd "$dir" && PKG_CONFIG_PATH="$prefix/lib/pkgconfig" && export PKG_CONFIG_PATH \
        && cc main.c -L"$bin" -lWordStats -Wl,-rpath,"$bin" $(pkg-config --cflags --libs vow) -o word-stats-2 \
        && ./word-stats-2 2>&1) || { echo "$out"; fail "swiftpm-component: linked the other way round, the program failed"; }
    grep -qF "$counted" <<<"$out" || { echo "$out"; fail "swiftpm-component: linked the other way round: unexpected output"; }
    only_installed_libvow "$dir/word-stats-2" "swiftpm-component, linked the other way round"
    echo "  swiftpm-component: $(tail -1 "$work/swiftpm-component.out"); one libvow.so (the installed one) in either link order"

    # 2. The same component built with swiftc against the installed modules.
    dir=$(example_copy c-program-swift-component swiftc-component)
    run_doc_block swiftc-component "$dir" "$counted"
    only_installed_libvow "$dir/word-stats" swiftc-component
    echo "  swiftc-component: $(tail -1 "$work/swiftc-component.out")"

    # 3. A Swift program (SwiftPM) on a C library built on vow.h.
    dir=$(example_copy swift-program-c-library swiftpm-program)
    run_doc_block swiftpm-program "$dir" "Swift doubled the C library's sum: 78" \
        "the C library describes it: the tally is 78"
    echo "  swiftpm-program: $(tail -1 "$work/swiftpm-program.out")"

    # valgrind, as the documents show it: the program of (2) passes ...
    command -v valgrind >/dev/null 2>&1 || fail "valgrind not found (scripts/install-deps.sh installs it)"
    [ -f "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=valgrind_suppressions vow)" ] \
        || fail "pkg-config --variable=valgrind_suppressions vow does not name an installed file"
    run_doc_block valgrind "$work/swiftc-component" "$counted"
    # ... and one that leaks a promise fails with the same flags.
    (cd "$work" && cc -std=c11 -Wall -Wextra -Werror "$ROOT/Tests/C/valgrind/leaks_a_promise.c" \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs vow) -o "$work/swiftc-component/leaks") \
        || fail "leaks_a_promise.c did not build"
    local leak_block rc=0
    leak_block=$(doc_block README.md valgrind | sed 's|\./word-stats|./leaks|')
    (cd "$work/swiftc-component" && env -i HOME="$HOME" PATH="$PATH" PREFIX="$prefix" SWIFT_BACKTRACE=enable=no \
        bash -uo pipefail -c "$leak_block") >"$work/leak.out" 2>&1 || rc=$?
    [ "$rc" -eq 9 ] && grep -q "definitely lost" "$work/leak.out" \
        || { tail -20 "$work/leak.out"; fail "valgrind with the installed suppressions did not fail a program that leaks a promise (exit $rc)"; }
    echo "  valgrind --leak-check=full --suppressions=\$(pkg-config --variable=valgrind_suppressions vow): a clean program passes, a leaked promise fails"
}

# The wrong builds, on purpose (Tests/TwoEngines), next to the installed libvow.so, and
# their one-engine twins: which copies of the engine count is exact (ARCHITECTURE.md, "One
# engine whatever the products"). Built in .build-two-engines (ignored by git), so that
# the copies compile once.
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
check_two_engines() {
    local dir="$work/two-engines" identity rc=0 bin line
    identity=$(basename "$ROOT" | tr '[:upper:]' '[:lower:]')
    mkdir -p "$dir/Sources/Twin" "$dir/Sources/TwinApp" "$dir/Sources/TwoHost" "$dir/Sources/OneHost"
    cp Tests/TwoEngines/Component.swift "$dir/Sources/Twin/"
    cp Tests/TwoEngines/App/main.swift "$dir/Sources/TwinApp/"
    cp Tests/TwoEngines/Host/main.swift "$dir/Sources/TwoHost/"
    cp Tests/TwoEngines/Host/main.swift "$dir/Sources/OneHost/"
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

    # 1. The library after libvow.so, then before it.
    # shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
    (cd "$dir" && cc -std=c11 -Wall -Wextra -Werror main.c $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs vow) \
        -L"$bin" -lTwin -Wl,-rpath,"$bin" -o two-engines \
        && cc -std=c11 -Wall -Wextra -Werror main.c -L"$bin" -lTwin -Wl,-rpath,"$bin" \
            $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs vow) -o one-engine) \
        || fail "two-engines: the program did not build"
    (cd "$dir" && env -u LD_LIBRARY_PATH ./two-engines two) >"$work/two-engines.out" 2>&1 || rc=$?
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
    echo "  two-engines (wrong on purpose): a library with its own copy after libvow.so: told at load, handles refused both ways (AnyPromise(unsafeHandle:), vow_then)"
    rc=0
    (cd "$dir" && env -u LD_LIBRARY_PATH ./one-engine one) >"$work/one-engine.out" 2>&1 || rc=$?
    ! grep -q "copies of the Vow engine\|another copy" "$work/one-engine.out" && [ "$rc" -eq 0 ] \
        && grep -qF "one engine: 7 doubled by the component is 14, 21 chained in C is 21" "$work/one-engine.out" \
        || { cat "$work/one-engine.out"; fail "two-engines: the library before libvow.so must be the one engine (exit $rc)"; }
    echo "  two-engines: the same library before libvow.so: libvow.so's entry points reach its copy, one engine ($(tail -1 "$work/one-engine.out" | sed 's/^one engine: //'))"

    # 2. The program that loads libvow.so with dlopen.
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

    # 3. The component on the installed Vow, in a program with a copy of its own.
    # shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
    (cd "$dir" && swiftc -emit-library -module-name Plugin $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=swiftflags vow) \
        Plugin.swift -o libPlugin.so) >"$work/plugin-build.log" 2>&1 \
        || { cat "$work/plugin-build.log"; fail "two-engines: the component on the installed Vow did not build"; }
    rc=0
    (cd "$dir" && env -u LD_LIBRARY_PATH "$bin/OneHost" "$dir/libPlugin.so" one) >"$work/one-host.out" 2>&1 || rc=$?
    ! grep -q "copies of the Vow engine\|another copy" "$work/one-host.out" && [ "$rc" -eq 0 ] \
        && grep -qF "one engine: the component's 21 read here is 21, 7 doubled by the component is 14" "$work/one-host.out" \
        || { cat "$work/one-host.out"; fail "two-engines: a component on the installed Vow in a program on vow and VowTesting must use the program's engine (exit $rc)"; }
    echo "  two-engines: a component on the installed Vow loaded into a program on vow + VowTesting: one engine, the program's (handles cross both ways)"
    rc=0
    (cd "$dir" && env -u LD_LIBRARY_PATH "$bin/TwoHost" "$dir/libPlugin.so" two) >"$work/two-host.out" 2>&1 || rc=$?
    for line in \
            "vow: two copies of the Vow engine are loaded in this process" \
            "(whose Swift engine $dir/libPlugin.so uses)" \
            "AnyPromise(unsafeHandle: a promise of the component): refused" \
            "plugin_double(a promise of the program): refused" \
            "vow: AnyPromise(unsafeHandle:): the vow_promise belongs to another copy of the Vow engine"; do
        grep -qF -- "$line" "$work/two-host.out" || { cat "$work/two-host.out"; fail "two-engines, component: missing: $line"; }
    done
    [ "$(grep -c "copies of the Vow engine are loaded" "$work/two-host.out")" -eq 1 ] \
        || { cat "$work/two-host.out"; fail "two-engines, component: the load-time line must appear once"; }
    [ "$rc" -eq 0 ] || { cat "$work/two-host.out"; fail "two-engines, component: exit $rc"; }
    echo "  two-engines (wrong on purpose): the component in a program that exports only the engine's table: libvow.so's copy counts (the component's Swift code uses it): told at load, handles refused both ways"
}

# check_install LABEL [VAR=VALUE...]: install with the given environment, build, run.
check_install() {
    local label=$1
    shift
    prefix=$(mktemp -d)
    env "$@" scripts/install.sh "$prefix" >"$work/install.log" 2>&1 \
        || { cat "$work/install.log"; fail "$label: scripts/install.sh"; }
    for file in include/vow.h lib/libvow.so lib/pkgconfig/vow.pc; do
        [ -f "$prefix/$file" ] || fail "$label: $prefix/$file was not installed"
    done

    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    pkg-config --exists vow || fail "$label: pkg-config does not find vow.pc"
    [ "$(pkg-config --modversion vow)" = "$header_version" ] \
        || fail "$label: vow.pc says $(pkg-config --modversion vow), the header $header_version"

    rm -f "$work/app"
    # shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
    (cd "$work" && cc -std=c11 -Wall -Wextra -Werror app.c $(pkg-config --cflags --libs vow) -o app) \
        || fail "$label: the program did not build with pkg-config's flags"

    # The program must find the installed libvow.so by itself: no environment, no build tree.
    # grep without -q reads all of ldd's output: with -q it may exit first, and pipefail then
    # reports ldd's SIGPIPE as a failure.
    ldd "$work/app" | grep -F "libvow.so => $prefix/lib/libvow.so" >/dev/null \
        || fail "$label: the program does not load $prefix/lib/libvow.so: $(ldd "$work/app" | grep libvow)"
    env -u LD_LIBRARY_PATH "$work/app" >"$work/out.txt" 2>&1 || { cat "$work/out.txt"; fail "$label: the program failed"; }
    grep -qF "app: libvow $header_version, 21 doubled is 42" "$work/out.txt" \
        && grep -qF "app: caught an error from C" "$work/out.txt" \
        || { cat "$work/out.txt"; fail "$label: unexpected output"; }
    # The C++ face: include/vow.hpp beside vow.h, the same pkg-config flags.
    [ -f "$prefix/include/vow.hpp" ] || fail "$label: $prefix/include/vow.hpp was not installed"
    rm -f "$work/cpp_app"
    # shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
    (cd "$work" && c++ -std=c++17 -Wall -Wextra -Werror app.cpp $(pkg-config --cflags --libs vow) -o cpp_app) \
        || fail "$label: the C++ program did not build with pkg-config's flags"
    env -u LD_LIBRARY_PATH "$work/cpp_app" >"$work/cpp.out" 2>&1 || { cat "$work/cpp.out"; fail "$label: the C++ program failed"; }
    grep -qF "cpp-app: 21 doubled is 42" "$work/cpp.out" || { cat "$work/cpp.out"; fail "$label: unexpected output from the C++ program"; }
    echo "  $label: vow.hpp: $(tail -1 "$work/cpp.out")"
    local swift_libs
    swift_libs=$(ldd "$work/app" | grep -c "libswift\|libdispatch" || true)
    echo "  $label: $(tail -1 "$work/out.txt" | sed 's/^app: //'); $(du -h "$prefix/lib/libvow.so" | cut -f1) libvow.so; $swift_libs Swift runtime libraries loaded from the toolchain"
    if [ "$label" = "static" ] && [ "$swift_libs" -ne 0 ]; then
        fail "static: the program still loads Swift libraries from the toolchain"
    fi
    check_bridge "$label" uv "uv-app: loop closed"
    check_bridge "$label" glib "glib-app: closed"
    if [ "$label" = "dynamic" ]; then
        # Swift next to C: the Swift modules are installed with the library (a static-stdlib
        # libvow.so carries a runtime of its own: Swift components go with the default build).
        for file in lib/vow/swift/Vow.swiftmodule lib/vow/swift/VowEngine.swiftmodule \
                lib/vow/swift/module.modulemap lib/pkgconfig/vow-swift.pc lib/vow-valgrind.supp; do
            [ -f "$prefix/$file" ] || fail "$label: $prefix/$file was not installed"
        done
        check_one_engine
        check_two_engines
    fi
    rm -rf "$prefix"
    prefix=""
}

check_install dynamic VOW_STATIC_STDLIB=0
[ "${VOW_CHECK_STATIC:-1}" = "1" ] && check_install static VOW_STATIC_STDLIB=1
echo "install: ok (temporary prefixes removed)"
