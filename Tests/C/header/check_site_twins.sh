#!/usr/bin/env bash
# Checks the debug twins of include/vow.h ("Debug mode"), which are made from the table
# VOW_PROMISE_MAKERS:
#
#  1. the generated text is up to date: the VOW_DEBUG_SITES macros in vow.h and
#     Sources/Vow/C/CPromiseMakers.swift are what scripts/generate-promise-makers.sh makes
#     from the table and the Swift implementations;
#  2. every function the header declares that returns a vow_promise * it made has a row,
#     that is a NAME_site twin; the functions that return a promise they did not make
#     are listed below, each with the reason;
#  3. the deprecated NAME_at names are exactly Vow 0.2's (a program built against 0.2
#     still links; no new function gets one), and the compiler warns at each use with
#     the NAME_site to use instead.
#
# Usage: Tests/C/header/check_site_twins.sh [REPO_ROOT]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="${1:-$(cd "$here/../../.." && pwd)}"
header="$root/include/vow.h"
failed=0
fail() { echo "site twins: FAIL: $*" >&2; failed=1; }

# Functions that return a vow_promise * they did not make, so they have no twin: there
# is no new promise whose site could be recorded.
exempt=(
    vow_promise_retain      # returns its argument, one more reference to the same promise
    vow_value_get_promise   # the promise a PROMISE value holds (borrowed)
    vow_consume             # returns next, the caller's own promise, after releasing prev
)

# Vow 0.2's twins, which keep their _at names (deprecated) for one release.
at_names_0_2=(
    vow_promise_pending vow_promise_fulfilled vow_promise_rejected
    vow_then vow_then_on vow_catch vow_catch_policy vow_finally vow_catch_on vow_catch_policy_on vow_finally_on
    vow_when vow_join vow_race vow_any vow_when_limited vow_when_limited_on vow_join_limited vow_join_limited_on
    vow_after vow_timeout vow_dispatch vow_then_call vow_then_call_on vow_promise_lazy vow_promise_lazy_on
    vow_delay vow_retry
)

# --- 1. generated text --------------------------------------------------------------------
if ! "$root/scripts/generate-promise-makers.sh" --check; then
    fail "scripts/generate-promise-makers.sh --check failed (see above)"
fi
# The C entry points of libvow.so (one per declared function, a jump through the engine's
# table) are generated from the same headers.
if ! "$root/scripts/generate-entry-points.sh" --check >/dev/null; then
    "$root/scripts/generate-entry-points.sh" --check
    fail "scripts/generate-entry-points.sh --check failed (see above)"
fi

# --- the declarations, one per line: "RETURN-TYPE-AND-NAME(" up to the name ------------------
mark=VOW_EXTERN__DECLARATION_MARK
flat="$(gcc -E -P -x c -std=c99 -DVOW_EXTERN="$mark" "$header" | tr '\n' ' ' | sed "s/$mark/\n$mark/g" \
    | grep "^$mark" | sed -E "s/^$mark[[:space:]]*//; s/[[:space:]]+/ /g")"
name_of() { sed -E 's/^[^(]*[^a-zA-Z0-9_](vow_[a-z0-9_]+) ?\(.*$/\1/'; }
declared="$(printf '%s\n' "$flat" | name_of | sort)"
returns_promise="$(printf '%s\n' "$flat" | grep -E '^vow_promise \*' | name_of | sort)"
[[ "$(printf '%s\n' "$returns_promise" | grep -c .)" -ge 20 ]] \
    || fail "found only $(printf '%s\n' "$returns_promise" | grep -c .) declarations returning vow_promise * (parse error?)"

# (Membership tests read here-strings, not pipes: under pipefail, `printf | grep -q` fails
# at random when grep exits before printf has written everything.)

# --- 2. every maker has its twin ----------------------------------------------------------
plain="$(printf '%s\n' "$returns_promise" | grep -vE '_(site|at)$' || true)"
for name in "${exempt[@]}"; do
    grep -qx "$name" <<< "$plain" || fail "exempt $name is not declared as returning vow_promise *"
done
twins=0
for name in $plain; do
    if [[ " ${exempt[*]} " == *" $name "* ]]; then continue; fi
    if grep -qx "${name}_site" <<< "$declared"; then
        twins=$((twins + 1))
    else
        fail "$name returns a vow_promise * but has no ${name}_site: add its row to VOW_PROMISE_MAKERS" \
            "(include/vow.h), or, if it returns a promise it did not make, to the exemptions in $0"
    fi
done
for twin in $(printf '%s\n' "$declared" | grep -E '_site$' | grep -vxE 'vow_unhandled(_chain)?_site' || true); do
    grep -qx "${twin%_site}" <<< "$plain" || fail "$twin has no plain function ${twin%_site}"
done

# --- 3. the deprecated _at names ----------------------------------------------------------
at_declared="$(printf '%s\n' "$returns_promise" | grep -E '_at$' | sed 's/_at$//' | sort)"
expected="$(printf '%s\n' "${at_names_0_2[@]}" | sort)"
if [[ "$at_declared" != "$expected" ]]; then
    fail "the _at names are not Vow 0.2's: $(diff <(printf '%s\n' "$expected") <(printf '%s\n' "$at_declared") \
        | grep '^[<>]' | sed 's/^</missing:/; s/^>/new (use an X row, not X_0_2):/' | tr '\n' ' ')"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '#include "vow.h"' 'vow_promise *old_name(void);' \
    'vow_promise *old_name(void) { return vow_after_at("old.c", 1, 0.5); }' > "$tmp/old_name.c"
for cc in gcc clang; do
    if "$cc" -std=c99 -Wall -Werror=deprecated-declarations -fsyntax-only -I"$root/include" "$tmp/old_name.c" \
        > "$tmp/$cc.log" 2>&1; then
        fail "$cc accepts vow_after_at without a deprecation warning"
    elif ! grep -q "vow_after_site" "$tmp/$cc.log"; then
        fail "$cc's deprecation warning for vow_after_at does not name vow_after_site: $(head -3 "$tmp/$cc.log")"
    fi
done

if [[ "$failed" -eq 0 ]]; then
    echo "site twins: $twins functions with their _site twin, ${#exempt[@]} exempt, ${#at_names_0_2[@]} deprecated _at names"
fi
exit "$failed"
