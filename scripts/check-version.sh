#!/usr/bin/env bash
# The version is written in one place, include/vow.h (VOW_VERSION_MAJOR, _MINOR, _PATCH);
# everything else is made from it (vow_version(), vow.pc, the CMake package, the Debian
# packages) or must say the same. Fails, naming the file and line, where the tree says
# another version of Vow:
#
#   - a SwiftPM dependency on Vow (`vow.git", from: "X.Y.Z"`) in the docs and examples;
#   - `find_package(Vow X.Y ...)` (the release's MAJOR.MINOR);
#   - a file name or text of the release: libvow.so.X.Y.Z, libvow0_X.Y.Z, libvow-dev_X.Y.Z,
#     "Vow X.Y.Z", "libvow X.Y.Z";
#   - CHANGELOG.md's newest release and MIGRATION.md's newest "From Vow A.B to X.Y.Z";
#   - any X.Y.Z at all in the templates the release is made from (scripts/*.in,
#     scripts/cmake/, packaging/): they take @VERSION@.
# Older versions named as history (CHANGELOG.md's earlier releases, "Vow 0.2" in
# MIGRATION.md) are not version strings of this release and are left alone.
# Part of the test command's build stage.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/vow-version.sh

version=$(vow_version .)
IFS=. read -r major minor patch <<<"$version"
number=$(sed -n 's/^#define VOW_VERSION_NUMBER \([0-9][0-9]*\)$/\1/p' include/vow.h)
problems=()
[ "$number" = "$((major * 10000 + minor * 100 + patch))" ] \
    || problems+=("include/vow.h: VOW_VERSION_NUMBER $number is not $version")

# mentions PATTERN EXPECTED WHAT: every match of PATTERN (perl regex, the version in its
# first group) in the tracked files must be EXPECTED.
checked=0
mentions() {
    local pattern=$1 expected=$2 what=$3 line found
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        found=$(perl -ne "print \"\$1\\n\" while /$pattern/g" <<<"${line#*:*:}")
        while IFS= read -r value; do
            [ -n "$value" ] || continue
            checked=$((checked + 1))
            [ "$value" = "$expected" ] \
                || problems+=("${line%%:*}:$(cut -d: -f2 <<<"$line"): $what $value, the header says $expected")
        done <<<"$found"
    done < <(git grep -nIP "$pattern" -- ':!CHANGELOG.md' ':!abi/*.abi' ':!scripts/check-version.sh' || true)
}
mentions 'vow(?:\.git)?", from: "([0-9]+\.[0-9]+\.[0-9]+)"' "$version" "a dependency on Vow"
mentions 'find_package\(Vow ([0-9]+\.[0-9]+(?:\.[0-9]+)?)' "$major.$minor" "find_package(Vow) asks for"
mentions '(?:libvow\.so\.|libvow[0-9]*_|libvow-dev_|\bVow |\blibvow )([0-9]+\.[0-9]+\.[0-9]+)\b' "$version" "a release named"

# CHANGELOG.md: its newest release is this one; its lines up to the next release too.
newest=$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' CHANGELOG.md | head -1)
[ "$newest" = "$version" ] || problems+=("CHANGELOG.md: the newest release is ${newest:-missing}, the header says $version")
checked=$((checked + 1))
# MIGRATION.md: the newest "From Vow A.B to X.Y.Z" leads to this release.
leads_to=$(sed -n 's/^## From Vow [0-9.]* to \([0-9][0-9.]*\)$/\1/p' MIGRATION.md | tail -1)
[ "$leads_to" = "$version" ] || problems+=("MIGRATION.md: the newest 'From Vow ... to' section leads to ${leads_to:-nothing}, not $version")
checked=$((checked + 1))

# The templates take @VERSION@, never a literal.
while IFS= read -r line; do
    problems+=("$line: a literal version in a template (write @VERSION@)")
done < <(git grep -nIP '(?<![0-9.])[0-9]+\.[0-9]+\.[0-9]+(?![0-9.])' -- 'scripts/*.in' 'scripts/cmake' 'packaging' || true)

if [ ${#problems[@]} -gt 0 ]; then
    echo "version: FAILED: the header says $version, but:"
    printf '  %s\n' "${problems[@]}"
    exit 1
fi
echo "version: $version in all $checked places that name it (include/vow.h is the source)"
