import CVow

// Chaining (vow.h, "Chaining"): every function registers one handler on the source promise
// and returns the derived promise (+1), exactly as the Swift API does
// (Swift/Promise+Chain.swift): `derive(on:)`, a `.link` handler (`.cleanup` for finally)
// that checks the derived promise is still pending before running a value/error callback.
// The callback's `CCallback` lives in the handler, so its `destroy` runs when the handler
// is released (see CCallback).

@c @implementation
public func vow_result_return(_ out: OpaquePointer?, _ v: OpaquePointer?) {
    guard let slot = VowResultSlot.from(out, in: "vow_result_return") else { return }
    guard let v else {
        slot.pointee.outcome = .returned(VowValue.sharedNull)
        return
    }
    guard let value = valueHandle(v, in: "vow_result_return") else { return }
    slot.pointee.outcome = .returned(value)
}

@c @implementation
public func vow_result_throw(_ out: OpaquePointer?, _ e: OpaquePointer?) {
    guard let slot = VowResultSlot.from(out, in: "vow_result_throw"),
          let error = errorHandle(e, in: "vow_result_throw") else { return }
    slot.pointee.outcome = .threw(error)
}

@c @implementation
public func vow_then(_ p: OpaquePointer?, _ on_value: vow_on_value?, _ on_error: vow_on_error?,
                     _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, onValue: on_value, onError: on_error)
    guard let source = promiseHandle(p, in: "vow_then") else { return nil }
    return chainThen(source, on: DefaultDispatcher.shared, callback, skipCancellation: false)
}

@c @implementation
public func vow_then_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ on_value: vow_on_value?,
                        _ on_error: vow_on_error?, _ ctx: UnsafeMutableRawPointer?,
                        _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, onValue: on_value, onError: on_error)
    guard let dispatcher = dispatcherHandle(d, in: "vow_then_on"),
          let source = promiseHandle(p, in: "vow_then_on") else { return nil }
    return chainThen(source, on: dispatcher, callback, skipCancellation: false)
}

@c @implementation
public func vow_catch(_ p: OpaquePointer?, _ on_error: vow_on_error?, _ ctx: UnsafeMutableRawPointer?,
                      _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, onError: on_error)
    guard let source = promiseHandle(p, in: "vow_catch"), on_error != nil else { return nil }
    return chainThen(source, on: DefaultDispatcher.shared, callback, skipCancellation: true)
}

@c @implementation
public func vow_catch_policy(_ p: OpaquePointer?, _ policy: vow_policy, _ on_error: vow_on_error?,
                             _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, onError: on_error)
    guard let source = promiseHandle(p, in: "vow_catch_policy"), on_error != nil,
          let skip = skipsCancellation(policy) else { return nil }
    return chainThen(source, on: DefaultDispatcher.shared, callback, skipCancellation: skip)
}

@c @implementation
public func vow_finally(_ p: OpaquePointer?, _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                        _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, plain: fn)
    guard let source = promiseHandle(p, in: "vow_finally"), fn != nil else { return nil }
    return chainFinally(source, on: DefaultDispatcher.shared, callback)
}

@c @implementation
public func vow_catch_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ on_error: vow_on_error?,
                         _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, onError: on_error)
    guard let dispatcher = dispatcherHandle(d, in: "vow_catch_on"),
          let source = promiseHandle(p, in: "vow_catch_on"), on_error != nil else { return nil }
    return chainThen(source, on: dispatcher, callback, skipCancellation: true)
}

@c @implementation
public func vow_catch_policy_on(_ d: OpaquePointer?, _ p: OpaquePointer?, _ policy: vow_policy,
                                _ on_error: vow_on_error?, _ ctx: UnsafeMutableRawPointer?,
                                _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, onError: on_error)
    guard let dispatcher = dispatcherHandle(d, in: "vow_catch_policy_on"),
          let source = promiseHandle(p, in: "vow_catch_policy_on"), on_error != nil,
          let skip = skipsCancellation(policy) else { return nil }
    return chainThen(source, on: dispatcher, callback, skipCancellation: skip)
}

@c @implementation
public func vow_finally_on(_ d: OpaquePointer?, _ p: OpaquePointer?,
                           _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                           _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, plain: fn)
    guard let dispatcher = dispatcherHandle(d, in: "vow_finally_on"),
          let source = promiseHandle(p, in: "vow_finally_on"), fn != nil else { return nil }
    return chainFinally(source, on: dispatcher, callback)
}

/// Whether `policy` skips cancellation; nil (with a diagnostic) for an unknown policy.
private func skipsCancellation(_ policy: vow_policy) -> Bool? {
    switch policy {
    case VOW_CATCH_ALL_EXCEPT_CANCELLATION: return true
    case VOW_CATCH_ALL_ERRORS: return false
    default:
        writeDiagnostic("vow: vow_catch_policy: unknown policy \(policy.rawValue)")
        return nil
    }
}

/// `then` / `catch`: registers `callback` on `source` and returns the derived promise (+1).
/// A missing value or error callback passes the outcome through; with `skipCancellation`,
/// a cancellation error passes through without running the error callback.
private func chainThen(_ source: Core, on dispatcher: any Dispatcher, _ callback: CCallback,
                       skipCancellation: Bool) -> OpaquePointer {
    let (derived, target) = source.derive(on: dispatcher)
    source.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
        guard derived.isPending else { return }
        switch outcome {
        case .fulfilled(let raw):
            guard let onValue = callback.onValue else {
                derived.settle(outcome)
                return
            }
            derived.settle(from: callValueCallback(onValue, callback.ctx, VowValue.bridging(raw)))
        case .rejected(let error):
            guard let onError = callback.onError, !(skipCancellation && isCancellation(error)) else {
                derived.settle(outcome)
                return
            }
            derived.settle(from: callErrorCallback(onError, callback.ctx, VowErrorBox.boxing(error)))
        }
    })
    return derived.retainedHandle
}

/// `finally`: a cleanup handler (it runs even if the derived promise was cancelled), then
/// the derived promise settles like the source.
private func chainFinally(_ source: Core, on dispatcher: any Dispatcher, _ callback: CCallback) -> OpaquePointer {
    source.finallyLink(on: dispatcher) { callback.plain?(callback.ctx) }.retainedHandle
}
