#!/usr/bin/env bash
# Installs the system packages Vow needs to build and test, if they are missing:
#   libffi-dev (the library links libffi), pkg-config (finds it), valgrind (C tests),
#   libuv1-dev and libglib2.0-dev (the event-loop bridges, include/vow_uv.h and vow_glib.h,
#   their tests and examples; libvow.so itself does not link them);
#   patchelf (make install gives the installed libvow.so its SONAME and RUNPATH), cmake
#   (the CMake package and Examples/cmake), dpkg-dev and lintian (make deb, and the
#   package stage's check of the .deb files), abigail-tools (abidw, abidiff: the abi stage),
#   doxygen and python3 (make docs and the docs stage: the headers' reference, the symbol
#   graphs and the site's checks).
# Debian/Ubuntu; needs root (or sudo) only when something is missing.
set -euo pipefail
need=()
for pkg in libffi-dev pkg-config valgrind libuv1-dev libglib2.0-dev patchelf cmake dpkg-dev lintian abigail-tools doxygen python3; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0
echo "installing: ${need[*]}"
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}"
