#!/usr/bin/env bash
# The test command's "install" stage: `scripts/install.sh` into a temporary prefix, then a
# small C program built the way a user builds one,
#
#   cc app.c $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs vow)
#
# run with no LD_LIBRARY_PATH, its output checked, and the prefix removed. Done twice: for
# the default install and for VOW_STATIC_STDLIB=1 (the Swift runtime inside libvow.so,
# checked to need nothing from the toolchain); VOW_CHECK_STATIC=0 skips the second.
# Prints `install: ok` or what went wrong; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
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
    ldd "$work/app" | grep -q "libvow.so => $prefix/lib/libvow.so" \
        || fail "$label: the program does not load $prefix/lib/libvow.so: $(ldd "$work/app" | grep libvow)"
    env -u LD_LIBRARY_PATH "$work/app" >"$work/out.txt" 2>&1 || { cat "$work/out.txt"; fail "$label: the program failed"; }
    grep -qF "app: libvow $header_version, 21 doubled is 42" "$work/out.txt" \
        && grep -qF "app: caught an error from C" "$work/out.txt" \
        || { cat "$work/out.txt"; fail "$label: unexpected output"; }
    local swift_libs
    swift_libs=$(ldd "$work/app" | grep -c "libswift\|libdispatch" || true)
    echo "  $label: $(tail -1 "$work/out.txt" | sed 's/^app: //'); $(du -h "$prefix/lib/libvow.so" | cut -f1) libvow.so; $swift_libs Swift runtime libraries loaded from the toolchain"
    if [ "$label" = "static" ] && [ "$swift_libs" -ne 0 ]; then
        fail "static: the program still loads Swift libraries from the toolchain"
    fi
    rm -rf "$prefix"
    prefix=""
}

check_install dynamic VOW_STATIC_STDLIB=0
[ "${VOW_CHECK_STATIC:-1}" = "1" ] && check_install static VOW_STATIC_STDLIB=1
echo "install: ok (temporary prefixes removed)"
