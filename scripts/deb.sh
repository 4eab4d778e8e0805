#!/usr/bin/env bash
# `make deb`: the Debian packages of this release, built with dpkg-deb from what
# `make install` installs (scripts/install.sh with PREFIX=/usr, LIBDIR=/usr/lib/TRIPLET,
# into a staging folder) and nothing from the network:
#
#   dist/libvowN_VERSION_ARCH.deb      the runtime: libvow.so.VERSION (SONAME libvow.so.N),
#                                      the link libvow.so.N, the Swift runtime in
#                                      /usr/lib/TRIPLET/vow/runtime-N; shlibs and an ldconfig
#                                      trigger
#   dist/libvow-dev_VERSION_ARCH.deb   everything else make install installs: headers, the
#                                      link libvow.so, the bridges' archives, pkg-config
#                                      files, the CMake package, the valgrind suppression
#                                      file, the Swift modules
#
# VERSION comes from include/vow.h, N is VOW_SOVERSION (scripts/lib/vow-version.sh). The
# packages' texts are in packaging/debian/; their changelog is made from CHANGELOG.md.
# Binaries are stripped (as dh_strip does: --strip-unneeded and .comment for shared
# libraries, --strip-debug for archives). The packages' Maintainer is
# VOW_DEB_MAINTAINER (a default below). Prints the two files' paths.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
source scripts/lib/vow-version.sh
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture patchelf strip; do
    command -v "$tool" >/dev/null || { echo "deb: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

version=$(vow_version "$ROOT")
so=$VOW_SOVERSION
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
libdir=/usr/lib/$multiarch
maintainer=${VOW_DEB_MAINTAINER:-Vow maintainers <vow-maintainers@users.noreply.invalid>}
# The changelog's dates are the release's own (CHANGELOG.md); files get the last commit's
# time, so two builds of one commit make the same packages.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
staged="$work/staged"
DESTDIR="$staged" LIBDIR="$libdir" scripts/install.sh /usr >"$work/install.log" 2>&1 \
    || { cat "$work/install.log"; echo "deb: scripts/install.sh failed" >&2; exit 1; }

# The two trees, laid out as debhelper lays them out (dpkg-shlibdeps then knows that the
# private runtime is in the package being built).
runtime="$work/debian/libvow$so"
dev="$work/debian/libvow-dev"
mkdir -p "$runtime$libdir" "$dev"
mv "$staged$libdir/libvow.so.$version" "$staged$libdir/libvow.so.$so" "$runtime$libdir/"
mkdir -p "$runtime$libdir/vow"
mv "$staged$libdir/vow/runtime-$so" "$runtime$libdir/vow/"
cp -a "$staged/." "$dev/"

# Strip, and the permissions Debian expects (shared libraries are not executable).
while IFS= read -r -d '' file; do
    strip --strip-unneeded --remove-section=.comment "$file"
    chmod 644 "$file"
done < <(find "$runtime" -type f -name '*.so*' -print0)
find "$dev" -type f -name '*.a' -exec strip --strip-debug --remove-section=.comment {} +
find "$work/debian" -type d -exec chmod 755 {} +
find "$work/debian" -type f -exec chmod go-w {} +

# Documentation: copyright and a Debian changelog (a native package's changelog.gz), one
# entry per release of CHANGELOG.md with that release's opening paragraph.
swift_version=$(swiftc --version 2>&1 | sed -n 1p)   # sed, not head: reads all (pipefail)
# The copyright's years: from the first release (CHANGELOG.md) to this build's.
first=$(sed -n 's/^## \[[0-9.]*\] - \([0-9]\{4\}\).*/\1/p' CHANGELOG.md | tail -1)
last=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)
years=$first; [ "$first" = "$last" ] || years="$first-$last"
exception=$(awk '/Runtime Library Exception/ { found = 1 } found' "$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/share/swift/LICENSE.txt" | sed 's/^ *//')
[ -n "$exception" ] || { echo "deb: the toolchain's LICENSE.txt has no Runtime Library Exception" >&2; exit 1; }
debian_changelog() {
    awk -v maintainer="$maintainer" '
        function flush() {
            if (release == "") return
            gsub(/\*\*|`/, "", text)
            while (match(text, /\[[^]]*\]\([^)]*\)/)) {
                link = substr(text, RSTART, RLENGTH); sub(/\]\(.*/, "", link); sub(/^\[/, "", link)
                text = substr(text, 1, RSTART - 1) link substr(text, RSTART + RLENGTH)
            }
            printf "vow (%s) unstable; urgency=medium\n\n", release
            n = split("Vow " release ". " text, words, " "); line = "  *"
            for (i = 1; i <= n; i++) {
                if (length(line) + 1 + length(words[i]) > 78) { print line; line = "   " }
                line = line " " words[i]
            }
            print line
            cmd = "date -u -R -d " date "T12:00:00Z"; cmd | getline stamp; close(cmd)
            printf "\n -- %s  %s\n\n", maintainer, stamp
        }
        /^## \[/ { flush(); release = $2; gsub(/[][]/, "", release); date = $4; text = ""; para = 1; next }
        release != "" && para == 1 && /^$/ && text != "" { para = 0; next }
        release != "" && para == 1 && !/^$/ && !/^#/ { text = text (text == "" ? "" : " ") $0 }
        END { flush() }' CHANGELOG.md
}
for tree in "$runtime" "$dev"; do
    doc="$tree/usr/share/doc/$(basename "$tree")"
    mkdir -p "$doc"
    sed -e "s|@SOVERSION@|$so|g" -e "s|@MULTIARCH@|$multiarch|g" -e "s|@SWIFT_VERSION@|$swift_version|g" -e "s|@YEARS@|$years|g" \
        packaging/debian/copyright | awk -v exception="$exception" '$0 == "@SWIFT_RUNTIME_EXCEPTION@" { print exception; next } { print }' \
        >"$doc/copyright"
    debian_changelog | gzip -9n >"$doc/changelog.gz"
    chmod 644 "$doc/copyright" "$doc/changelog.gz"
done

# Control files.
printf 'Source: vow\n\nPackage: libvow%s\nArchitecture: any\n\nPackage: libvow-dev\nArchitecture: any\n' "$so" \
    >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -l"$runtime$libdir/vow/runtime-$so" \
    $(find "$runtime" -type f -name '*.so*' -printf '-e%p ') 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') \
    || { cat "$work/shlibdeps.log"; echo "deb: dpkg-shlibdeps failed" >&2; exit 1; }
[ -n "$depends" ] || { cat "$work/shlibdeps.log"; echo "deb: dpkg-shlibdeps found no dependency" >&2; exit 1; }
# control PACKAGE TREE TEMPLATE: TREE/DEBIAN/control from the template, and md5sums.
control() {
    local tree=$2 size
    mkdir -p "$tree/DEBIAN"
    size=$(du -k -s --apparent-size --exclude=DEBIAN "$tree" | cut -f1)
    sed -e "s|@VERSION@|$version|g" -e "s|@SOVERSION@|$so|g" -e "s|@ARCH@|$arch|g" \
        -e "s|@MAINTAINER@|$maintainer|g" -e "s|@INSTALLED_SIZE@|$size|g" -e "s|@DEPENDS@|$depends|g" \
        "packaging/debian/$3" >"$tree/DEBIAN/control"
    (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$tree/DEBIAN/md5sums"
    chmod 644 "$tree/DEBIAN/control" "$tree/DEBIAN/md5sums"
}
control "libvow$so" "$runtime" runtime.control
echo "libvow $so libvow$so (>= $version)" >"$runtime/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$runtime/DEBIAN/triggers"
chmod 644 "$runtime/DEBIAN/shlibs" "$runtime/DEBIAN/triggers"
control libvow-dev "$dev" dev.control

mkdir -p dist
find "$work/debian" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
for package in "libvow$so" libvow-dev; do
    out="dist/${package}_${version}_$arch.deb"
    dpkg-deb --root-owner-group -Zxz --build "$work/debian/$package" "$out" >/dev/null
    echo "$ROOT/$out"
done
