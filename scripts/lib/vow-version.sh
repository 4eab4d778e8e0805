# The release's version and the library's ABI number, for the scripts that install,
# package and check Vow (sourced, not run).
#
#   vow_version ROOT        prints MAJOR.MINOR.PATCH from ROOT/include/vow.h, the one place
#                           the version is written (VOW_VERSION_MAJOR, _MINOR, _PATCH)
#   VOW_SOVERSION           N in the SONAME libvow.so.N and the Debian package libvowN. It
#                           counts ABI breaks, not releases (CHANGELOG.md, "The library's
#                           ABI and its SONAME"): raise it in the release that breaks the C
#                           ABI (the abi stage says when), and only then.

VOW_SOVERSION=0

vow_version() {
    local header="$1/include/vow.h" part parts=()
    for part in MAJOR MINOR PATCH; do
        parts+=("$(sed -n "s/^#define VOW_VERSION_$part \([0-9][0-9]*\)$/\1/p" "$header")")
    done
    if [ -z "${parts[0]}" ] || [ -z "${parts[1]}" ] || [ -z "${parts[2]}" ]; then
        echo "vow_version: no VOW_VERSION_MAJOR/_MINOR/_PATCH in $header" >&2
        return 1
    fi
    echo "${parts[0]}.${parts[1]}.${parts[2]}"
}
