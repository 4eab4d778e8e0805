import CVow

// Chaining (vow.h, "Chaining"): every function makes one link on the source promise with
// the engine's link primitive and returns it (+1). The C callback lives in the link
// (`CLinkBody`, `CFinallyBody`): its `destroy` runs once, after the callback ran or as
// soon as it is certain it never will. A call that fails runs `destroy` before returning.
// Each chaining function is written once, as `func NAME(<its C parameters>, at site:)`
// with the site to record in debug mode; its C entry points (NAME with the site "C", the
// debug twin NAME_site with the caller's) are generated from the header's table
// `VOW_PROMISE_MAKERS` into CPromiseMakers.swift.

@c @implementation
func vowface_result_return(_ out: OpaquePointer?, _ v: OpaquePointer?) {
    guard let slot = VowResultSlot.from(out, in: "vow_result_return") else { return }
    guard let v else {
        slot.pointee = .returned(VowValue.sharedNull)
        return
    }
    withHandle(v, .value, as: VowValue.self, in: "vow_result_return", else: ()) { value in
        slot.pointee = .returned(value)
    }
}

@c @implementation
func vowface_result_throw(_ out: OpaquePointer?, _ e: OpaquePointer?) {
    guard let slot = VowResultSlot.from(out, in: "vow_result_throw"),
          let error = handle(e, as: VowErrorBox.self, in: "vow_result_throw") else { return }
    slot.pointee = .threw(error)
}

@c @implementation
func vowface_result_adopt(_ out: OpaquePointer?, _ p: OpaquePointer?) {
    // The caller's reference to p is ours from here on, whatever happens.
    guard let p else {
        guard let slot = VowResultSlot.from(out, in: "vow_result_adopt") else { return }
        slot.pointee = .threw(VowErrorBox.boxing(
            VowError(.type, "vow_result_adopt: the promise to adopt was NULL (the step did not start)")))
        return
    }
    guard let source = unmanagedHandle(p, .promise, as: Core.self, in: "vow_result_adopt") else { return }
    guard let slot = VowResultSlot.from(out, in: "vow_result_adopt") else {
        source.release()
        return
    }
    // The caller's reference moves into the slot: no PROMISE value around it.
    slot.pointee = .adopted(source.takeRetainedValue())
}

@inline(__always)
func vow_then(_ p: OpaquePointer?, _ on_value: vow_on_value?, _ on_error: vow_on_error?,
              _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    var context = CContext(ctx, destroy)
    guard let source = unmanagedHandle(p, .promise, as: Core.self, in: "vow_then") else {
        context.destroyNow()
        return nil
    }
    return source._withUnsafeGuaranteedRef {
        chainThen($0, on: DefaultDispatcher.shared, on_value, on_error, context, skipsCancellation: false, at: site)
    }
}

@inline(__always)
func vow_then_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ on_value: vow_on_value?, _ on_error: vow_on_error?,
                 _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    var context = CContext(ctx, destroy)
    let link = withDispatcherHandle(d, in: "vow_then_on", else: nil) { dispatcher -> OpaquePointer? in
        guard let source = unmanagedHandle(p, .promise, as: Core.self, in: "vow_then_on") else { return nil }
        return source._withUnsafeGuaranteedRef {
            chainThen($0, on: dispatcher, on_value, on_error, context, skipsCancellation: false, at: site)
        }
    }
    if link == nil { context.destroyNow() }
    return link
}

@inline(__always)
func vow_catch(_ p: OpaquePointer?, _ on_error: vow_on_error?, _ ctx: UnsafeMutableRawPointer?,
               _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cCatch(.plain, p, VOW_CATCH_ALL_EXCEPT_CANCELLATION, on_error, ctx, destroy, in: "vow_catch", at: site)
}

@inline(__always)
func vow_catch_policy(_ p: OpaquePointer?, _ policy: vow_policy, _ on_error: vow_on_error?,
                      _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cCatch(.plain, p, policy, on_error, ctx, destroy, in: "vow_catch_policy", at: site)
}

@inline(__always)
func vow_catch_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ on_error: vow_on_error?,
                  _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cCatch(.on(d), p, VOW_CATCH_ALL_EXCEPT_CANCELLATION, on_error, ctx, destroy, in: "vow_catch_on", at: site)
}

@inline(__always)
func vow_catch_policy_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ policy: vow_policy, _ on_error: vow_on_error?,
                         _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cCatch(.on(d), p, policy, on_error, ctx, destroy, in: "vow_catch_policy_on", at: site)
}

/// The four `vow_catch` forms: `vow_catch` is `vow_catch_policy` with
/// `VOW_CATCH_ALL_EXCEPT_CANCELLATION`, and each `_on` form names its dispatcher.
/// `function` is the entry point the caller called (for diagnostics).
@inline(__always)
private func cCatch(_ d: CDispatcherArgument, _ p: OpaquePointer?, _ policy: vow_policy, _ on_error: vow_on_error?,
                    _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?,
                    in function: StaticString, at site: Site) -> OpaquePointer? {
    var context = CContext(ctx, destroy)
    guard let dispatcher = d.dispatcher(in: function),
          let source = unmanagedHandle(p, .promise, as: Core.self, in: function), on_error != nil,
          let skip = skipsCancellation(policy, in: function) else {
        context.destroyNow()
        return nil
    }
    return source._withUnsafeGuaranteedRef {
        chainThen($0, on: dispatcher, nil, on_error, context, skipsCancellation: skip, at: site)
    }
}

@inline(__always)
func vow_finally(_ p: OpaquePointer?, _ fn: CDestroy?, _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?,
                 at site: Site) -> OpaquePointer? {
    cFinally(.plain, p, fn, ctx, destroy, in: "vow_finally", at: site)
}

@inline(__always)
func vow_finally_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ fn: CDestroy?, _ ctx: UnsafeMutableRawPointer?,
                    _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cFinally(.on(d), p, fn, ctx, destroy, in: "vow_finally_on", at: site)
}

/// `vow_finally` and `vow_finally_on`.
@inline(__always)
private func cFinally(_ d: CDispatcherArgument, _ p: OpaquePointer?, _ fn: CDestroy?,
                      _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?,
                      in function: StaticString, at site: Site) -> OpaquePointer? {
    var context = CContext(ctx, destroy)
    guard let dispatcher = d.dispatcher(in: function),
          let source = unmanagedHandle(p, .promise, as: Core.self, in: function), let fn else {
        context.destroyNow()
        return nil
    }
    return source._withUnsafeGuaranteedRef {
        chainFinally($0, on: dispatcher, fn, context, at: site)
    }
}

/// Whether `policy` skips cancellation; nil (with a diagnostic) for an unknown policy.
private func skipsCancellation(_ policy: vow_policy, in function: StaticString) -> Bool? {
    switch policy {
    case VOW_CATCH_ALL_EXCEPT_CANCELLATION: return true
    case VOW_CATCH_ALL_ERRORS: return false
    default:
        // Printed signed: a C enum is an int, and -1 must read as -1.
        writeDiagnostic("vow: \(function): unknown policy \(Int32(bitPattern: policy.rawValue))")
        return nil
    }
}

/// `then` / `catch`: links `callback` on `source` and returns the link (+1). A missing
/// value or error callback passes the outcome through; with `skipsCancellation`, a
/// cancellation passes through without running the error callback.
@inline(__always)
private func chainThen(_ source: Core, on dispatcher: any Dispatcher, _ onValue: vow_on_value?,
                       _ onError: vow_on_error?, _ context: consuming CContext,
                       skipsCancellation: Bool, at site: Site) -> OpaquePointer {
    if skipsCancellation {
        return source.link(on: dispatcher, CLinkBody<SkipsCancellation>(onValue: onValue, onError: onError, context),
                           at: site).retainedHandle
    }
    return source.link(on: dispatcher, CLinkBody<AllOutcomes>(onValue: onValue, onError: onError, context),
                       at: site).retainedHandle
}

/// `finally`: a cleanup link (it runs even if the derived promise was cancelled), then the
/// derived promise settles like the source.
@inline(__always)
private func chainFinally(_ source: Core, on dispatcher: any Dispatcher, _ fn: CDestroy,
                          _ context: consuming CContext, at site: Site) -> OpaquePointer {
    source.link(on: dispatcher, CFinallyBody(fn, context), at: site).retainedHandle
}

// MARK: Watching and walking a chain

@c @implementation
func vowface_observe_on(_ d: OpaquePointer?, _ p: OpaquePointer?,
                           _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                           _ ctx: UnsafeMutableRawPointer?,
                           _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> Int32 {
    let callback = CCallback(ctx: ctx, destroy: destroy, plain: fn)
    guard let dispatcher = dispatcherHandle(d, in: "vow_observe_on"),
          let source = handle(p, as: Core.self, in: "vow_observe_on"), fn != nil else {
        return VOW_EINVAL.rawValue
    }
    // Not a handler (countsAsHandler: false, as a waiter): p stays the end of its branch,
    // and the job depends on no promise, so it keeps nothing wanted. It runs inline where
    // p settles (outside the lock) and only hands fn on to the dispatcher. The closures hold
    // `callback`: its last reference (after fn ran, or when p is freed unsettled or the
    // dispatcher drops the job) runs destroy.
    source.attach(ClosureJob({
        submitContinuation(ClosureJob({ callback.plain?(callback.ctx) }), to: dispatcher)
    }), countsAsHandler: false)
    return VOW_OK.rawValue
}

@c @implementation
func vowface_consume(_ prev: OpaquePointer?, _ next: OpaquePointer?) -> OpaquePointer? {
    // next is checked first, so that its misuse line comes before anything prev's release
    // may report (an unhandled rejection).
    let checked = next == nil || unmanagedHandle(next, .promise, as: Core.self, in: "vow_consume") != nil
    releaseHandle(prev, .promise, in: "vow_consume")
    return checked ? next : nil
}
