import CVow

// Combinators (vow.h, "Combinators"), over the engine's `Core.all` / `allSettled` / `race`
// and the timers. Results are stored as the engine makes them (a Swift `[Any]` or
// `[Outcome]`); C readers see a LIST through `VowValue.bridging`, in which every item that
// came from C is the same handle (values keep their identity) and every rejection of a
// `vow_join` an ERROR value around the same error.

/// The cores of a C array of promises; nil (with a diagnostic for a bad handle) for a NULL
/// array with n > 0 or a NULL / invalid element.
private func cores(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int, in function: StaticString) -> [Core]? {
    guard n > 0 else { return [] }
    guard let ps else { return nil }
    var cores: [Core] = []
    cores.reserveCapacity(n)
    for index in 0..<n {
        guard let core = promiseHandle(ps[index], in: function) else { return nil }
        cores.append(core)
    }
    return cores
}

@c @implementation
public func vow_when(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_when") else { return nil }
    return Core.all(inputs).retainedHandle
}

@c @implementation
public func vow_join(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_join") else { return nil }
    return Core.allSettled(inputs).retainedHandle
}

@c @implementation
public func vow_race(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_race") else { return nil }
    return Core.race(inputs).retainedHandle
}

@c @implementation
public func vow_after(_ seconds: Double) -> OpaquePointer? {
    let core = Core()
    let timer = OneShotTimer(seconds: seconds) { core.settle(.fulfilled(VowValue.sharedNull)) }
    core.onCancel { timer.cancel() }
    return core.retainedHandle
}

@c @implementation
public func vow_timeout(_ p: OpaquePointer?, _ seconds: Double) -> OpaquePointer? {
    guard let core = promiseHandle(p, in: "vow_timeout") else { return nil }
    return core.timeout(seconds: seconds).retainedHandle
}

@c @implementation
public func vow_dispatch(_ d: OpaquePointer?, _ fn: vow_on_value?, _ ctx: UnsafeMutableRawPointer?,
                         _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    let callback = CCallback(ctx: ctx, destroy: destroy, onValue: fn)
    guard let dispatcher = dispatcherHandle(d, in: "vow_dispatch"), fn != nil else { return nil }
    let target = resolved(dispatcher)
    let core = Core()
    core.setSettler(target)
    // The job and the cancel handler share the callback; whichever comes first takes it,
    // so a cancelled promise's `destroy` runs without waiting for the job.
    let slot = Locked<CCallback?>(callback)
    core.onCancel { _ = slot.withLock { $0.take() } }
    // Scheduled like a handler, so a dispatcher that drops the job (an invalidated queue)
    // cancels the promise, and the cancel handler lets the callback go.
    schedule(Handler(dispatcher: target, dependent: core, kind: .link) { _ in
        guard let callback = slot.withLock({ $0.take() }), core.isPending else { return }
        core.settle(from: callValueCallback(callback.onValue!, callback.ctx, nil))
    }, .fulfilled(VowValue.sharedNull))
    return core.retainedHandle
}
