import CVow

// Combinators (vow.h, "Combinators"), over the engine's `Core.all` / `allSettled` / `race`
// and the timers. The results are C values: a LIST in input order, in which every value
// keeps its handle (a value that came from C is the same handle) and every rejection of a
// `vow_join` is an ERROR value around the same error handle.

/// The cores of a C array of promises; nil (with a diagnostic for a bad handle or a count
/// too large) for a NULL array with n > 0, a NULL / invalid element or a count that does
/// not fit (see `validCount`). Every handle is checked before any is kept; the array is
/// then filled in place, one retain per promise.
private func cores(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int, in function: StaticString) -> [Core]? {
    guard validCount(n, stride: MemoryLayout<OpaquePointer?>.stride, base: UnsafeRawPointer(ps),
                     in: function) else { return nil }
    guard n > 0 else { return [] }
    guard let ps else { return nil }
    for index in 0..<n {
        guard unmanagedHandle(ps[index], .promise, as: Core.self, in: function) != nil else { return nil }
    }
    return Array(unsafeUninitializedCapacity: n) { buffer, count in
        for index in 0..<n {
            let core = Unmanaged<Core>.fromOpaque(UnsafeRawPointer(ps[index]!))
            (buffer.baseAddress! + index).initialize(to: core.takeUnretainedValue())
        }
        count = n
    }
}

/// The elements of a combinator's LIST, `element(input)` for each input in order, filled
/// in place. The inputs are read as unmanaged references (the array keeps them alive), so
/// the one retain per element is the LIST's own.
@inline(__always)
private func listElements(_ inputs: [Core], _ element: (Core) -> VowValue) -> [VowValue] {
    inputs.withUnsafeBufferPointer { settled in
        guard let base = settled.baseAddress else { return [] }
        let unmanaged = UnsafeRawPointer(base).assumingMemoryBound(to: Unmanaged<Core>.self)
        return Array(unsafeUninitializedCapacity: settled.count) { buffer, count in
            for index in settled.indices {
                (buffer.baseAddress! + index).initialize(to: unmanaged[index]._withUnsafeGuaranteedRef(element))
            }
            count = settled.count
        }
    }
}

// Each function is written once, as `func NAME(<its C parameters>, at site:)` with the site
// to record in debug mode; its C entry points NAME and NAME_site are generated from the
// header's table `VOW_PROMISE_MAKERS` into CPromiseMakers.swift.

@inline(__always)
func vow_when(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int, at site: Site) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_when") else { return nil }
    return Core.all(inputs) { settled in
        StoredValue(VowValue(.list(listElements(settled) { $0.cValue })))
    }.made(at: site).retainedHandle
}

@inline(__always)
func vow_join(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int, at site: Site) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_join") else { return nil }
    return Core.allSettled(inputs) { settled in
        StoredValue(VowValue(.list(listElements(settled, settledElement))))
    }.made(at: site).retainedHandle
}

/// A `vow_join` result's element: the input's value (the same handle), or an ERROR value
/// around the same error handle.
private func settledElement(_ input: Core) -> VowValue {
    input.isRejected ? VowValue(.error(input.cError)) : input.cValue
}

@inline(__always)
func vow_race(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int, at site: Site) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_race") else { return nil }
    return Core.race(inputs, emptyError: VowError(.empty, "race over no promises"))
        .made(at: site).retainedHandle
}

/// Swift's `any` over the same engine race, fulfilment only.
@inline(__always)
func vow_any(_ ps: UnsafePointer<OpaquePointer?>?, _ n: Int, at site: Site) -> OpaquePointer? {
    guard let inputs = cores(ps, n, in: "vow_any") else { return nil }
    return Core.race(inputs, fulfilmentOnly: true, emptyError: VowError(.empty, "vow_any over no promises"))
        .made(at: site).retainedHandle
}

@inline(__always)
func vow_after(_ seconds: Double, at site: Site) -> OpaquePointer? {
    Core.after(seconds: cSeconds(seconds, in: "vow_after"), value: VowValue.sharedNull, on: DefaultDispatcher.shared)
        .made(at: site).retainedHandle
}

@inline(__always)
func vow_timeout(_ p: OpaquePointer?, _ seconds: Double, at site: Site) -> OpaquePointer? {
    guard let core = handle(p, as: Core.self, in: "vow_timeout") else { return nil }
    return core.timeout(seconds: cSeconds(seconds, in: "vow_timeout"), on: DefaultDispatcher.shared, at: site)
        .retainedHandle
}

@inline(__always)
func vow_dispatch(_ d: OpaquePointer?, _ fn: vow_on_value?, _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?,
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

// Bounded concurrency: `vow_when_limited`, `vow_join_limited` and their `_on` forms, over the
// engine's `Core.limited`. The C `make(ctx, i)` is called by the engine's pump on the
// dispatcher; its `ctx` lives in a `CCallback` that the engine lets go (running `destroy`)
// once no call to `make` can come any more.

@inline(__always)
func vow_when_limited(_ n: Int, _ limit: Int, _ make: vow_limited_make?, _ ctx: UnsafeMutableRawPointer?,
                      _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cLimited(.plain, n, limit, make, ctx, destroy, mode: .all, in: "vow_when_limited", at: site)
}

@inline(__always)
func vow_join_limited(_ n: Int, _ limit: Int, _ make: vow_limited_make?, _ ctx: UnsafeMutableRawPointer?,
                      _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cLimited(.plain, n, limit, make, ctx, destroy, mode: .allSettled, in: "vow_join_limited", at: site)
}

@inline(__always)
func vow_when_limited_on(_ d: OpaquePointer?, _ n: Int, _ limit: Int, _ make: vow_limited_make?,
                         _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cLimited(.on(d), n, limit, make, ctx, destroy, mode: .all, in: "vow_when_limited_on", at: site)
}

@inline(__always)
func vow_join_limited_on(_ d: OpaquePointer?, _ n: Int, _ limit: Int, _ make: vow_limited_make?,
                         _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cLimited(.on(d), n, limit, make, ctx, destroy, mode: .allSettled, in: "vow_join_limited_on", at: site)
}

/// The four bounded entry points. `n` and `limit` arrive as `Int` (C's `size_t`): a count
/// with the top bit set is misuse; a limit with the top bit set is simply more than any
/// count. The result is a LIST in input order: each input's value (the same handle) for
/// `vow_when_limited`, and an ERROR value around the same error handle for each rejection
/// of `vow_join_limited`.
@inline(__always)
private func cLimited(_ d: CDispatcherArgument, _ n: Int, _ limit: Int, _ make: vow_limited_make?,
                      _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, mode: Core.LimitedMode,
                      in function: StaticString, at site: Site) -> OpaquePointer? {
    guard let dispatcher = d.dispatcher(in: function), let make,
          validCount(n, stride: 1, base: nil, in: function), validLimit(limit, in: function) else {
        var context = CContext(ctx, destroy)
        context.destroyNow()
        return nil
    }
    let callback = CCallback(ctx: ctx, destroy: destroy)
    let element: @Sendable (Core) -> VowValue
    switch mode {
    case .all: element = { $0.cValue }
    case .allSettled: element = settledElement
    }
    return Core.limited(count: n, limit: limit < 0 ? Int.max : limit, mode: mode, on: dispatcher,
                        make: { index in
        let made = make(callback.ctx, index)
        guard let core = handle(made, as: Core.self, in: function) else {
            throw VowError(.type, "\(function): make returned NULL or not a vow_promise for index \(index)")
        }
        releaseHandle(made, .promise, in: function)
        return core
    }, element: element, gather: { values in
        StoredValue(VowValue(.list(values)))
    }, indexing: mode == .all ? naming : nil).made(at: site).retainedHandle
}

/// What `vow_when_limited` rejects with when input `index` rejected with `error`: an error
/// of the same domain, code and payload whose message names the input ("input 3: " and the
/// message), so a program that prints it learns which input failed (vow.h, vow_when_limited).
@Sendable
private func naming(_ index: Int, _ error: any Error) -> any Error {
    let box = VowErrorBox.boxing(error)
    return VowErrorBox(domain: box.domain, code: box.code, message: "input \(index): \(box.message)", payload: box.payload)
}

/// Whether `limit` lets anything run: 0 is misuse (a line names `function`).
private func validLimit(_ limit: Int, in function: StaticString) -> Bool {
    guard limit == 0 else { return true }
    writeDiagnostic("vow: \(function): limit is 0 (at least one promise must be allowed to run)")
    return false
}
