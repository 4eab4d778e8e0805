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
