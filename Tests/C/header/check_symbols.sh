#!/usr/bin/env bash
# Checks that every function declared in include/vow.h is exported by the
# shared library as a defined text symbol (a declared but unimplemented
# function builds fine and only fails when a C program links), and that the
# library exports no other C name but the engine's table (VowEngineEntries_D):
# the library's own names of the functions (vowface_X) and every other
# internal name stay hidden, out of the ABI (Swift's $s names are the Swift
# modules' interface).
#
# Usage: Tests/C/header/check_symbols.sh REPO_ROOT LIBVOW_SO
#        Tests/C/header/check_symbols.sh --list [REPO_ROOT]   (print the declared names only)
#
# Declarations are found by preprocessing the header with VOW_EXTERN
# redefined as a marker (the header honours a predefined VOW_EXTERN), so
# comments, macros and function-pointer typedefs cannot be mistaken for
# functions. The count of markers must equal the count of names found, and
# must be at least MIN_DECLARED, so the list cannot come back silently short.
set -euo pipefail

MIN_DECLARED=80
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

list_only=0
if [[ "${1:-}" == "--list" ]]; then
    list_only=1
    shift
fi
root="${1:-$(cd "$here/../../.." && pwd)}"
lib="${2:-}"
header="$root/include/vow.h"

die() { echo "header symbols: FAIL: $*" >&2; exit 1; }

[[ -f "$header" ]] || die "$header not found"
if [[ "$list_only" -eq 0 ]]; then
    [[ -n "$lib" ]] || die "usage: $0 REPO_ROOT LIBVOW_SO"
    [[ -f "$lib" ]] || die "$lib not found"
fi
command -v gcc >/dev/null 2>&1 || die "gcc not found"

mark=VOW_EXTERN__DECLARATION_MARK
# One line of text per declaration: everything between two markers.
pre="$(gcc -E -P -x c -std=c99 -DVOW_EXTERN="$mark" "$header")" || die "could not preprocess $header"
flat="$(printf '%s\n' "$pre" | tr '\n' ' ' | sed "s/$mark/\n$mark/g")"
marks="$(printf '%s\n' "$flat" | grep -c "^$mark" || true)"
# In each declaration, the function's name is the first vow_ identifier
# directly followed by '(' (return types such as vow_fnptr are not).
names="$(printf '%s\n' "$flat" | { grep "^$mark" || true; } \
    | sed -E 's/^[^(]*[^a-zA-Z0-9_](vow_[a-z0-9_]+)[[:space:]]*\(.*$/\1/' | sort)"
count="$(printf '%s\n' "$names" | grep -c '^vow_[a-z0-9_]*$' || true)"
unique="$(printf '%s\n' "$names" | sort -u | grep -c . || true)"

[[ "$marks" -ge "$MIN_DECLARED" ]] || die "only $marks VOW_EXTERN declarations found in $header (expected at least $MIN_DECLARED)"
[[ "$count" -eq "$marks" ]] || die "$marks VOW_EXTERN declarations but $count function names parsed"
[[ "$unique" -eq "$count" ]] || die "duplicate declarations: $(printf '%s\n' "$names" | uniq -d | tr '\n' ' ')"

if [[ "$list_only" -eq 1 ]]; then
    printf '%s\n' "$names"
    echo "header symbols: $count declared" >&2
    exit 0
fi

command -v nm >/dev/null 2>&1 || die "nm not found"
exported="$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "i" { sub(/@.*/, "", $3); print $3 }' | sort -u)" \
    || die "nm failed on $lib"

missing="$(comm -23 <(printf '%s\n' "$names") <(printf '%s\n' "$exported") || true)"
nmissing="$(printf '%s' "$missing" | grep -c . || true)"
echo "header symbols: $count declared, $((count - nmissing)) exported"
if [[ "$nmissing" -gt 0 ]]; then
    printf '%s\n' "$missing" | sed 's/^/missing: /'
    exit 1
fi
# Defined names besides vow_*, Swift's, the table and the linker's own.
internal="$(nm -D --defined-only "$lib" | awk '{ sub(/@.*/, "", $3); print $3 }' \
    | grep -vE '^(vow_|\$s|VowEngineEntries_[0-9a-f]{16}$|_edata$|_end$|__bss_start$|_init$|_fini$)' || true)"
if [[ -n "$internal" ]]; then
    printf '%s\n' "$internal" | head -20 | sed 's/^/exported but not in the headers: /'
    exit 1
fi
