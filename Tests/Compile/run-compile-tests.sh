#!/usr/bin/env bash
# Compile-time tests of the Swift face: what the compiler must accept and refuse.
#
#   Tests/Compile/run-compile-tests.sh BIN     BIN: a SwiftPM bin directory holding Vow's
#                                              module (scripts/test.sh passes the release one)
#
# pass/*.swift must type-check in Swift 6 mode with warnings as errors. fail/*.swift must
# be refused, and the compiler's output must contain every `// expect-error: TEXT` line
# of the file (so a snippet that fails for another reason, a typo say, fails the test).
# Prints one line per snippet and `compile-tests: N passed, M failed`; exits non-zero on
# any failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:?usage: run-compile-tests.sh BIN}
source "$root/scripts/lib/vow-swift.sh"
vow_swiftc_flags "$bin" "$root" || exit 1
# Type-checking links nothing: keep the flags up to the first linker one.
flags=()
for flag in "${VOW_SWIFTC_FLAGS[@]}"; do
    [ "$flag" = "-L" ] && break
    flags+=("$flag")
done

passed=0 failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for snippet in "$here"/pass/*.swift; do
    name=pass/$(basename "$snippet")
    if swiftc -typecheck "${flags[@]}" "$snippet" >"$out" 2>&1 && [ ! -s "$out" ]; then
        echo "ok    $name"; passed=$((passed + 1))
    else
        echo "FAIL  $name: must compile without a diagnostic"; sed 's/^/      /' "$out"; failed=$((failed + 1))
    fi
done

for snippet in "$here"/fail/*.swift; do
    name=fail/$(basename "$snippet")
    mapfile -t expected < <(sed -n 's@^// expect-error: @@p' "$snippet")
    if [ ${#expected[@]} -eq 0 ]; then
        echo "FAIL  $name: no '// expect-error:' line"; failed=$((failed + 1)); continue
    fi
    if swiftc -typecheck "${flags[@]}" "$snippet" >"$out" 2>&1; then
        echo "FAIL  $name: compiled, must be refused"; failed=$((failed + 1)); continue
    fi
    missing=""
    for text in "${expected[@]}"; do
        grep -qF -- "error: $text" "$out" || missing+="      missing: error: $text"$'\n'
    done
    if [ -z "$missing" ]; then
        echo "ok    $name"; passed=$((passed + 1))
    else
        echo "FAIL  $name: refused, but not with the expected error"; printf '%s' "$missing"
        grep 'error:' "$out" | sed 's/^/      got: /'; failed=$((failed + 1))
    fi
done

echo "compile-tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
