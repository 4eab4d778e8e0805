import CVow

// Combinators (vow.h, "Combinators"), over the engine's `Core.all` / `allSettled` / `race`
// and the timers. The results are C values: a LIST in input order, in which every value
// keeps its handle (a value that came from C is the same handle) and every rejection of a
// `vow_join` is an ERROR value around the same error handle.

/// The cores of a C array of promises; nil (with a diagnostic for a bad handle or a count
/// too large) for a NULL array with n > 0, a NULL / invalid element or a count that does
/// not fit (see `validCount`).
private func cores(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int, in function: StaticString) -> [Core]? {
    guard validCount(n, stride: MemoryLayout<OpaquePointer?>.stride, base: UnsafeRawPointer(ps),
                     in: function) else { return nil }
    guard n > 0 else { return [] }
    guard let ps else { return nil }
    var cores: [Core] = []
    cores.reserveCapacity(n)
    for index in 0..<n {
        guard let core = handle(ps[index], as: Core.self, in: function) else { return nil }
        cores.append(core)
    }
    return cores
}

@c @implementation
public func vow_when(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    cWhen(ps, n, at: .cString(nil, 0))
}

/// `vow_when` (and its `_at` variant, with the caller's site).
@inline(__always)
func cWhen(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int,
           at site: Site) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_when") else { return nil }
    return Core.all(inputs) { settled in
        StoredValue(VowValue(.list(settled.map(\.cValue))))
    }.made(at: site).retainedHandle
}

@c @implementation
public func vow_join(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    cJoin(ps, n, at: .cString(nil, 0))
}

/// `vow_join` (and its `_at` variant, with the caller's site).
@inline(__always)
func cJoin(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int,
           at site: Site) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_join") else { return nil }
    return Core.allSettled(inputs) { settled in
        StoredValue(VowValue(.list(settled.map { $0.isRejected ? VowValue(.error($0.cError)) : $0.cValue })))
    }.made(at: site).retainedHandle
}

@c @implementation
public func vow_race(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    cRace(ps, n, at: .cString(nil, 0))
}

/// `vow_race` (and its `_at` variant, with the caller's site).
@inline(__always)
func cRace(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int,
           at site: Site) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_race") else { return nil }
    return Core.race(inputs, emptyError: VowError(.empty, "race over no promises")).made(at: site)
        .retainedHandle
}

@c @implementation
public func vow_after(_ seconds: Double) -> OpaquePointer? {
    cAfter(seconds, at: .cString(nil, 0))
}

/// `vow_after` (and its `_at` variant, with the caller's site).
@inline(__always)
func cAfter(_ seconds: Double,
            at site: Site) -> OpaquePointer? {
    Core.after(seconds: cSeconds(seconds, in: "vow_after"), value: VowValue.sharedNull).made(at: site).retainedHandle
}

@c @implementation
public func vow_timeout(_ p: OpaquePointer?, _ seconds: Double) -> OpaquePointer? {
    cTimeout(p, seconds, at: .cString(nil, 0))
}

/// `vow_timeout` (and its `_at` variant, with the caller's site).
@inline(__always)
func cTimeout(_ p: OpaquePointer?, _ seconds: Double,
              at site: Site) -> OpaquePointer? {
    guard let core = handle(p, as: Core.self, in: "vow_timeout") else { return nil }
    return core.timeout(seconds: cSeconds(seconds, in: "vow_timeout"), at: site).retainedHandle
}

@c @implementation
public func vow_dispatch(_ d: OpaquePointer?, _ fn: vow_on_value?, _ ctx: UnsafeMutableRawPointer?,
                         _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cDispatch(d, fn, ctx, destroy, at: .cString(nil, 0))
}

/// `vow_dispatch` (and its `_at` variant, with the caller's site).
@inline(__always)
func cDispatch(_ d: OpaquePointer?, _ fn: vow_on_value?, _ ctx: UnsafeMutableRawPointer?,
               _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
               at site: Site) -> OpaquePointer? {
    var context = CContext(ctx, destroy)
    guard let dispatcher = dispatcherHandle(d, in: "vow_dispatch"), let fn else {
        context.destroyNow()
        return nil
    }
    // A link on a promise that is already fulfilled: scheduled on `d` at once, and, like
    // every link, cancelled (its destroy run) if `d` drops it or the promise is cancelled
    // first.
    return VowValue.nullPromise.linkOnSettled(on: dispatcher, CLinkBody<NoValue>(onValue: fn, onError: nil, context),
                                              at: site).retainedHandle
}
