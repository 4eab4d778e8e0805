# The Swift toolchain, and running a command as on a machine without it (sourced, not run).
# Used by the install and package stages to show that programs on an installed Vow build
# and run with no Swift toolchain (README, "Installing").
#
#   vow_toolchain_dir           prints the directory the toolchain hides in: its root, the
#                               folder above usr/bin/swiftc (/opt/swift here); for a
#                               toolchain installed into /usr, its runtime folder
#                               /usr/lib/swift
#   vow_without_toolchain CMD...
#                               runs CMD in a private mount namespace where that directory
#                               is an empty tmpfs: nothing of the toolchain can be found or
#                               loaded, and nothing outside the namespace changes. Needs
#                               root, or unprivileged user namespaces (unshare -r).

vow_toolchain_dir() {
    local swiftc root
    swiftc=$(readlink -f "$(command -v swiftc)") || return 1
    root=$(dirname "$(dirname "$(dirname "$swiftc")")")
    case "$root" in
        / | /usr) echo "$root/lib/swift" | sed 's|^//|/|' ;;
        *) echo "$root" ;;
    esac
}

vow_without_toolchain() {
    local hidden as_root=()
    hidden=$(vow_toolchain_dir) || { echo "vow_without_toolchain: no swiftc on the PATH" >&2; return 1; }
    [ "$(id -u)" -eq 0 ] || as_root=(--map-root-user)
    unshare "${as_root[@]}" --mount --propagation private \
        bash -c 'mount -t tmpfs -o size=1m vow-no-toolchain "$0" && exec "$@"' "$hidden" "$@"
}
