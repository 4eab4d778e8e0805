import CVow

// Promises and resolvers (vow.h, "Promises and resolvers").
// A `vow_promise *` is a `Core`, a `vow_resolver *` a `CResolverRef` (see Shared/Resolvers.swift).

// The functions that make a promise are written once, as `func NAME(<its C parameters>,
// at site:)` with the site to record in debug mode; their C entry points NAME and
// NAME_site are generated from the header's table `VOW_PROMISE_MAKERS` into
// CPromiseMakers.swift.

@inline(__always)
func vow_promise_pending(_ resolver_out: UnsafeMutablePointer<OpaquePointer?>?, at site: Site) -> OpaquePointer? {
    guard let resolver_out else { return nil }
    // One allocation for both: the resolver lives inside its promise (`CResolver`).
    let core = ResolvableCore(resolverTag: HandleTag.primaryResolver.rawValue)
    core.noteMade(at: site)
    resolver_out.pointee = OpaquePointer(core.resolverHandle)
    return core.retainedHandle
}

@inline(__always)
func vow_promise_fulfilled(_ value: OpaquePointer?, at site: Site) -> OpaquePointer? {
    guard let value = handle(value, as: VowValue.self, in: "vow_promise_fulfilled") else { return nil }
    return Core(fulfilled: value).made(at: site).retainedHandle
}

@inline(__always)
func vow_promise_rejected(_ error: OpaquePointer?, at site: Site) -> OpaquePointer? {
    guard let error = handle(error, as: VowErrorBox.self, in: "vow_promise_rejected") else { return nil }
    return Core(rejected: error).made(at: site).retainedHandle
}

@c @implementation
func vowface_promise_state(_ p: OpaquePointer?) -> vow_state {
    guard let core = handle(p, as: Core.self, in: "vow_promise_state") else { return VOW_STATE_INVALID }
    if core.isPending { return VOW_PENDING }
    return core.isRejected ? VOW_REJECTED : VOW_FULFILLED
}

@c @implementation
func vowface_promise_value(_ p: OpaquePointer?) -> OpaquePointer? {
    guard let core = handle(p, as: Core.self, in: "vow_promise_value"), core.isFulfilled else { return nil }
    return core.cValue.retainedHandle
}

@c @implementation
func vowface_promise_error(_ p: OpaquePointer?) -> OpaquePointer? {
    guard let core = handle(p, as: Core.self, in: "vow_promise_error"), core.isRejected else { return nil }
    return core.cError.retainedHandle
}

@c @implementation
func vowface_promise_is_cancelled(_ p: OpaquePointer?) -> Bool {
    withHandle(p, .promise, as: Core.self, in: "vow_promise_is_cancelled", else: false) { core in
        // The same answer as vow_error_is_cancelled(vow_promise_error(p)), without the +1.
        core.isRejected && core.cError.isCancelled
    }
}

// MARK: Resolvers

@c @implementation
func vowface_resolver_resolve(_ r: OpaquePointer?, _ x: OpaquePointer?) -> Int32 {
    settle(through: r, with: x, in: "vow_resolver_resolve") { (resolver, value: VowValue) in resolver.resolve(value) }
}

@c @implementation
func vowface_resolver_fulfill(_ r: OpaquePointer?, _ x: OpaquePointer?) -> Int32 {
    // The hot path, written out so that `fulfill` inlines (through `settle` it would be a
    // closure call: 14 more instructions per call).
    withResolverHandle(r, in: "vow_resolver_fulfill", else: VOW_EINVAL.rawValue) { resolver in
        withHandle(x, .value, as: VowValue.self, in: "vow_resolver_fulfill", else: VOW_EINVAL.rawValue) { value in
            resolver.fulfill(value) ? VOW_OK.rawValue : VOW_EALREADY.rawValue
        }
    }
}

@c @implementation
func vowface_resolver_reject(_ r: OpaquePointer?, _ e: OpaquePointer?) -> Int32 {
    settle(through: r, with: e, in: "vow_resolver_reject") { (resolver, error: VowErrorBox) in resolver.reject(error) }
}

/// `vow_resolver_resolve` and `vow_resolver_reject` (and, written out, `_fulfill`): `settle`
/// with the resolver and the value or error, both borrowed for the call. `VOW_EINVAL` for a NULL or wrong handle (the
/// resolver is checked first), `VOW_EALREADY` when the resolver was already used.
@inline(__always)
private func settle<Argument: TaggedHandle>(through r: OpaquePointer?, with x: OpaquePointer?,
                                            in function: StaticString,
                                            _ settle: (CResolverRef, Argument) -> Bool) -> Int32 {
    withResolverHandle(r, in: function, else: VOW_EINVAL.rawValue) { resolver in
        withHandle(x, Argument.handleKind, as: Argument.self, in: function, else: VOW_EINVAL.rawValue) { argument in
            settle(resolver, argument) ? VOW_OK.rawValue : VOW_EALREADY.rawValue
        }
    }
}

@c @implementation
func vowface_resolver_is_used(_ r: OpaquePointer?) -> Bool {
    withResolverHandle(r, in: "vow_resolver_is_used", else: false) { $0.isUsed }
}

/// Vow 0.1's name for `vow_resolver_is_used` (deprecated in the header).
@c @implementation
func vowface_resolver_is_settled(_ r: OpaquePointer?) -> Bool {
    withResolverHandle(r, in: "vow_resolver_is_settled", else: false) { $0.isUsed }
}

@c @implementation
func vowface_resolver_on_cancel(_ r: OpaquePointer?, _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                   _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> Int32 {
    addCancelHandler(r, on: nil, fn, ctx, destroy, in: "vow_resolver_on_cancel")
}

@c @implementation
func vowface_resolver_on_cancel_on(_ r: OpaquePointer?, _ d: OpaquePointer?,
                                      _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                      _ ctx: UnsafeMutableRawPointer?,
                                      _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> Int32 {
    addCancelHandler(r, on: .on(d), fn, ctx, destroy, in: "vow_resolver_on_cancel_on")
}

/// `vow_resolver_on_cancel` (`d` nil: the handler runs where the cancellation happens) and
/// `vow_resolver_on_cancel_on` (the dispatcher fixed now; the engine holds it with the
/// handler until it was submitted or dropped). Checks the resolver, the dispatcher, then
/// `fn`. The closure holds the callback: when the handler has run, or was dropped because
/// the promise settled otherwise, its last reference goes and `destroy` runs (at once when
/// the call fails).
private func addCancelHandler(_ r: OpaquePointer?, on d: CDispatcherArgument?, _ fn: CDestroy?,
                              _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?,
                              in function: StaticString) -> Int32 {
    let callback = CCallback(ctx: ctx, destroy: destroy, plain: fn)
    guard let resolver = resolverHandle(r, in: function) else { return VOW_EINVAL.rawValue }
    let dispatcher = d?.dispatcher(in: function)
    guard d == nil || dispatcher != nil, fn != nil else { return VOW_EINVAL.rawValue }
    let handler: @Sendable () -> Void = { callback.plain?(callback.ctx) }
    if let dispatcher {
        resolver.core.onCancel(on: dispatcher, handler)
    } else {
        resolver.core.onCancel(handler)
    }
    return VOW_OK.rawValue
}

@c @implementation
func vowface_resolver_retain(_ r: OpaquePointer?) -> OpaquePointer? {
    guard let resolver = UnmanagedResolver(r, in: "vow_resolver_retain") else { return nil }
    resolver.retain()
    return r
}

@c @implementation
func vowface_resolver_release(_ r: OpaquePointer?) {
    UnmanagedResolver(r, in: "vow_resolver_release")?.release()
}
