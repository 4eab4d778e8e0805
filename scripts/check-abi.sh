#!/usr/bin/env bash
# The ABI gate (the test command's "abi" stage): the C interface of this tree against the
# baseline of the release in abi/vow.abi, with libabigail (abidw, abidiff; Debian's
# abigail-tools).
#
#   scripts/check-abi.sh               fails on an incompatible change: a removed function,
#                                      a changed parameter or return type, a changed struct
#                                      layout, a changed enumerator value (additions pass)
#   scripts/check-abi.sh --update      writes abi/vow.abi from this tree (a release does;
#                                      abi/README.md)
#   scripts/check-abi.sh --self-test   shows that the gate fails on each of those kinds of
#                                      change, made on copies of the headers, and passes an
#                                      added function (the abi stage runs this too)
#
# Most entry points are Swift (@c @implementation), whose debug information has no C types,
# so the gate describes the interface from the C side: the functions libvow.so exports
# (and the bridges' archives libvow-uv.a, libvow-glib.a) are listed, and a C translation
# unit made from that list declares, for each function NAME, a variable
# `__typeof__(NAME) *abi_NAME` (its type is the header's declaration, parameters and return
# type with every struct and enum they reach); compiled with debug information and every
# declared type kept, it is what abidw reads. A function that libvow.so stops exporting is
# a removed variable; one exported but declared in no public header fails to compile. The
# types Vow's functions take from other headers (libc's, libuv's uv_loop_t, GLib's) are
# compared too: they are part of the bridges' ABI (abi/README.md: a new distribution's
# libuv or GLib may mean a new baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
source scripts/lib/vow-swift.sh
source scripts/lib/vow-version.sh
source scripts/lib/vow-bridges.sh
for tool in abidw abidiff; do
    command -v "$tool" >/dev/null || { echo "abi: $tool not found (abigail-tools; scripts/install-deps.sh installs it)" >&2; exit 1; }
done
baseline=abi/vow.abi
headers_list=(vow.h vow_testing.h vow_uv.h vow_glib.h)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "abi: FAILED: $*"; exit 1; }

# exported_functions OUT: the C functions of libvow.so and of the bridges' archives.
exported_functions() {
    local bin name
    bin=$(vow_release_bin "$ROOT") || fail "the release build"
    # libvow.so's vow_X are indirect functions (nm's "i": ARCHITECTURE.md, "One engine
    # whatever the products"); the library's own names of them (vowface_X) and every other
    # internal name are not the interface: only vow_X, the names the headers declare.
    nm -D --defined-only "$bin/libvow.so" | awk '($2 == "T" || $2 == "i") && $3 ~ /^vow_/ { print $3 }' >"$1.unsorted"
    for name in $(vow_bridge_names); do
        vow_build_bridge "$ROOT" "$name" "$work/bridges" || fail "the $name bridge does not build"
        nm -g --defined-only "$work/bridges/libvow-$name.a" | awk '$2 == "T" && $3 ~ /^vow_/ { print $3 }' >>"$1.unsorted"
    done
    sort -u "$1.unsorted" >"$1"
}

# describe HEADERS FUNCTIONS OUT: the ABI (abixml) of FUNCTIONS as HEADERS declare them.
describe() {
    local headers=$1 functions=$2 out=$3 dir
    dir=$(mktemp -d "$work/describe.XXXX")
    {
        echo "/* Made by scripts/check-abi.sh: one variable per exported function, of its type, and"
        echo "   one per type the headers name (enum and struct tags, typedefs), used or not. */"
        for header in "${headers_list[@]}"; do echo "#include <$header>"; done
        sed 's/.*/__typeof__(&) *abi_&;/' "$functions"
        (cd "$headers" && cat "${headers_list[@]}") \
            | grep -oE '\b(enum|struct) vow_[a-z0-9_]+\b' | sort -u | sed -E 's/^(enum|struct) (.*)/\1 \2 *abi_\1_\2;/'
        (cd "$headers" && cat "${headers_list[@]}") | grep -E '^typedef ' \
            | sed -nE 's/.*\(\*(vow_[a-z0-9_]+)\).*/\1/p; s/^typedef (enum|struct) vow_[a-z0-9_]+ (vow_[a-z0-9_]+);$/\2/p' \
            | sort -u | sed 's/.*/& *abi_type_&;/'
        (cd "$headers" && cat "${headers_list[@]}") | sed -nE 's/^\} (vow_[a-z0-9_]+);$/\1 *abi_type_\1;/p' | sort -u
    } >"$dir/vow_abi.c"
    # shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
    (cd "$dir" && cc -std=gnu11 -g -gdwarf-4 -Wno-deprecated-declarations -fPIC -shared \
        -Wl,-soname,"libvow.so.$VOW_SOVERSION" -fdebug-prefix-map="$headers"=include -fdebug-prefix-map="$dir"=abi \
        -I "$headers" $(pkg-config --cflags libuv gio-2.0) vow_abi.c -o libvow-abi.so) \
        || fail "the ABI translation unit does not compile (is every exported function declared in a public header?)"
    abidw --no-corpus-path --no-comp-dir-path "$dir/libvow-abi.so" >"$out" || fail "abidw"
}

# compare OLD NEW REPORT: abidiff's verdict (0: compatible; additions are).
compare() {
    local rc=0
    abidiff --no-added-syms "$1" "$2" >"$3" 2>&1 || rc=$?
    return $rc
}

# gate HEADERS FUNCTIONS REPORT: 0 when the interface is compatible with the baseline.
gate() {
    describe "$1" "$2" "$work/current.abi"
    compare "$baseline" "$work/current.abi" "$3"
}

case "${1:-}" in
--update)
    exported_functions "$work/functions"
    describe "$ROOT/include" "$work/functions" "$baseline"
    echo "abi: wrote $baseline ($(wc -l <"$work/functions") functions, Vow $(vow_version "$ROOT"), SONAME libvow.so.$VOW_SOVERSION)"
    ;;
--self-test)
    [ -f "$baseline" ] || fail "no baseline $baseline (scripts/check-abi.sh --update writes it)"
    exported_functions "$work/functions"
    # change NAME EXPECTED SED-SCRIPT [FUNCTIONS-FILTER]: the gate must fail on headers
    # changed by SED-SCRIPT (and the list filtered), and its report must say EXPECTED.
    change() {
        local name=$1 expected=$2 script=$3 filter=${4:-cat} rc=0
        rm -rf "$work/headers"; cp -r include "$work/headers"
        sed -i "$script" "$work/headers/vow.h"
        cmp -s include/vow.h "$work/headers/vow.h" && [ "$filter" = cat ] && fail "self-test $name: the edit changed nothing"
        $filter "$work/functions" >"$work/functions.changed"
        gate "$work/headers" "$work/functions.changed" "$work/report" || rc=$?
        [ "$rc" -ne 0 ] || { cat "$work/report"; fail "self-test: the gate passed $name"; }
        grep -qF -- "$expected" "$work/report" || { cat "$work/report"; fail "self-test $name: the report does not say: $expected"; }
        echo "  the gate fails on $name (abidiff exit $rc: $expected)"
    }
    drop_vow_then() { grep -vx vow_then "$1"; }
    change "a removed function (vow_then)" "1 Removed variable" 's/^vow_then(/vow_then_gone(/' drop_vow_then
    change "a changed parameter type (vow_value_int takes int32_t)" "abi_vow_value_int" \
        's/^vow_value_int(int64_t i)/vow_value_int(int32_t i)/'
    change "a changed return type (vow_version_number returns long)" "abi_vow_version_number" \
        '/^VOW_EXTERN int$/{N;s/^VOW_EXTERN int\nvow_version_number(/VOW_EXTERN long\nvow_version_number(/}'
    change "a changed struct layout (vow_thenable_class gains a first member)" "vow_thenable_class" \
        's/^struct vow_thenable_class {$/struct vow_thenable_class {\n    int added_first;/'
    change "a changed enumerator value (VOW_FULFILLED = 5)" "VOW_FULFILLED" 's/^\(    VOW_FULFILLED\) = 1,/\1 = 5,/'
    # An added function and an added enumerator are compatible.
    rm -rf "$work/headers"; cp -r include "$work/headers"
    sed -i -e 's/^vow_version(void);$/vow_version(void);\nVOW_EXTERN int vow_abi_self_test_added(int n);/' \
        -e 's/^\(    VOW_DEADLOCK = 3\) /\1, VOW_SELF_TEST_ADDED = 4 /' "$work/headers/vow.h"
    grep -q VOW_SELF_TEST_ADDED "$work/headers/vow.h" || fail "self-test: the enumerator was not added"
    { cat "$work/functions"; echo vow_abi_self_test_added; } | sort >"$work/functions.added"
    gate "$work/headers" "$work/functions.added" "$work/report" \
        || { cat "$work/report"; fail "self-test: the gate refused an added function or enumerator"; }
    echo "  the gate passes an added function and an added enumerator"
    echo "abi: self-test ok"
    ;;
"")
    [ -f "$baseline" ] || fail "no baseline $baseline (scripts/check-abi.sh --update writes it)"
    exported_functions "$work/functions"
    rc=0
    gate "$ROOT/include" "$work/functions" "$work/report" || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$work/report"
        fail "abidiff exit $rc: the C interface is not compatible with $baseline. If this break is meant, the release raises VOW_SOVERSION (scripts/lib/vow-version.sh) and writes a new baseline (abi/README.md)."
    fi
    echo "abi: compatible with $baseline ($(wc -l <"$work/functions") functions exported, SONAME libvow.so.$VOW_SOVERSION)"
    ;;
*)
    echo "usage: $0 [--update | --self-test]" >&2
    exit 2
    ;;
esac
