#!/usr/bin/env bash
# Compiles include/vow.h as strict C99 and C++17 with gcc, clang, g++ and
# clang++ (zero warnings), and checks with clang that every pointer in the
# header carries a nullability annotation (Swift's @c @implementation
# compares nullability against it).
#
# Usage: Tests/C/header/check_header.sh [REPO_ROOT]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="${1:-$(cd "$here/../../.." && pwd)}"
header="$root/include/vow.h"

if [[ ! -f "$header" ]]; then
    echo "header: $header not found" >&2
    exit 1
fi

for tool in gcc g++ clang clang++; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "header: FAIL: '$tool' not found on PATH (clang is in the Swift toolchain, e.g. /opt/swift/usr/bin)" >&2
        exit 1
    fi
done

warn="-Wall -Wextra -pedantic -Werror"
failed=0

check() { # label compiler args...
    local label="$1"
    shift
    if "$@"; then
        echo "header: $label ok"
    else
        echo "header: $label FAILED" >&2
        failed=1
    fi
}

# shellcheck disable=SC2086
{
check "gcc c99"       gcc     -std=c99   $warn -fsyntax-only -I"$root/include" "$here/header_c.c"
check "clang c99"     clang   -std=c99   $warn -fsyntax-only -I"$root/include" "$here/header_c.c"
check "g++ c++17"     g++     -std=c++17 $warn -fsyntax-only -I"$root/include" "$here/header_cpp.cpp"
check "clang++ c++17" clang++ -std=c++17 $warn -fsyntax-only -I"$root/include" "$here/header_cpp.cpp"
# The debug-mode site macros (vow.h, "Debug mode") in both languages.
check "gcc c99 VOW_DEBUG_SITES"       gcc     -std=c99   $warn -DVOW_DEBUG_SITES -fsyntax-only -I"$root/include" "$here/header_c.c"
check "clang++ c++17 VOW_DEBUG_SITES" clang++ -std=c++17 $warn -DVOW_DEBUG_SITES -fsyntax-only -I"$root/include" "$here/header_cpp.cpp"
# Arrays of plain handles need no cast (C11 and C++).
check "gcc c11 arrays"       gcc     -std=c11   $warn -fsyntax-only -I"$root/include" "$here/arrays_c.c"
check "clang c11 arrays"     clang   -std=c11   $warn -fsyntax-only -I"$root/include" "$here/arrays_c.c"
check "gcc c17 arrays"       gcc     -std=c17   $warn -fsyntax-only -I"$root/include" "$here/arrays_c.c"
check "g++ c++17 arrays"     g++     -std=c++17 $warn -fsyntax-only -I"$root/include" "$here/arrays_cpp.cpp"
check "clang++ c++17 arrays" clang++ -std=c++17 $warn -fsyntax-only -I"$root/include" "$here/arrays_cpp.cpp"
# vow_testing.h, the test loops' header, over vow.h.
check "gcc c99 vow_testing.h"       gcc     -std=c99   $warn -fsyntax-only -I"$root/include" "$here/testing_c.c"
check "clang c99 vow_testing.h"     clang   -std=c99   $warn -fsyntax-only -I"$root/include" "$here/testing_c.c"
check "g++ c++17 vow_testing.h"     g++     -std=c++17 $warn -fsyntax-only -I"$root/include" "$here/testing_cpp.cpp"
check "clang++ c++17 vow_testing.h" clang++ -std=c++17 $warn -fsyntax-only -I"$root/include" "$here/testing_cpp.cpp"
}

# VOW_NONNULL: a literal NULL there is a compile-time error under -Werror=nonnull with clang,
# and none with VOW_NO_NONNULL (code that tests the run-time answer). gcc gets no nonnull
# attribute at all (vow.h, "Clang only, on purpose": gcc's attribute lets the optimizer
# delete the caller's own NULL checks; Tests/C/test_nonnull_gcc.c checks that they stay), so
# gcc must accept the same file without a warning.
for cc in gcc clang; do
    for case in 1 2 3 4; do
        if [[ "$cc" == gcc ]]; then
            # shellcheck disable=SC2086
            check "gcc nonnull case $case accepted (no gcc attribute)" \
                gcc -std=c11 $warn -Werror=nonnull -fsyntax-only -DNONNULL_CASE="$case" -I"$root/include" "$here/nonnull_c.c"
            continue
        fi
        if "$cc" -std=c11 -Wall -Werror=nonnull -fsyntax-only -DNONNULL_CASE="$case" -I"$root/include" \
            "$here/nonnull_c.c" 2>/dev/null; then
            echo "header: $cc nonnull case $case FAILED: a NULL argument compiled without a warning" >&2
            failed=1
        else
            echo "header: $cc nonnull case $case refused ok"
        fi
        # shellcheck disable=SC2086
        check "$cc nonnull case $case with VOW_NO_NONNULL" \
            "$cc" -std=c11 $warn -fsyntax-only -DVOW_NO_NONNULL -DNONNULL_CASE="$case" -I"$root/include" "$here/nonnull_c.c"
    done
done

# Nullability completeness: the header silences the warning for its users,
# so check a copy without that line, with the warning made an error.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
grep -v 'define VOW_NULLABILITY_QUIET_ _Pragma' "$header" > "$tmp/vow.h"
if cmp -s "$header" "$tmp/vow.h"; then
    echo "header: FAIL: the VOW_NULLABILITY_QUIET_ pragma (-Wnullability-completeness) was not found in vow.h" >&2
    failed=1
else
    check "clang nullability complete" \
        clang -std=c99 -fsyntax-only -Werror=nullability-completeness -Werror=nullability-completeness-on-arrays \
        -I"$tmp" "$here/header_c.c"
fi

exit "$failed"
