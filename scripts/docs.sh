#!/usr/bin/env bash
# `make docs`: the documentation people browse, built without network from the package's
# own builds, and checked. Fails on any warning; the test command's stage `docs`
# (scripts/check-docs.sh) is this script and its self-test.
#
#   scripts/docs.sh [--hosting-base-path PATH] [OUT]
#       OUT: .build-docs in the repository unless given. PATH: where the site will be served
#       (`vow` for https://example.org/vow/); the server's root unless given.
#
# Writes
#   OUT/NAME.doccarchive   a DocC archive per Swift module a user imports (VOW_DOCS_MODULES)
#   OUT/headers/           the reference of include/vow.h, vow.hpp, vow_uv.h, vow_glib.h and
#                          vow_testing.h (Doxygen, docs/Doxyfile; opens from disk)
#   OUT/site/              both as one static site: OUT/site/index.html opens from disk and
#                          leads to the header reference (headers/) and to the DocC pages
#                          (documentation/vow/, ...), which a browser shows only over HTTP:
#                          python3 -m http.server -d OUT/site 8000, then
#                          http://localhost:8000/documentation/vow/
#   OUT/logs/              what each tool said
#
# Fails on
#   - a DocC warning in any catalog: a symbol link (``Name``) or article link (<doc:Name>)
#     that does not resolve, a documented parameter the function does not have, ...;
#   - a public Swift symbol without a doc comment (in the symbol graphs DocC reads);
#   - an article set that does not reach a page of VOW_DOCS_REACHED;
#   - a Doxygen warning (an undocumented public declaration of a header, a doc command it
#     cannot read);
#   - a reference of a site page to a file that is not there.
#
# For the self-test (scripts/check-docs.sh): VOW_DOCS_SOURCES=DIR reads the catalogs
# (DIR/Sources/NAME/NAME.docc), docs/ and include/ from DIR instead of the repository;
# VOW_DOCS_SYMBOL_GRAPHS=DIR takes the symbol graphs (DIR/NAME/) from DIR instead of
# extracting them from the builds; VOW_DOCS_PARTS="swift headers site" (the default) says
# which parts to make (the site needs the other two).
set -uo pipefail
BASE_PATH=""
if [ "${1:-}" = "--hosting-base-path" ]; then
    BASE_PATH=${2:?"--hosting-base-path needs a path"}
    shift 2
fi
OUT=$(realpath -m "${1:-$(dirname "$0")/../.build-docs}")
cd "$(dirname "$0")/.."
ROOT=$(pwd)
source scripts/lib/vow-swift.sh

# The Swift modules a user imports, one line each: NAME BUILD [RE-EXPORTED]. The catalog is
# Sources/NAME/NAME.docc. BUILD says which build has the module: core (the release build
# of scripts/lib/vow-swift.sh) or nio (a build with the package trait NIO). RE-EXPORTED
# lists the modules whose public symbols NAME's documentation shows as its own because
# NAME re-exports them (`@_exported import`): Vow shows the engine's Dispatcher,
# SerialDispatcher, VowExecutor, ..., which a user reaches through `import Vow`.
VOW_DOCS_MODULES=(
    "Vow core VowEngine"
    "VowTesting core"
    "VowPromiseKit core"
    "VowNIO nio"
)
# Pages the articles of their module must link to: the engine's types, that a reader of
# Vow's articles reaches (MODULE/SYMBOL).
VOW_DOCS_REACHED=(Vow/Dispatcher Vow/SerialDispatcher Vow/VowExecutor)

SOURCES=${VOW_DOCS_SOURCES:-$ROOT}
GRAPHS=${VOW_DOCS_SYMBOL_GRAPHS:-$OUT/symbol-graphs}
DOCS_PY=(python3 "$ROOT/scripts/lib/vow-docs.py")
mkdir -p "$OUT/logs"
problems=0

# The build that has a module, up to date; prints its llbuild manifest.
manifest_of() {
    case $1 in
        core)
            vow_release_bin "$ROOT" >/dev/null || return 1
            echo "$ROOT/.build-release/release.yaml" ;;
        nio)
            # The nio stage's build when there is one (same command: nothing to rebuild),
            # else a build of VowNIO alone. Either writes Package.resolved at the root, which
            # a plain `swift build` would then check out: keep it as it was.
            if [ -f "$ROOT/.build-nio-tsan/debug.yaml" ]; then
                keeping_package_resolved swift build --build-tests --traits NIO --sanitize=thread \
                    --scratch-path "$ROOT/.build-nio-tsan" >"$OUT/logs/build-nio.log" 2>&1 || return 1
                echo "$ROOT/.build-nio-tsan/debug.yaml"
            else
                keeping_package_resolved swift build --traits NIO --target VowNIO \
                    --scratch-path "$ROOT/.build-nio" >"$OUT/logs/build-nio.log" 2>&1 || return 1
                echo "$ROOT/.build-nio/debug.yaml"
            fi ;;
        *) echo "docs: unknown build '$1'" >&2; return 1 ;;
    esac
}

# extract NAME BUILD [RE-EXPORTED]: NAME's public symbol graphs into GRAPHS/NAME/. With
# the extension blocks of other modules' types (-emit-extension-block-symbols, what the
# swift-docc-plugin does by default since Swift 5.9): what NAME adds to them (VowPromiseKit's
# PromiseKit spellings on Vow's Promise and Resolver, VowNIO's bridges on EventLoopFuture
# and Promise, Vow's Dispatcher conformance of DispatchQueue) is on NAME's pages of the
# extended types ("Extended Modules"); without it DocC leaves those members out.
extract() {
    local name=$1 manifest flags=() reexported=()
    manifest=$(manifest_of "$2") || { echo "docs: the $2 build failed (see $OUT/logs)"; return 1; }
    mapfile -t flags < <("${DOCS_PY[@]}" flags "$manifest" "$name") || return 1
    [ -n "${3:-}" ] && reexported=("-experimental-allowed-reexported-modules=$3")
    rm -rf "${GRAPHS:?}/$name"
    mkdir -p "$GRAPHS/$name"
    swift-symbolgraph-extract -module-name "$name" "${flags[@]}" "${reexported[@]}" \
        -minimum-access-level public -emit-extension-block-symbols -output-dir "$GRAPHS/$name"
}

# convert NAME: the catalog into OUT/NAME.doccarchive; prints DocC's warnings.
convert() {
    local name=$1 log="$OUT/logs/docc-$1.log"
    rm -rf "${OUT:?}/$name.doccarchive"
    docc convert "$SOURCES/Sources/$name/$name.docc" --additional-symbol-graph-dir "$GRAPHS/$name" \
        --fallback-display-name "$name" --fallback-bundle-identifier "org.vow.$name" \
        --output-path "$OUT/$name.doccarchive" >"$log" 2>&1
    local rc=$?
    grep -B1 -A12 -E "^(warning|error):" "$log"
    local count
    count=$(grep -cE "^(warning|error):" "$log")
    echo "     DocC $name: $count warnings"
    [ "$rc" -eq 0 ] && [ "$count" -eq 0 ]
}

swift_docs() {
    local line name build reexported
    for line in "${VOW_DOCS_MODULES[@]}"; do
        read -r name build reexported <<<"$line"
        if [ -z "${VOW_DOCS_SYMBOL_GRAPHS:-}" ]; then
            extract "$name" "$build" "$reexported" || { problems=$((problems + 1)); continue; }
        fi
        "${DOCS_PY[@]}" prepare "$GRAPHS/$name" || problems=$((problems + 1))
        convert "$name" || problems=$((problems + 1))
    done
    local module symbols
    for module in $(printf '%s\n' "${VOW_DOCS_REACHED[@]}" | cut -d/ -f1 | sort -u); do
        symbols=$(printf '%s\n' "${VOW_DOCS_REACHED[@]}" | sed -n "s|^$module/||p")
        # shellcheck disable=SC2086
        "${DOCS_PY[@]}" reached "$OUT/$module.doccarchive" "$module" $symbols || problems=$((problems + 1))
    done
}

# The header reference; fails on any Doxygen warning.
header_docs() {
    local log="$OUT/logs/doxygen.log"
    rm -rf "${OUT:?}/headers" "$OUT/doxygen"
    (cd "$SOURCES" && { cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $OUT/doxygen"; echo "WARN_LOGFILE = $log"; } \
        | doxygen - >"$OUT/logs/doxygen-run.log" 2>&1) || { cat "$OUT/logs/doxygen-run.log"; problems=$((problems + 1)); return; }
    mv "$OUT/doxygen/html" "$OUT/headers" && rm -rf "$OUT/doxygen"
    [ -f "$log" ] || { echo "docs: Doxygen wrote no warning log ($log)"; problems=$((problems + 1)); return; }
    local header
    for header in vow.h vow.hpp vow_uv.h vow_glib.h vow_testing.h; do
        echo "     Doxygen $header: $(grep -c "/$header:[0-9]*: " "$log") warnings"
    done
    if grep -q . "$log"; then
        echo "docs: Doxygen warnings (document the declaration where the header declares it):"
        sed 's/^/    /' "$log"
        problems=$((problems + 1))
    fi
}

# The site: the archives merged (a landing page for the modules), the header reference
# under headers/, and a front page that opens from disk.
site() {
    local log="$OUT/logs/site.log" archives=() line name
    for line in "${VOW_DOCS_MODULES[@]}"; do
        read -r name _ <<<"$line"
        archives+=("$OUT/$name.doccarchive")
    done
    rm -rf "${OUT:?}/site"
    docc merge "${archives[@]}" --synthesized-landing-page-name Vow --output-path "$OUT/site" >"$log" 2>&1 \
        || { cat "$log"; problems=$((problems + 1)); return; }
    if [ -n "$BASE_PATH" ]; then
        docc process-archive transform-for-static-hosting "$OUT/site" --hosting-base-path "$BASE_PATH" \
            >>"$log" 2>&1 || { cat "$log"; problems=$((problems + 1)); return; }
    fi
    cp -r "$OUT/headers" "$OUT/site/headers"
    local modules="" lower
    for line in "${VOW_DOCS_MODULES[@]}"; do
        read -r name _ <<<"$line"
        lower=$(tr '[:upper:]' '[:lower:]' <<<"$name")
        modules+="<li><a href=\"documentation/$lower/\">$name</a></li>"
    done
    sed "s|@MODULES@|$modules|" "$ROOT/docs/site-index.html" >"$OUT/site/index.html"
    "${DOCS_PY[@]}" links "$OUT/site" "$BASE_PATH" || problems=$((problems + 1))
}

PARTS=${VOW_DOCS_PARTS:-swift headers site}
[[ " $PARTS " == *" swift "* ]] && swift_docs
[[ " $PARTS " == *" headers "* ]] && header_docs
[[ " $PARTS " == *" site "* ]] && site
if [ "$problems" -gt 0 ]; then
    echo "docs: FAILED ($problems problems above; logs in $OUT/logs)"
    exit 1
fi
echo "docs: ok ($PARTS) in $OUT"
[[ " $PARTS " == *" site "* ]] && echo "docs: the site: $OUT/site/index.html"
exit 0
