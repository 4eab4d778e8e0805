#!/usr/bin/env bash
# Checks that the tests are placed by feature and that their index stays true:
#
#   1. no two test files under Tests/ share a file name (a name says what a file tests, so
#      two files of one name are one feature in two places, or two names that say nothing);
#      the fuzzers' corpora (Tests/Fuzz/corpus/, inputs named by their hash) are data, and
#      a README.md is a folder's documentation;
#   2. every test source file under Tests/ (.swift .c .cpp .h .hpp .sh) is named in
#      Tests/README.md, the index (feature -> where it is tested, and in which stage), as
#      `NAME` in backquotes, or as the end of a backquoted path (`API/NAME`).
#
# Usage: scripts/check-tests-index.sh   (the test command's build stage runs it). Prints the
# offending names; exits 1 if any.
set -uo pipefail
cd "$(dirname "$0")/.."

# The files git tracks and the new ones it does not ignore (build output is ignored).
files="$(git ls-files --cached --others --exclude-standard Tests 2>/dev/null || find Tests -type f)"
files="$(grep -v -e '^Tests/Fuzz/corpus/' -e '/README\.md$' -e '^Tests/README\.md$' <<<"$files" | while read -r f; do [[ -f "$f" ]] && echo "$f"; done)"
status=0

repeated="$(xargs -n1 basename <<<"$files" | sort | uniq -d)"
if [[ -n "$repeated" ]]; then
    echo "check-tests-index: test files that share a name (name each by what it tests):"
    for name in $repeated; do grep "/$name\$" <<<"$files" | sed 's/^/    /'; done
    status=1
fi

unlisted=()
while read -r f; do
    name="$(basename "$f" | sed 's/[.]/[.]/g')"
    grep -qE "\`([^\` ]*/)?$name\`" Tests/README.md || unlisted+=("$f")
done < <(grep -E '\.(swift|c|cpp|h|hpp|sh)$' <<<"$files")
if [[ ${#unlisted[@]} -gt 0 ]]; then
    echo "check-tests-index: test files Tests/README.md does not name (add each under its feature):"
    printf '    %s\n' "${unlisted[@]}"
    status=1
fi

[[ "$status" -eq 0 ]] && echo "check-tests-index: $(wc -l <<<"$files") test files, no name twice, every source in Tests/README.md"
exit "$status"
