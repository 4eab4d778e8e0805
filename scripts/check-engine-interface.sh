#!/usr/bin/env bash
# Checks that Sources/VowEngine/Interface.swift lists the engine's interface, no more and
# no less: every `package` declaration of Sources/VowEngine is named in its list (as
# TYPE.NAME, or NAME at the top level; overloads and initializers once), and every name
# in the list is a `package` declaration. Prints the differences; exits 1 if any.
#
# Usage: scripts/check-engine-interface.sh   (the test command's build stage runs it)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
engine="$root/Sources/VowEngine"
interface="$engine/Interface.swift"

# The scan below reads one line at a time, with its braces, `//` comments and one-line
# strings. It refuses the Swift it would misread rather than miscount: block comments and
# multi-line strings (braces it would count), and a `package` whose declaration goes on
# the next line.
unreadable="$(grep -nE '"""|/\*|(^|[^A-Za-z0-9_.])package[[:space:]]*$' "$engine"/*.swift || true)"
if [[ -n "$unreadable" ]]; then
    echo "check-engine-interface: lines this check cannot read (use // comments, one-line strings, the declaration on the line of its \`package\`):"
    sed "s|^$engine/|    |" <<< "$unreadable"
    exit 1
fi

# Every `package` declaration as OWNER.NAME: the owner is the chain of types (and
# extended types) whose braces enclose the line.
declared="$(awk '
    FNR == 1 { depth = 0; top = 0 }
    {
        code = $0
        sub(/\/\/.*/, "", code)
        gsub(/"[^"]*"/, "\"\"", code)
        opens = gsub(/\{/, "{", code); closes = gsub(/\}/, "}", code)
        if (code ~ /(^|[^A-Za-z0-9_.])package[ \t]/) {
            name = ""
            if (match(code, /(^|[^A-Za-z0-9_.])(func|var|let|class|struct|enum|protocol|typealias)[ \t]+`?[A-Za-z_][A-Za-z0-9_]*/)) {
                text = substr(code, RSTART, RLENGTH)
                sub(/.*(func|var|let|class|struct|enum|protocol|typealias)[ \t]+`?/, "", text)
                name = text
            } else if (code ~ /(^|[^A-Za-z0-9_.])init[ \t(<]/) {
                name = "init"
            }
            if (name != "") {
                owner = ""
                for (i = 1; i <= top; i++) owner = owner stack[i] "."
                print owner name
            }
        }
        if (opens > closes && match(code, /(^|[^A-Za-z0-9_.])(class|struct|enum|protocol|extension|actor)[ \t]+[A-Za-z_][A-Za-z0-9_.]*/)) {
            text = substr(code, RSTART, RLENGTH)
            sub(/.*(class|struct|enum|protocol|extension|actor)[ \t]+/, "", text)
            top++; stack[top] = text; level[top] = depth
        }
        depth += opens - closes
        while (top > 0 && depth <= level[top]) top--
    }' "$engine"/*.swift | sort -u)"

# The list: comment lines "//   NAME   text" between the first "MARK: Promises" and
# "MARK: - C-handle layout".
listed="$(awk '
    /^\/\/ MARK: Promises/ { inside = 1 }
    /^\/\/ MARK: - C-handle layout/ { inside = 0 }
    inside && /^\/\/   [A-Za-z_]/ { print $2 }' "$interface" | sort -u)"

missing="$(comm -23 <(printf '%s\n' "$declared") <(printf '%s\n' "$listed"))"
extra="$(comm -13 <(printf '%s\n' "$declared") <(printf '%s\n' "$listed"))"
# The layout section declares its few `package` members itself, below the list.
layout="Continuation.tagOffset ResolvableCore.resolverHandle ResolvableCore.promise"
for name in $layout; do missing="$(grep -vx "$name" <<< "$missing" || true)"; done
status=0
if [[ -n "$missing" ]]; then
    echo "check-engine-interface: package declarations not listed in Sources/VowEngine/Interface.swift:"
    sed 's/^/    /' <<< "$missing"
    echo "  (list them there with what a face uses them for, or make them internal)"
    status=1
fi
if [[ -n "$extra" ]]; then
    echo "check-engine-interface: listed in Sources/VowEngine/Interface.swift but not package declarations:"
    sed 's/^/    /' <<< "$extra"
    status=1
fi
[[ "$status" -eq 0 ]] && echo "check-engine-interface: Interface.swift lists the $(wc -l <<< "$declared") package declarations"
exit "$status"
