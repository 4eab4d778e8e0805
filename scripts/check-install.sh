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
    rm -rf "$prefix"
    prefix=""
}

check_install dynamic VOW_STATIC_STDLIB=0
[ "${VOW_CHECK_STATIC:-1}" = "1" ] && check_install static VOW_STATIC_STDLIB=1
echo "install: ok (temporary prefixes removed)"
