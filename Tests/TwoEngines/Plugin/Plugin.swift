// Plugin.swift: a Swift component built with swiftc against the installed Vow (the
// modules and libvow.so: `pkg-config --variable=swiftflags vow`), the right way, so its
// Swift code calls libvow.so's Swift engine unless the program exports a copy of its own
// (Host/HostMain.swift loads it with dlopen; scripts/check-install.sh builds both).

import Vow

// C: vow_promise *plugin_made_here(int64_t n);
// A promise made by this component's Swift code, fulfilled with n.
@_cdecl("plugin_made_here")
public func pluginMadeHere(_ n: Int64) -> OpaquePointer? {
    AnyPromise(Promise<Int>.value(Int(n))).unsafeRetainedHandle()
}

// C: vow_promise *plugin_double(vow_promise *number);
// Twice number's value; NULL when AnyPromise(unsafeHandle:) refuses the handle.
@_cdecl("plugin_double")
public func pluginDouble(_ number: OpaquePointer?) -> OpaquePointer? {
    guard let input = AnyPromise(unsafeHandle: number) else { return nil }
    return AnyPromise(Promise<Int>(input).map { $0 * 2 }).unsafeRetainedHandle()
}
