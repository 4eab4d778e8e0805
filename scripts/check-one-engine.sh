#!/usr/bin/env bash
# One engine per process (README, "One engine per process"), on a Vow installed into
# PREFIX by `make install` (the install stage runs this):
#
#   scripts/check-one-engine.sh PREFIX
#
# The documents' own commands (scripts/lib/vow-doc-blocks.sh: each block must read the same
# in README.md, SwiftRuntimeInCHost.md and Examples/README.md), each run in a copy of its
# example folder outside the checkout with only PREFIX, PATH and HOME in the environment:
#   swiftpm-component   a C program + a Swift component built with SwiftPM on the installed
#                       libvow.so (Examples/c-program-swift-component), also linked the other
#                       way round: one libvow.so, the installed one, and one Swift runtime;
#   swiftc-component    the same component built with swiftc and `pkg-config
#                       --variable=swiftflags vow`;
#   swiftpm-program     a Swift program (SwiftPM) on a C library built on vow.h
#                       (Examples/swift-program-c-library);
#   valgrind            the documents' valgrind line with the installed suppression file
#                       passes the program of swiftc-component.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
prefix=$1
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
source scripts/lib/vow-doc-blocks.sh
source scripts/lib/vow-version.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "one-engine: FAILED: $*"; exit 1; }

# run_doc_block NAME DIR EXPECTED-LINE...: runs the documents' block NAME in DIR with only
# PREFIX, PATH and HOME set, output in $work/NAME.out; the block must succeed, print each
# expected line, warn about nothing and load one engine.
run_doc_block() {
    local name=$1 dir=$2 block line
    shift 2
    block=$(vow_doc_block_same "$name") || fail "the documents' blocks differ"
    if ! (cd "$dir" && env -i HOME="$HOME" PATH="$PATH" PREFIX="$prefix" SWIFT_BACKTRACE=enable=no \
            bash -euo pipefail -c "$block") >"$work/$name.out" 2>&1; then
        tail -30 "$work/$name.out"
        fail "$name: the documents' commands failed (in a copy of the example, with only the prefix)"
    fi
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

# one_libvow_one_runtime PROGRAM LABEL: PROGRAM loads one libvow, the installed one, and one
# Swift runtime (the toolchain's or the one installed beside libvow.so: the loader takes the
# library whose SONAME is loaded already); prints where that runtime came from.
one_libvow_one_runtime() {
    local found runtimes
    found=$(ldd "$1" | grep -F "libvow" | awk '{ print $3 }' | sort -u)
    [ "$(readlink -f "$found")" = "$(readlink -f "$prefix/lib/libvow.so.$VOW_SOVERSION")" ] \
        || fail "$2: loads [$found], not only $prefix/lib/libvow.so.$VOW_SOVERSION"
    runtimes=$(ldd "$1" | awk '$1 == "libswiftCore.so" { print $3 }')
    [ "$(wc -l <<<"$runtimes")" -eq 1 ] || fail "$2: Swift runtimes: $runtimes"
    dirname "$runtimes"
}

counted="16 words in 3 texts, counted in Swift, gathered in C"
vow_readme_shows Examples/c-program-swift-component/Package.swift || fail "README.md"
vow_readme_shows Examples/c-program-swift-component/Sources/InstalledVow/module.modulemap || fail "README.md"

# 1. A C program + a Swift component built with SwiftPM on the installed libvow.so.
dir=$(example_copy c-program-swift-component swiftpm-component)
run_doc_block swiftpm-component "$dir" "$counted"
bin="$dir/.build/release"
[ -z "$(find "$dir/.build" -name 'libvow*.so*' -print -quit)" ] \
    || fail "swiftpm-component: the SwiftPM build made a libvow.so of its own"
runtime=$(one_libvow_one_runtime "$dir/word-stats" swiftpm-component)
# Whatever the link order: the component's -L and rpath before pkg-config's.
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
out=$(cd "$dir" && PKG_CONFIG_PATH="$prefix/lib/pkgconfig" && export PKG_CONFIG_PATH \
    && cc main.c -L"$bin" -lWordStats -Wl,-rpath,"$bin" $(pkg-config --cflags --libs vow) -o word-stats-2 \
    && ./word-stats-2 2>&1) || { echo "$out"; fail "swiftpm-component: linked the other way round, the program failed"; }
grep -qF "$counted" <<<"$out" || { echo "$out"; fail "swiftpm-component: linked the other way round: unexpected output"; }
runtime2=$(one_libvow_one_runtime "$dir/word-stats-2" "swiftpm-component, linked the other way round")
echo "  swiftpm-component: $(tail -1 "$work/swiftpm-component.out"); one libvow.so (the installed one) in either link order, one Swift runtime (from $runtime; $runtime2)"

# 2. The same component built with swiftc against the installed modules.
dir=$(example_copy c-program-swift-component swiftc-component)
run_doc_block swiftc-component "$dir" "$counted"
runtime=$(one_libvow_one_runtime "$dir/word-stats" swiftc-component)
echo "  swiftc-component: $(tail -1 "$work/swiftc-component.out"); one Swift runtime (from $runtime)"

# 3. A Swift program (SwiftPM) on a C library built on vow.h.
dir=$(example_copy swift-program-c-library swiftpm-program)
run_doc_block swiftpm-program "$dir" "Swift doubled the C library's sum: 78" \
    "the C library describes it: the tally is 78"
echo "  swiftpm-program: $(tail -1 "$work/swiftpm-program.out")"

# 4. valgrind, as the documents show it, on the program of (2).
command -v valgrind >/dev/null 2>&1 || fail "valgrind not found (scripts/install-deps.sh installs it)"
run_doc_block valgrind "$work/swiftc-component" "$counted"
echo "  valgrind with the installed suppression file, as the documents show it: the component's program passes"
