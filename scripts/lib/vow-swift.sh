# Shared by the scripts that build programs against libvow.so (sourced, not run):
# scripts/test.sh, scripts/check-nio.sh, scripts/lib/vow-matrix.sh (and so the native test
# runners), scripts/check-allocations.sh, scripts/soak.sh, scripts/docs.sh.
#
#   vow_release_build ROOT [SCRATCH [ARGS...]]
#                               THE recipe for the release library, used by every script:
#                               `swift build -c release` of the package at ROOT into
#                               SCRATCH (empty or absent: ROOT/.build-release), with ARGS
#                               (say `--show-bin-path`)
#   vow_release_bin ROOT        builds the release library into ROOT/.build-release (if it
#                               is not up to date) and prints its bin directory
#   vow_swiftc_flags BIN ROOT   sets the array VOW_SWIFTC_FLAGS: what swiftc needs to
#                               `import Vow` from BIN and link the same libvow.so (one
#                               engine in the process, never a second static copy)
#   keeping_package_resolved CMD...
#                               runs CMD (in the package's root, the current directory),
#                               then puts Package.resolved back as it found it: a build
#                               with the trait NIO writes one, and a plain `swift build`
#                               checks out whatever it pins (the nio stage, scripts/docs.sh)

# The C files of the library (Sources/CVow) are compiled with DWARF 4 debug information,
# like the Swift code: clang's default, DWARF 5, in the same libvow.so as Swift's DWARF 4
# units, makes valgrind 3.19 (Debian 12's) give up reading the library's debug information
# ("Possibly corrupted debuginfo file. I can't recover."), which ends every program under
# valgrind at its first instruction in libvow.so. A command-line flag, not a manifest
# setting: unsafe flags in Package.swift would stop other packages from depending on Vow.
vow_release_build() {
    local root=$1 scratch=${2:-}
    [ -n "$scratch" ] || scratch="$root/.build-release"
    shift; [ $# -gt 0 ] && shift
    (cd "$root" && swift build -c release --scratch-path "$scratch" -Xcc -gdwarf-4 "$@")
}

vow_release_bin() {
    local root=$1
    vow_release_build "$root" >/dev/null || return 1
    vow_release_build "$root" "" --show-bin-path
}

vow_swiftc_flags() {
    local bin=$1 root=$2 cvow_map
    # Vow's interface imports the C modules CVow (its own module map,
    # Sources/CVow/include/module.modulemap; SwiftPM's generated one for copies from before
    # it had one) and CFFI; without their module maps swiftc reports "missing required
    # modules".
    cvow_map="$root/Sources/CVow/include/module.modulemap"
    [ -f "$cvow_map" ] || cvow_map=$(find "$bin" -maxdepth 2 -path '*CVow.build/module.modulemap' -print -quit 2>/dev/null)
    if [ -z "$cvow_map" ]; then
        echo "CVow's module map not found (Sources/CVow/include, or under $bin): not a SwiftPM build directory?" >&2
        return 1
    fi
    VOW_SWIFTC_FLAGS=(
        -swift-version 6 -warnings-as-errors
        -I "$bin/Modules"
        -Xcc "-fmodule-map-file=$cvow_map"
        -Xcc "-fmodule-map-file=$root/Sources/CFFI/module.modulemap"
        -L "$bin" -lvow -Xlinker -rpath -Xlinker "$bin"
    )
}

keeping_package_resolved() {
    local backup=""
    if [ -f Package.resolved ]; then
        backup=$(mktemp)
        cp Package.resolved "$backup"
    fi
    "$@"
    local rc=$?
    if [ -n "$backup" ]; then
        mv "$backup" Package.resolved
    else
        rm -f Package.resolved
    fi
    return $rc
}
