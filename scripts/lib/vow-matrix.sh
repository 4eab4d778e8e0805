# The plain / valgrind / ASan matrix of the native test runners, written once (sourced,
# not run): Tests/C/run-c-tests.sh, Tests/Cpp/run-cpp-tests.sh, Tests/Loops/run-loop-tests.sh
# and Examples/run-examples.sh compile and run their programs through these functions.
#
#   plain     the program as built, bounded by `timeout`;
#   valgrind  memcheck with the standard leak check (every leak kind but "still reachable"
#             is an error: exit 99) and the suppression file make install ships
#             (scripts/vow-valgrind.supp: the Swift runtime's and Dispatch's one-time
#             allocations only) plus the runner's own; ten times the bound, and the test
#             harness (Tests/C/test_support.h) told so: VOW_TEST_SCALE=small, VOW_TEST_WAIT,
#             VOW_TEST_WATCHDOG;
#   asan      built with AddressSanitizer (clang, or the runner's C++ compiler), and with
#             UndefinedBehaviorSanitizer where the compiler is clang (clang links with lld;
#             both ship with the Swift toolchain), LeakSanitizer on unless ASAN_OPTIONS
#             says otherwise. Only the
#             program is instrumented, not libvow.so. LeakSanitizer stops the process's
#             threads with ptrace: where a container forbids it, set
#             ASAN_OPTIONS=detect_leaks=0 and rely on the valgrind mode for leaks.
#
#   vow_matrix_bin ROOT RUNNER [BIN]   prints BIN (default: the release build, made if
#                                      needed) as an absolute path, if it holds libvow.so
#   vow_matrix_mode ROOT MODE SECONDS [VALGRIND-ARG...]
#                                      chooses MODE for the calls below; SECONDS bounds a
#                                      plain run; VALGRIND-ARGs (the runner's own
#                                      --suppressions=FILE, ...) are added under valgrind
#   vow_matrix_compile EXE LOG COMPILER ARG...
#                                      COMPILER ARG... -o EXE, output in LOG, with the
#                                      mode's flags (asan: cc becomes clang); an EXE built
#                                      by the same command and up to date is kept
#   vow_matrix_run LOG COMMAND...      runs COMMAND in the mode, output in LOG; sets
#                                      VOW_MATRIX_RC and VOW_MATRIX_SECS
#   vow_matrix_judge LABEL LOG [PATTERN]
#                                      the run's verdict for a test program (exit 0 and
#                                      `RESULT checks=N failures=0`): prints `ok   LABEL
#                                      (N checks, S s)` or a FAIL line with the log's
#                                      lines that say why (PATTERN adds to them); returns 1
#                                      on a failure
#   vow_matrix_expect LABEL LOG LINE...
#                                      the verdict for a program checked by what it prints:
#                                      exit 0 and every LINE in LOG
#   vow_matrix_swift_library BIN ROOT LOG MODULE OUT SOURCE...
#                                      a Swift component (swiftc -emit-library) that
#                                      imports Vow from BIN and links the same libvow.so
#                                      (kept if up to date)

source "$(dirname "${BASH_SOURCE[0]}")/vow-swift.sh"

vow_matrix_bin() {
    local root=$1 runner=$2 bin=${3:-}
    if [[ -z "$bin" ]]; then
        bin="$(vow_release_bin "$root")" || {
            echo "$runner: could not build the release library; pass BIN_DIR" >&2
            return 2
        }
    fi
    bin="$(cd "$bin" 2>/dev/null && pwd)" || { echo "$runner: $bin is not a folder" >&2; return 2; }
    [[ -f "$bin/libvow.so" ]] || { echo "$runner: $bin/libvow.so not found (swift build -c release)" >&2; return 2; }
    echo "$bin"
}

vow_matrix_mode() {
    local root=$1 seconds=$3
    VOW_MATRIX_MODE=$2
    VOW_MATRIX_TIMEOUT=$seconds
    VOW_MATRIX_PREFIX=()
    VOW_MATRIX_ENV=()
    shift 3
    case "$VOW_MATRIX_MODE" in
        plain) ;;
        valgrind)
            command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found" >&2; return 1; }
            VOW_MATRIX_PREFIX=(valgrind -q --error-exitcode=99 --leak-check=full --fair-sched=yes
                               "--suppressions=$root/scripts/vow-valgrind.supp" "$@")
            VOW_MATRIX_TIMEOUT=$((10 * seconds))
            VOW_MATRIX_ENV=(VOW_TEST_SCALE=small "VOW_TEST_WAIT=$seconds"
                            "VOW_TEST_WATCHDOG=$((10 * seconds - 50))")
            ;;
        asan)
            if ! command -v clang >/dev/null 2>&1 || ! command -v ld.lld >/dev/null 2>&1; then
                echo "asan: clang and ld.lld not found (they ship with the Swift toolchain)" >&2
                return 1
            fi
            VOW_MATRIX_ENV=("ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}"
                            "UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}")
            ;;
        *) echo "vow_matrix_mode: unknown mode $VOW_MATRIX_MODE" >&2; return 2 ;;
    esac
}

vow_matrix_compile() {
    local exe=$1 log=$2 compiler=$3
    shift 3
    local flags=()
    if [[ "$VOW_MATRIX_MODE" == asan ]]; then
        [[ "$compiler" == cc ]] && compiler=clang
        flags=(-fsanitize=address -fno-omit-frame-pointer)
        # UBSan too where it costs little: with clang (with g++, it doubles a C++ build's time).
        [[ "$compiler" == clang* ]] && flags=(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                                              -fno-omit-frame-pointer -fuse-ld=lld)
    fi
    local command=("$compiler" "${flags[@]}" -o "$exe" "$@")
    vow_matrix_up_to_date "$exe" "${command[@]}" && return 0
    rm -f "$exe" "$exe.command"
    "${command[@]}" >"$log" 2>&1 || return 1
    printf '%s\n' "${command[*]}" >"$exe.command"
}

# vow_matrix_up_to_date EXE COMMAND...: EXE was built by this very command (EXE.command) and
# is newer than every file the command names, every header in the folders it includes
# (-I DIR, recursively) and every shared library in the folders it links from (-L DIR). So
# a stage reuses the programs an earlier stage built the same way (the valgrind stage the
# c-tests stage's, a second run of a runner its first run's), and rebuilds what changed.
vow_matrix_up_to_date() {
    local exe=$1 arg prev="" newer=""
    shift
    [[ -x "$exe" && -f "$exe.command" && "$(cat "$exe.command")" == "$*" ]] || return 1
    for arg; do
        case "$prev:$arg" in
            -I:*) newer="$(find "$arg" \( -name '*.h' -o -name '*.hpp' \) -newer "$exe" -print -quit 2>/dev/null)" ;;
            *:-I?*) newer="$(find "${arg#-I}" \( -name '*.h' -o -name '*.hpp' \) -newer "$exe" -print -quit 2>/dev/null)" ;;
            -L:*) newer="$(find "$arg" -maxdepth 1 -name '*.so' -newer "$exe" -print -quit 2>/dev/null)" ;;
            *) [[ -f "$arg" && "$arg" -nt "$exe" ]] && newer=$arg ;;
        esac
        [[ -z "$newer" ]] || return 1
        prev=$arg
    done
}

vow_matrix_run() {
    local log=$1 t0
    shift
    t0=$(date +%s.%N)
    env "${VOW_MATRIX_ENV[@]}" timeout --kill-after=10 "$VOW_MATRIX_TIMEOUT" \
        "${VOW_MATRIX_PREFIX[@]}" "$@" >"$log" 2>&1
    VOW_MATRIX_RC=$?
    VOW_MATRIX_SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# vow_matrix_why: the last run's exit status in words.
vow_matrix_why() {
    local rc=$VOW_MATRIX_RC
    if [[ "$rc" -eq 124 || "$rc" -eq 137 ]]; then echo "timed out after $VOW_MATRIX_TIMEOUT s"
    elif [[ "$rc" -eq 99 ]]; then echo "valgrind found errors"
    elif [[ "$rc" -gt 128 ]]; then echo "killed by signal $((rc - 128))"
    else echo "exit $rc"
    fi
}

vow_matrix_judge() {
    local label=$1 log=$2 pattern=${3:-} result checks fails
    result="$(grep -o 'RESULT checks=[0-9]* failures=[0-9]*' "$log" | tail -1)"
    checks="$(sed -n 's/.*checks=\([0-9]*\).*/\1/p' <<<"$result")"
    fails="$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' <<<"$result")"
    if [[ "$VOW_MATRIX_RC" -eq 0 && -n "$result" && "$fails" == "0" ]]; then
        echo "ok   $label ($checks checks, $VOW_MATRIX_SECS s)"
        return 0
    fi
    if [[ -n "$result" ]]; then
        echo "FAIL $label ($(vow_matrix_why); $fails of $checks checks failed, $VOW_MATRIX_SECS s; log: $log)"
    else
        echo "FAIL $label ($(vow_matrix_why) before finishing, $VOW_MATRIX_SECS s; log: $log)"
    fi
    grep -E "CHECK failed|FAIL |watchdog|destroyed [0-9]+ times|while checking|case [0-9]+|==[0-9]+==|stderr for|Fatal error|fatal error|Assertion|Segmentation|terminate|runtime error|ERROR: |SUMMARY${pattern:+|$pattern}" "$log" \
        | head -40 | sed 's/^/    /'
    return 1
}

vow_matrix_expect() {
    local label=$1 log=$2 line missing=()
    shift 2
    for line; do grep -qF -- "$line" "$log" || missing+=("$line"); done
    if [[ "$VOW_MATRIX_RC" -eq 0 && ${#missing[@]} -eq 0 ]]; then
        echo "ok   $label"
        return 0
    fi
    echo "FAIL $label ($(vow_matrix_why))"
    for line in "${missing[@]}"; do echo "    missing: $line"; done
    sed 's/^/    | /' "$log" | tail -40
    return 1
}

vow_matrix_swift_library() {
    local bin=$1 root=$2 log=$3 module=$4 out=$5 source
    shift 5
    vow_swiftc_flags "$bin" "$root" 2>"$log" || return 1
    # Kept when newer than its sources and the library and module it builds on.
    local up_to_date=1
    for source in "$@" "$bin/libvow.so" "$bin/Modules/Vow.swiftmodule"; do
        [[ -f "$out" && ! "$source" -nt "$out" ]] || up_to_date=0
    done
    [[ "$up_to_date" -eq 1 ]] && return 0
    swiftc -emit-library -module-name "$module" "${VOW_SWIFTC_FLAGS[@]}" "$@" -o "$out" >"$log" 2>&1
}
