#!/usr/bin/env bash
# The test command's stage `docs`: `make docs` (scripts/docs.sh) with no warning, then
# the self-test, which shows on a copy of the documentation's sources that the check fails
# where it must.
#
#   scripts/check-docs.sh              both
#   scripts/check-docs.sh --self-test  the self-test alone (after a scripts/docs.sh run,
#                                      whose symbol graphs it reuses)
#
# The self-test copies the catalogs (Sources/*/*.docc), docs/, include/ and the symbol
# graphs of the last run to a temporary folder, checks that the copy passes, then breaks
# one thing at a time and checks that scripts/docs.sh fails and names what broke:
#   - a symbol link of an article that no longer resolves (``SerialDispatcher`` renamed);
#   - an article link to an article that does not exist;
#   - a public C declaration of vow.h without its doc comment (vow_promise_state);
#   - a public member of vow.hpp without its doc comment (vow::promise::is_pending);
#   - a public Swift symbol without a doc comment (taken out of the symbol graph).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/.build-docs"

if [ "${1:-}" != "--self-test" ]; then
    scripts/docs.sh "$OUT" || exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "docs: self-test: FAILED: $*"; exit 1; }
[ -d "$OUT/symbol-graphs" ] || fail "no symbol graphs in $OUT (run scripts/docs.sh first)"

# fresh_copy: the sources and symbol graphs of the documentation, untouched, in $work.
fresh_copy() {
    rm -rf "$work/src" "$work/graphs" "$work/out"
    mkdir -p "$work/src/Sources"
    cp -r docs include "$work/src/"
    local catalog
    for catalog in Sources/*/*.docc; do
        mkdir -p "$work/src/$(dirname "$catalog")"
        cp -r "$catalog" "$work/src/$catalog"
    done
    cp -r "$OUT/symbol-graphs" "$work/graphs"
}

# run PARTS: scripts/docs.sh on the copy (the parts named); its output in $work/log.
run() {
    VOW_DOCS_SOURCES="$work/src" VOW_DOCS_SYMBOL_GRAPHS="$work/graphs" VOW_DOCS_PARTS="$1" \
        scripts/docs.sh "$work/out" >"$work/log" 2>&1
}

# breaks WHAT PARTS EXPECTED: run on the broken copy must fail, saying EXPECTED.
breaks() {
    local what=$1 parts=$2 expected=$3
    if run "$parts"; then
        cat "$work/log"; fail "the check passed $what"
    fi
    grep -qF -- "$expected" "$work/log" || { cat "$work/log"; fail "$what: the output does not say: $expected"; }
    echo "  fails on $what ($expected)"
}

# edit FILE PERL-EXPRESSION: edits a file of the copy; fails if nothing changed.
edit() {
    local file="$work/src/$1"
    cp "$file" "$work/before"
    perl -0pi -e "$2" "$file"
    cmp -s "$work/before" "$file" && fail "the edit of $1 changed nothing"
}

fresh_copy
run "swift headers" || { cat "$work/log"; fail "the untouched copy does not pass"; }
echo "  the untouched copy passes"

fresh_copy
edit Sources/Vow/Vow.docc/OwnershipAndThreads.md 's/``SerialDispatcher``/``SerialDispatch``/'
breaks "a broken symbol link in an article" swift "'SerialDispatch' doesn't exist"

fresh_copy
edit Sources/Vow/Vow.docc/GettingStarted.md 's/<doc:OwnershipAndThreads>/<doc:OwnershipAndThread>/'
breaks "a broken article link" swift "'OwnershipAndThread' doesn't exist"

fresh_copy
edit include/vow.h 's{/\*\*(?:(?!\*/).)*?\*/\n(VOW_EXTERN vow_state\nvow_promise_state\()}{$1}s'
breaks "a public C declaration without its doc comment" headers "vow_promise_state"

fresh_copy
edit include/vow.hpp 's{ */\*\* Whether pending \(false when empty\)\. \*/\n( *bool is_pending\(\))}{$1}'
breaks "a public C++ member without its doc comment" headers "is_pending() const noexcept (function) of class vow::promise is not documented"

fresh_copy
python3 - "$work/graphs/Vow/Vow.symbols.json" <<'EOF' || fail "could not take SerialDispatcher's doc comment out"
import json, sys
with open(sys.argv[1]) as f:
    graph = json.load(f)
symbol = next(s for s in graph["symbols"] if s["pathComponents"] == ["SerialDispatcher"])
assert symbol.pop("docComment", None)
with open(sys.argv[1], "w") as f:
    json.dump(graph, f)
EOF
breaks "a public Swift symbol without a doc comment" swift "'SerialDispatcher' has no doc comment"

echo "docs: self-test ok"
