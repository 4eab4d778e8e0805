# The build commands that README.md, the DocC article SwiftRuntimeInCHost.md and
# Examples/README.md show, kept equal and run as they are (sourced, not run; used by
# scripts/check-one-engine.sh; vow_readme_shows also by Examples/run-examples.sh and
# scripts/check-nio.sh).
#
#   VOW_DOCS                          the three documents; README.md is the reference
#   vow_doc_block FILE NAME           prints the code block after the line
#                                     `<!-- install-check: NAME -->` in FILE
#   vow_doc_block_same NAME           fails unless the block NAME reads the same in every
#                                     document; prints it
#   vow_readme_shows FILE             fails unless README.md shows FILE verbatim, in the code
#                                     block after `<!-- FILE -->`

VOW_DOCS=(README.md Sources/Vow/Vow.docc/SwiftRuntimeInCHost.md Examples/README.md)

vow_doc_block() {
    awk -v marker="<!-- install-check: $2 -->" '
        $0 == marker { found = 1; next }
        found && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$1"
}

vow_doc_block_same() {
    local name=$1 block doc
    block=$(vow_doc_block "${VOW_DOCS[0]}" "$name")
    if [ -z "$block" ]; then
        echo "${VOW_DOCS[0]} has no block after <!-- install-check: $name -->" >&2
        return 1
    fi
    for doc in "${VOW_DOCS[@]:1}"; do
        if [ "$(vow_doc_block "$doc" "$name")" != "$block" ]; then
            echo "the block '$name' in $doc differs from ${VOW_DOCS[0]}'s (or is missing)" >&2
            return 1
        fi
    done
    printf '%s\n' "$block"
}

vow_readme_shows() {
    if ! diff -q <(awk -v marker="<!-- $1 -->" '
            $0 == marker { found = 1; next }
            found && /^```/ { if (inside) exit; inside = 1; next }
            inside { print }' README.md) "$1" >/dev/null; then
        echo "the code block after <!-- $1 --> in README.md differs from $1" >&2
        return 1
    fi
}
