#!/usr/bin/env bash
# Builds and runs every example against a built libvow.so, and checks what each prints.
#
#   Examples/run-examples.sh BIN_DIR          all examples (the test command's "examples" stage)
#   Examples/run-examples.sh --demo [BIN_DIR] the main example, narrated (what `make demo` shows)
#
# BIN_DIR is the directory that holds libvow.so and Modules/Vow.swiftmodule, e.g.
# `swift build -c release --scratch-path .build-release --show-bin-path`. With --demo and no
# BIN_DIR, the release build is made (or brought up to date) first.
#
# Every example is built the way a user would build it: C with `cc` against include/vow.h
# and libvow.so, Swift with `swiftc` against the Vow module and the same libvow.so (one
# engine in the process), C on an event loop also against a bridge (include/vow_uv.h
# or vow_glib.h and its static archive, built here) and the loop's library, no warnings
# allowed. Each example must exit 0 and print the lines listed for it below. The README's
# code blocks must match their files in Examples/readme/. The libuv-files and glib-files
# examples also run under valgrind (leaks and invalid accesses fail them).
#
# Prints one line per example and `examples: N passed, M failed`; exits non-zero if any
# example failed to build or run. Build products go to $VOW_EXAMPLES_OUT (default
# .build-examples/, ignored by git).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

demo=0
if [ "${1:-}" = "--demo" ]; then
    demo=1
    shift
fi
BIN=${1:-}
if [ -z "$BIN" ]; then
    if [ "$demo" -eq 0 ]; then
        echo "usage: $0 BIN_DIR | --demo [BIN_DIR]" >&2
        exit 2
    fi
    echo "building libvow.so (release) ..."
    source "$ROOT/scripts/lib/vow-swift.sh"
    vow_release_build "$ROOT" 2>&1 | grep -E "error|warning|Compiling|Build complete" | tail -3
    BIN=$(vow_release_bin "$ROOT") || exit 1
fi
BIN=$(cd "$BIN" && pwd) || { echo "no such directory: $1" >&2; exit 2; }
[ -f "$BIN/libvow.so" ] || { echo "$BIN/libvow.so not found: build the library first" >&2; exit 2; }

OUT=${VOW_EXAMPLES_OUT:-$ROOT/.build-examples}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# --- how examples are compiled -------------------------------------------------------------

# C: the header from include/, the library from BIN, found at run time through the rpath.
CC=${CC:-cc}
CFLAGS=(-std=c11 -Wall -Wextra -Werror -I "$ROOT/include")
C_LINK=(-L "$BIN" -lvow -Wl,-rpath,"$BIN" -lpthread)

# Swift: the Vow module from BIN/Modules and the same libvow.so (scripts/lib/vow-swift.sh);
# runs: scripts/lib/vow-matrix.sh, the native runners' one matrix (plain, and valgrind below).
source "$ROOT/scripts/lib/vow-matrix.sh"
vow_matrix_mode "$ROOT" plain 60
vow_swiftc_flags "$BIN" "$ROOT" || exit 2
SWIFTC=${SWIFTC:-swiftc}
SWIFT_FLAGS=("${VOW_SWIFTC_FLAGS[@]}")

# C on an event loop: the compiler's default -std (as `cc app.c $(pkg-config ...)` builds
# it; uv.h needs POSIX declarations that a strict -std=c11 hides), the bridge's header and
# archive (scripts/lib/vow-bridges.sh builds them into OUT), the loop's library.
source "$ROOT/scripts/lib/vow-bridges.sh"
# README.md shows some examples verbatim (vow_readme_shows FILE: the code block after `<!-- FILE -->`).
source "$ROOT/scripts/lib/vow-doc-blocks.sh"
LOOP_CFLAGS=(-Wall -Wextra -Werror -I "$ROOT/include")
loop_link() { # NAME: the link flags of a program on bridge NAME (uv, glib)
    local flags
    read -r -a flags <<<"$(pkg-config --cflags --libs "$(vow_bridge_pkg "$1")")"
    echo "$OUT/libvow-$1.a" "${flags[@]}"
}

log_of() { echo "$OUT/$1.log"; }

# build NAME COMMAND...: runs a build step, keeps its output in NAME.build.log.
build() {
    local name=$1
    shift
    if ! "$@" >"$OUT/$name.build.log" 2>&1; then
        echo "FAIL $name: build failed:"
        sed 's/^/    /' "$OUT/$name.build.log" | tail -30
        return 1
    fi
    if grep -q "warning:" "$OUT/$name.build.log"; then
        echo "FAIL $name: build warnings:"
        grep "warning:" "$OUT/$name.build.log" | sed 's/^/    /' | head -10
        return 1
    fi
}

# run NAME EXPECTED-LINE... -- COMMAND...: runs an example (from the repository's root) in
# the current mode of scripts/lib/vow-matrix.sh (plain: 60 s at most), then checks its exit
# status and that each expected line appears.
run() {
    local name=$1
    shift
    local expected=()
    while [ "$1" != "--" ]; do
        expected+=("$1")
        shift
    done
    shift
    vow_matrix_run "$(log_of "$name")" "$@"
    vow_matrix_expect "$name" "$(log_of "$name")" "${expected[@]}"
}

# --- the examples ----------------------------------------------------------------------------

# The README's dozen lines: C starts a chain, Swift continues it, C ends it.
example_readme() {
    build readme-swift "$SWIFTC" -emit-library -module-name Square "${SWIFT_FLAGS[@]}" \
        "$ROOT/Examples/readme/square.swift" -o "$OUT/libsquare.so" || return 1
    build readme-c "$CC" "${CFLAGS[@]}" "$ROOT/Examples/readme/main.c" -o "$OUT/readme" \
        -L "$OUT" -lsquare -Wl,-rpath,"$OUT" "${C_LINK[@]}" || return 1
    run readme "7 squared is 49" -- "$OUT/readme" || return 1
    # README.md shows these two files verbatim (each after a `<!-- path -->` marker).
    vow_readme_shows Examples/readme/square.swift || return 1
    vow_readme_shows Examples/readme/main.c || return 1
}

# The README's "In your event loop": a libuv timer and a GLib timeout as promises.
example_readme_loops() {
    local name
    for name in uv glib; do
        build "libvow-$name" vow_build_bridge "$ROOT" "$name" "$OUT" || return 1
        # shellcheck disable=SC2046 # loop_link prints arguments
        build "readme-loop-$name" "$CC" "${LOOP_CFLAGS[@]}" "$ROOT/Examples/readme/loop_$name.c" \
            -o "$OUT/readme-loop-$name" $(loop_link "$name") "${C_LINK[@]}" || return 1
    done
    run readme-loop-uv "the timer fired; this callback runs inside uv_run" -- "$OUT/readme-loop-uv" || return 1
    run readme-loop-glib "the timeout fired; this callback runs inside g_main_loop_run" \
        -- "$OUT/readme-loop-glib" || return 1
    vow_readme_shows Examples/readme/loop_uv.c || return 1
    vow_readme_shows Examples/readme/loop_glib.c || return 1
}

# A libuv program: TCP I/O chained with Vow on the loop, one step in Swift.
example_libuv() {
    build libvow-uv vow_build_bridge "$ROOT" uv "$OUT" || return 1
    build libuv-swift "$SWIFTC" -emit-library -module-name TextStats "${SWIFT_FLAGS[@]}" \
        "$ROOT/Examples/libuv/textstats.swift" -o "$OUT/libtextstats.so" || return 1
    # shellcheck disable=SC2046 # loop_link prints arguments
    build libuv-c "$CC" "${LOOP_CFLAGS[@]}" -I "$ROOT/Examples/libuv" "$ROOT/Examples/libuv/main.c" \
        -o "$OUT/libuv-example" $(loop_link uv) -L "$OUT" -ltextstats -Wl,-rpath,"$OUT" "${C_LINK[@]}" || return 1
    run libuv "connected to 127.0.0.1:" "sent: GET poem" \
        "Swift counted 4 lines and 27 words; the longest word is \"daffodils\"" \
        "4 callbacks ran on the loop thread, 0 elsewhere" "uv_loop_close: nothing left open" \
        "libuv example: ok" -- "$OUT/libuv-example"
}

# run_valgrind NAME EXPECTED-LINE... -- COMMAND...: `run` under valgrind (vow-matrix.sh's
# valgrind mode: the standard leak check with the suppression file make install ships, as the
# docs show it, plus Examples/valgrind.supp for the worker threads GLib keeps until exit).
run_valgrind() {
    local rc=0
    vow_matrix_mode "$ROOT" valgrind 60 "--suppressions=$ROOT/Examples/valgrind.supp" || { echo "FAIL $1"; return 1; }
    run "$@" || rc=1
    vow_matrix_mode "$ROOT" plain 60
    return "$rc"
}

# Examples/libuv-files: a libuv program reads 302 files, at most 8 at once, a Swift component
# counts the words; its C read pipeline (between the two "read pipeline" marks of main.c,
# every line counted) must stay within 80 lines. Run plain and under valgrind.
example_libuv_files() {
    local dir="$ROOT/Examples/libuv-files" lines
    lines=$(awk '/---- the read pipeline ----/ { inside = 1 } inside { n++ }
                 /---- end of the read pipeline ----/ { inside = 0 } END { print n + 0 }' "$dir/main.c")
    if [ "$lines" -lt 10 ] || [ "$lines" -gt 80 ]; then
        echo "FAIL libuv-files: the read pipeline in main.c is $lines lines (at most 80, marks included)"
        return 1
    fi
    build libvow-uv vow_build_bridge "$ROOT" uv "$OUT" || return 1
    build libuv-files-swift "$SWIFTC" -emit-library -module-name FileWords "${SWIFT_FLAGS[@]}" \
        "$dir/filewords.swift" -o "$OUT/libfilewords.so" || return 1
    # shellcheck disable=SC2046 # loop_link prints arguments
    build libuv-files-c "$CC" "${LOOP_CFLAGS[@]}" -I "$dir" "$dir/main.c" -o "$OUT/libuv-files" \
        $(loop_link uv) -L "$OUT" -lfilewords -Wl,-rpath,"$OUT" "${C_LINK[@]}" || return 1
    local expected=(
        "batch 1: 302 files, 30 s allowed (the notes hold 1797 words)"
        "unhandled error: uv -2: uv_fs_stat(\"/nonexistent/settings.toml\"): no such file or directory"
        "  archive.txt: uv -21: uv_fs_read(\"/tmp/vow-libuv-files-"
        "/archive.txt\"): illegal operation on a directory"
        "  latin1.txt: TextError 1: notUTF8"
        "  302 files, 1797 words; at most 8 reads at once"
        "  uv_run returned with the batch reported"
        "  reads started: 302 of 302, cancelled: 0"
        "batch 2: the same files, 5 ms allowed"
        "  the batch failed: timed out after 0.005 s"
        "  reads started: " "cancelled: "
        "unhandled errors reported: 1"
        "uv_loop_close: nothing left open")
    run libuv-files "${expected[@]}" -- "$OUT/libuv-files" || return 1
    # Batch 2 must have cancelled at least one read, and not started them all.
    if grep -qE "reads started: 302 of 302, cancelled: [0-9]+$" <(sed -n '/batch 2/,$p' "$(log_of libuv-files)") \
            || grep -qE "^  reads started: [0-9]+ of 302, cancelled: 0$" <(sed -n '/batch 2/,$p' "$(log_of libuv-files)"); then
        echo "FAIL libuv-files: the time-out of batch 2 cancelled nothing:"
        sed 's/^/    | /' "$(log_of libuv-files)" | tail -6
        return 1
    fi
    run_valgrind libuv-files-valgrind "${expected[@]}" -- "$OUT/libuv-files" || return 1
    echo "     (libuv-files: the read pipeline is $lines lines)"
}

# Examples/glib-files: GIO's file loading as promises (vow_glib_async), run with vow_glib_run.
example_glib_files() {
    build libvow-glib vow_build_bridge "$ROOT" glib "$OUT" || return 1
    # shellcheck disable=SC2046 # loop_link prints arguments
    build glib-files "$CC" "${LOOP_CFLAGS[@]}" "$ROOT/Examples/glib-files/main.c" -o "$OUT/glib-files" \
        $(loop_link glib) "${C_LINK[@]}" || return 1
    local expected=(
        "loaded README.md: " "loaded Package.swift: "
        "no-such-file.txt: g-io-error-quark 1: "
        "vow_glib_run returned: the report ran"
        "the slow step: timed out after 0.05 s"
        "the 10 s timeout was cancelled: yes"
        "glib example: ok")
    run glib-files "${expected[@]}" -- "$OUT/glib-files" || return 1
    run_valgrind glib-files-valgrind "${expected[@]}" -- "$OUT/glib-files"
}

# The main example: a C program calls a Swift component (word counts on the background pool).
build_wordcount() {
    build wordcount-swift "$SWIFTC" -emit-library -module-name WordCount "${SWIFT_FLAGS[@]}" \
        "$ROOT/Examples/c-calls-swift/wordcount.swift" -o "$OUT/libwordcount.so" || return 1
    build wordcount-c "$CC" "${CFLAGS[@]}" -I "$ROOT/Examples/c-calls-swift" \
        "$ROOT/Examples/c-calls-swift/main.c" -o "$OUT/c-calls-swift" \
        -L "$OUT" -lwordcount -Wl,-rpath,"$OUT" "${C_LINK[@]}"
}

example_c_calls_swift() {
    build_wordcount || return 1
    run c-calls-swift \
        "[A] Sources: " "[B] Examples: " \
        "[C] cancelled by the program" \
        "[C] the producer of the directory name heard the cancellation and stopped" \
        "[D] Sources, 0.2 s allowed: timed out, VOW_ERROR_TIMEOUT" \
        "[E] no-such-directory: failed: WordCountError" \
        "progress: " "finally ran for 5 of 5 requests" "demo: ok" \
        -- "$OUT/c-calls-swift"
}

# A Swift program wraps a C library whose callback has no context pointer (trampolines).
example_swift_wraps_c() {
    build callback-lib "$CC" -std=c11 -Wall -Wextra -Werror -fPIC -shared \
        "$ROOT/Examples/callback-lib/callback_lib.c" -o "$OUT/libcallbacklib.so" -lpthread || return 1
    build swift-wraps-c "$SWIFTC" "${SWIFT_FLAGS[@]}" -module-name WrapsC \
        -I "$ROOT/Examples/callback-lib" -L "$OUT" -Xlinker -rpath -Xlinker "$OUT" \
        "$ROOT/Examples/swift-wraps-c/main.swift" -o "$OUT/swift-wraps-c" || return 1
    run swift-wraps-c \
        "job 1: 1 squared is 1" "job 2: 2 squared is 4" "job 3: 3 squared is 9" \
        "caught: job 13 failed in the C library" "all jobs reported" "wrap: ok" \
        -- "$OUT/swift-wraps-c"
}

# A C host plugs its poll() loop in as the default dispatcher.
example_c_event_loop() {
    build c-event-loop "$CC" "${CFLAGS[@]}" "$ROOT/Examples/c-event-loop/main.c" \
        -o "$OUT/c-event-loop" "${C_LINK[@]}" || return 1
    run c-event-loop \
        "sensor 1 squared: 49" "sensor 2: caught worker -5: the sensor did not answer" \
        "timer: the 50 ms timer fired" "blocking attempt: vow_wait on the loop returned at once: VOW_ERROR_DEADLOCK" \
        "5 callbacks ran on the loop thread, 0 elsewhere; the squaring ran on the background pool" \
        "event loop: ok" \
        -- "$OUT/c-event-loop"
}

# Examples/cpp: a C++ program (include/vow.hpp, C++20) and a Swift component share a chain:
# values both ways, a C++ exception caught by its type after a Swift step, a Swift error as
# vow::error, co_await, a std::stop_token that cancels a Swift producer. Plain and valgrind.
example_cpp() {
    build cpp-swift "$SWIFTC" -emit-library -module-name Prices "${SWIFT_FLAGS[@]}" \
        "$ROOT/Examples/cpp/prices.swift" -o "$OUT/libprices.so" || return 1
    build cpp "${CXX:-g++}" -std=c++20 -Wall -Wextra -Werror -I "$ROOT/include" -I "$ROOT/Examples/cpp" \
        "$ROOT/Examples/cpp/main.cpp" -o "$OUT/cpp-example" -L "$OUT" -lprices -Wl,-rpath,"$OUT" "${C_LINK[@]}" \
        || return 1
    local expected=(
        "[1] ACME + GLOBEX + INITECH cost 59.75 (priced in Swift, summed in C++)"
        "[2] caught budget_exceeded after the Swift step: 59.75 is over the limit of 50.00"
        "    the Swift audit step saw 1 error"
        "[3] QuoteError: no quote for NOPE"
        "[4] a coroutine awaited the Swift prices: 10 UMBRELLA + 4 ACME are worth 1040.00"
        "[5] stopped waiting for the live quote: cancelled"
        "    the Swift producer heard the cancellation: yes"
        "cpp example: ok")
    run cpp "${expected[@]}" -- "$OUT/cpp-example" || return 1
    run_valgrind cpp-valgrind "${expected[@]}" -- "$OUT/cpp-example"
}

# --- demo mode -----------------------------------------------------------------------------

if [ "$demo" -eq 1 ]; then
    echo "building the example (a Swift component and a C program, both on libvow.so) ..."
    build_wordcount || exit 1
    cat <<'EOF'

==> Examples/c-calls-swift: a C program calls a Swift component through vow.h.

    The Swift component (wordcount.swift) counts lines, words and bytes in a directory,
    one job per file on Vow's background pool, with a time limit. It takes a vow_promise
    of the directory's name and returns a vow_promise of the counts: C starts each chain,
    Swift continues it, and C ends it with then / catch / finally (main.c).

    Five requests: [A] and [B] count two folders of this repository ([B]'s name comes
    from a C thread a moment later), [C] is cancelled before its input arrives, [D] runs
    out of time, [E] names a folder that does not exist.

EOF
    "$OUT/c-calls-swift"
    rc=$?
    cat <<'EOF'

    What happened:
    - [A]'s counts came back as a LIST that vow_then_call spread into the parameters of
      a plain C function; [B] read the same LIST with vow_value_at.
    - [C]: vow_cancel rejected the request at once. Its catch was skipped (cancellation
      is not an error to report), its finally ran, and the cancellation travelled up
      through the Swift chain to the C promise it was waiting on, whose producer heard it.
    - [D]: the time-out rejected with VOW_ERROR_TIMEOUT and cancelled the work behind it.
    - [E]: the Swift component's error arrived in C with its Swift type as the domain.

    Next: Examples/README.md lists the other examples; `make test` runs every test.
EOF
    exit $rc
fi

# --- all examples --------------------------------------------------------------------------

passed=0
failed=0
for example in example_readme example_c_calls_swift example_swift_wraps_c example_c_event_loop \
        example_readme_loops example_libuv example_libuv_files example_glib_files example_cpp; do
    if "$example"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
