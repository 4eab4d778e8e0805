// vow_dispatcher_context: the ctx a host gave vow_dispatcher_new (or _with_timers), so a
// host that makes dispatchers (the libuv and GLib bridges) finds its state from a
// `vow_dispatcher *` without a registry of its own.

import CVow

@c @implementation
func vowface_dispatcher_context(_ d: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard d != nil else { return nil }
    switch dispatcherObject(d, in: "vow_dispatcher_context") {
    case .host(let host)?: return host.ctx
    case .swift?, nil: return nil
    }
}

/// vow_dispatcher_host_context: the ctx of a host dispatcher made with `submit`, else nil.
/// Compares the function pointers only; never reads ctx.
@c @implementation
func vowface_dispatcher_host_context(
    _ d: OpaquePointer?,
    _ submit: (@convention(c) (UnsafeMutableRawPointer?, vow_job?, UnsafeMutableRawPointer?) -> Void)?
) -> UnsafeMutableRawPointer? {
    guard d != nil else { return nil }
    switch dispatcherObject(d, in: "vow_dispatcher_host_context") {
    case .host(let host)?:
        guard let submit, host.hasSubmit(submit) else { return nil }
        return host.ctx
    case .swift?, nil: return nil
    }
}

extension HostDispatcher {
    /// Whether the host made this dispatcher with `submit` (the same C function).
    func hasSubmit(_ submit: Submit) -> Bool {
        unsafeBitCast(submitToHost, to: UnsafeRawPointer.self) == unsafeBitCast(submit, to: UnsafeRawPointer.self)
    }
}
