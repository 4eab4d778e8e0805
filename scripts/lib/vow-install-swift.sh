# What `make install` (scripts/install.sh) and `make deb` install for Swift code that shares
# promises with C programs through the installed libvow.so (sourced, not run). The list of
# Swift modules is here, in one place: VOW_SWIFT_MODULES.
#
#   vow_install_swift_modules BIN DIR INCLUDE
#       installs into DIR (LIBDIR/vow/swift) the binary modules VOW_SWIFT_MODULES of the
#       build directory BIN (they import only with the compiler that built libvow.so), the
#       internal headers of the C module CVow and a module.modulemap for CVow (vow.h and
#       vow_testing.h, at INCLUDE: the installed include directory relative to DIR) and
#       CFFI (the system libffi; its headers come from libffi-dev). vow-swift.pc and the swiftflags
#       variable of vow.pc point at DIR.

# The Swift modules a component imports (`import Vow`) and those their interfaces import
# (VowTestLoop: the test loop, which the C face vow_testing.h drives, outside the engine).
VOW_SWIFT_MODULES=(Vow VowEngine VowTestLoop)

vow_install_swift_modules() {
    local bin=$1 dir=$2 include=$3 module
    install -d "$dir"
    for module in "${VOW_SWIFT_MODULES[@]}"; do
        install -m 644 "$bin/Modules/$module.swiftmodule" "$dir/$module.swiftmodule"
        if [ -f "$bin/Modules/$module.swiftdoc" ]; then
            install -m 644 "$bin/Modules/$module.swiftdoc" "$dir/$module.swiftdoc"
        fi
    done
    install -m 644 Sources/CVow/include/vow_engine_copies.h "$dir/vow_engine_copies.h"
    install -m 644 Sources/CVow/include/vow_counted_handles.h "$dir/vow_counted_handles.h"
    install -m 644 Sources/CVow/include/vow_face_decls.h "$dir/vow_face_decls.h"
    install -m 644 Sources/CFFI/shim.h "$dir/vow_cffi_shim.h"
    cat >"$dir/module.modulemap" <<MAP
// The C modules that the Vow Swift module imports (written by scripts/install.sh):
// CVow is vow.h and vow_testing.h (\`import CVow\` calls the C interface from Swift) with
// the library's own names of their functions (vow_face_decls.h), CFFI the system libffi.
module CVow {
    header "$include/vow.h"
    header "$include/vow_testing.h"
    header "vow_face_decls.h"
    header "vow_engine_copies.h"
    header "vow_counted_handles.h"
    export *
}
module CFFI [system] {
    header "vow_cffi_shim.h"
    link "ffi"
    export *
}
MAP
}
