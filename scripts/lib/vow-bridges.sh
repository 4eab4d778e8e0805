# The event-loop bridges (Bridges/NAME/*.c with Bridges/common/*.c, headers
# include/vow_NAME.h), shared by the
# scripts that build them (sourced, not run): scripts/install.sh, Tests/Loops/run-loop-tests.sh,
# Examples/run-examples.sh, scripts/check-abi.sh.
#
#   vow_bridge_names                 prints the bridges: uv glib
#   vow_bridge_pkg NAME              the pkg-config package the bridge builds on (libuv, gio-2.0:
#                                    GLib with GIO, which vow_glib_async needs)
#   vow_bridge_header ROOT NAME      the bridge's public header: ROOT/include/vow_NAME.h
#   vow_bridge_sources ROOT NAME     the bridge's C files, one a line: Bridges/common/*.c (what
#                                    both bridges share) and Bridges/NAME/*.c
#   vow_build_bridge ROOT NAME OUT   compiles the bridge's C files (C11, no warnings, -fPIC) into
#                                    the static archive OUT/libvow-NAME.a; its output goes to
#                                    OUT/libvow-NAME.build.log. CC picks the compiler (cc).
#
# A bridge is a static archive: a program links it with libuv or GLib and libvow.so, so
# libvow.so itself never depends on either loop. Its header lives in include/ beside vow.h
# (the Swift module CVow is made of vow.h alone: Sources/CVow/include holds a link to that
# one header, so the Swift library never needs the headers of libuv or GLib).

vow_bridge_names() { echo uv glib; }

vow_bridge_pkg() {
    case "$1" in
        uv) echo libuv ;;
        glib) echo gio-2.0 ;;
        *) return 1 ;;
    esac
}

vow_bridge_header() { echo "$1/include/vow_$2.h"; }

vow_bridge_sources() { printf '%s\n' "$1"/Bridges/common/*.c "$1/Bridges/$2"/*.c; }

vow_build_bridge() {
    local root=$1 name=$2 out=$3 pkg cflags log
    pkg=$(vow_bridge_pkg "$name") || { echo "no bridge named $name" >&2; return 1; }
    mkdir -p "$out"
    log="$out/libvow-$name.build.log"
    cflags=$(pkg-config --cflags "$pkg" 2>"$log") || { cat "$log" >&2; return 1; }
    local objects=() src obj
    while read -r src; do
        obj="$out/vow_${name}_$(basename "$src" .c).o"
        # shellcheck disable=SC2086 # pkg-config's output is meant to be split into arguments
        if ! "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -O2 -g -fPIC -I "$root/include" $cflags \
                -c "$src" -o "$obj" >>"$log" 2>&1; then
            cat "$log" >&2
            return 1
        fi
        objects+=("$obj")
    done < <(vow_bridge_sources "$root" "$name")
    rm -f "$out/libvow-$name.a"
    ar rcs "$out/libvow-$name.a" "${objects[@]}" >>"$log" 2>&1 || { cat "$log" >&2; return 1; }
}
