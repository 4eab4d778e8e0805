#!/usr/bin/env bash
# The test command's "package" stage: the Debian packages as a user gets them.
#
#   1. `make deb` (scripts/deb.sh) writes dist/libvow0_VERSION_ARCH.deb and
#      dist/libvow-dev_VERSION_ARCH.deb, whose versions are the header's;
#   2. lintian reports no error on either (the summary of what else it says is printed);
#   3. both are installed with `dpkg -i` in a private mount namespace where /usr, /etc and
#      /var are overlays over temporary folders (dpkg's database, ldconfig's cache and the
#      files change there and nowhere else: nothing on the machine changes) and the Swift
#      toolchain's folder is empty; there, scripts/check-programs.sh builds and runs a C
#      program with `$(pkg-config --cflags --libs vow)`, a C++, a libuv and a GLib program
#      with CMake's find_package(Vow), the same with pkg-config, and the C program under
#      valgrind's standard leak check with the installed suppression file.
# Needs root (or unprivileged user namespaces), dpkg-dev, lintian, cmake (install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
source scripts/lib/vow-version.sh
source scripts/lib/vow-toolchain.sh
fail() { echo "package: FAILED: $*"; exit 1; }

# In the namespace (the script runs itself there): overlays, the toolchain hidden, dpkg -i.
if [ "${1:-}" = "--inside" ]; then
    work=$2 hidden=$3
    shift 3
    for dir in usr etc var; do
        mkdir -p "$work/overlay/$dir/upper" "$work/overlay/$dir/work"
        mount -t overlay "vow-package-$dir" \
            -o "lowerdir=/$dir,upperdir=$work/overlay/$dir/upper,workdir=$work/overlay/$dir/work" "/$dir" \
            || fail "cannot mount an overlay on /$dir"
    done
    mount -t tmpfs -o size=1m vow-no-toolchain "$hidden" || fail "cannot hide $hidden"
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    unset PKG_CONFIG_PATH CMAKE_PREFIX_PATH LD_LIBRARY_PATH
    DEBIAN_FRONTEND=noninteractive dpkg -i "$@" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i $*"; }
    dpkg-query -W -f '${Package} ${Version} ${Status}\n' libvow"$VOW_SOVERSION" libvow-dev >"$work/dpkg-query.out"
    [ "$(grep -c "install ok installed" "$work/dpkg-query.out")" -eq 2 ] || { cat "$work/dpkg-query.out"; fail "not installed"; }
    # grep without -q reads all of ldconfig's output (with -q it may exit first, and pipefail
    # then reports ldconfig's SIGPIPE).
    ldconfig -p | grep -F "libvow.so.$VOW_SOVERSION " >/dev/null || { cat "$work/dpkg.log"; fail "the ldconfig trigger did not run: ldconfig -p has no libvow.so.$VOW_SOVERSION"; }
    echo "  dpkg -i: $(tr '\n' ';' <"$work/dpkg-query.out" | sed 's/;$//; s/;/; /g'), with the toolchain hidden"
    mkdir -p "$work/programs"
    scripts/check-programs.sh "$work/programs" "$hidden"
    exit 0
fi

version=$(vow_version "$ROOT")
arch=$(dpkg --print-architecture)
# Under /tmp, not TMPDIR: the namespace lays overlays over /usr, /etc and /var, and their
# folders must lie outside them.
work=$(mktemp -d /tmp/vow-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
before=$(dpkg-query -W -f '${Status}' "libvow$VOW_SOVERSION" 2>/dev/null || true)

# 1. make deb.
rm -f dist/*.deb
start=$SECONDS
scripts/deb.sh >"$work/deb.out" 2>&1 || { cat "$work/deb.out"; fail "make deb"; }
debs=("dist/libvow${VOW_SOVERSION}_${version}_$arch.deb" "dist/libvow-dev_${version}_$arch.deb")
for deb in "${debs[@]}"; do
    [ -f "$deb" ] || { cat "$work/deb.out"; fail "$deb was not written"; }
    [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$deb has version $(dpkg-deb -f "$deb" Version), the header $version"
done
echo "  make deb: ${debs[*]} ($(du -k "${debs[0]}" | cut -f1) KB, $(du -k "${debs[1]}" | cut -f1) KB) in $((SECONDS - start)) s"

# 2. lintian: no error.
start=$SECONDS
lintian --tag-display-limit 0 -I "${debs[@]}" >"$work/lintian.out" 2>&1 || true
grep -qE "^[EWIPX]: " "$work/lintian.out" || ! grep -q . "$work/lintian.out" \
    || { cat "$work/lintian.out"; fail "lintian did not run"; }
errors=$(grep -c "^E: " "$work/lintian.out" || true)
summary=$(grep -oE "^[EWIP]: [^ ]+ [^ ]+" "$work/lintian.out" | awk '{ print $1 $3 }' | sort | uniq -c \
    | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')
[ "$errors" -eq 0 ] || { grep "^E: " "$work/lintian.out"; fail "lintian: $errors errors"; }
echo "  lintian: 0 errors (${summary:-nothing reported}) in $((SECONDS - start)) s"

# 3. dpkg -i where nothing outside changes, without the toolchain; programs on it.
hidden=$(vow_toolchain_dir)
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(--map-root-user)
unshare "${as_root[@]}" --mount --propagation private \
    bash "$0" --inside "$work" "$hidden" "${debs[@]/#/$ROOT/}" || fail "installing and using the packages"
[ "$(dpkg-query -W -f '${Status}' "libvow$VOW_SOVERSION" 2>/dev/null || true)" = "$before" ] \
    || fail "the machine's dpkg database changed"
echo "package: ok (installed in a private namespace; nothing on the machine changed)"
