import CVow

// The C callbacks of links (vow_then, vow_catch, vow_finally, vow_dispatch): the function
// pointers, `ctx` and `destroy` live inside the link object itself (no object of their
// own). The engine disposes a body exactly once: after the callback ran, or as soon as it
// is certain it never will (the link was cancelled, a dispatcher dropped it, it was
// freed); `dispose` runs `destroy(ctx)` then.

/// A C callback of a link: value and error callbacks (either may be NULL: the outcome
/// passes through). `Policy` says what the entry point asked for (a catch skips
/// cancellation, `vow_dispatch` passes no value), at the type level, so the body is four
/// words: the link stays in a 112-byte block.
struct CLinkBody<Policy: CLinkPolicy>: LinkBody, @unchecked Sendable {
    // @unchecked: `ctx` is the C caller's; the header makes it their promise that `ctx` may
    // be used on the dispatcher's thread and destroyed on any thread.
    let onValue: vow_on_value?
    let onError: vow_on_error?
    var context: CContext

    init(onValue: vow_on_value?, onError: vow_on_error?, _ context: consuming CContext) {
        self.onValue = onValue
        self.onError = onError
        self.context = context
    }

    func run(from source: Core?, settling link: Core) {
        guard let source else { return }
        if source.isRejected {
            guard let onError, !(Policy.skipsCancellation && isCancellation(source.error!)) else {
                link.settle(like: source)
                return
            }
            link.settle(from: callErrorCallback(onError, context.ctx, source.cError))
        } else {
            guard let onValue else {
                link.settle(like: source)
                return
            }
            let outcome = Policy.passesNoValue
                ? callValueCallback(onValue, context.ctx, nil)
                : source.withCValue { callValueCallback(onValue, context.ctx, $0) }
            link.settle(from: outcome)
        }
    }

    mutating func dispose() { context.destroyNow() }
}

/// What a C entry point asked of its callback (see `CLinkBody`).
protocol CLinkPolicy {
    /// A cancellation passes through without running the error callback (`vow_catch`).
    static var skipsCancellation: Bool { get }
    /// The value callback gets NULL instead of a value (`vow_dispatch`).
    static var passesNoValue: Bool { get }
}

/// `vow_then`, `vow_catch_policy(VOW_CATCH_ALL_ERRORS)`: every outcome reaches the callbacks.
enum AllOutcomes: CLinkPolicy {
    static var skipsCancellation: Bool { false }
    static var passesNoValue: Bool { false }
}

/// `vow_catch`: cancellation passes through unseen.
enum SkipsCancellation: CLinkPolicy {
    static var skipsCancellation: Bool { true }
    static var passesNoValue: Bool { false }
}

/// `vow_dispatch`: the callback runs with NULL for a value.
enum NoValue: CLinkPolicy {
    static var skipsCancellation: Bool { false }
    static var passesNoValue: Bool { true }
}

/// A C `finally` callback: `fn(ctx)` whatever happened, then the link settles like the
/// source.
struct CFinallyBody: LinkBody, @unchecked Sendable {
    // @unchecked: see `CLinkBody`.
    let fn: CDestroy
    var context: CContext

    init(_ fn: CDestroy, _ context: consuming CContext) {
        self.fn = fn
        self.context = context
    }

    static var isCleanup: Bool { true }

    func run(from source: Core?, settling link: Core) {
        fn(context.ctx)
        if let source { link.settle(like: source) }
    }

    mutating func dispose() { context.destroyNow() }
}

/// The outcome of a C callback, behind its `vow_result *out`: `vow_result_return` /
/// `_adopt` / `_throw` fill it (the value, promise or error retained; setting again
/// releases the earlier one).
///
/// `out` is not an address but a token that names one call of one callback; the thread
/// running the callback knows which token is its innermost callback's and where that
/// call's outcome lives (on the stack of the job that runs it). See
/// `Sources/CVow/include/vow_result_tokens.h` (`vowresult_call_value` calls the
/// callback): an `out` kept past its callback, used inside another callback, or used
/// from another thread is refused, and the check reads nothing but the calling thread's
/// own record.
enum VowResultSlot {
    enum Outcome {
        case unset
        case returned(VowValue)
        /// `vow_result_adopt`: the promise to follow, held without a PROMISE value around
        /// it (what `vow_result_return` of such a value does, one object less).
        case adopted(Core)
        case threw(VowErrorBox)
    }

    /// The outcome behind `out`, or nil (with a diagnostic) if `out` is not the token of
    /// the callback running innermost on this thread. NULL returns nil silently.
    @inline(__always)
    static func from(_ out: OpaquePointer?, in function: StaticString) -> UnsafeMutablePointer<Outcome>? {
        guard let out else { return nil }
        guard let outcome = vowresult_outcome(UnsafeRawPointer(out)) else {
            reportStale(in: function)
            return nil
        }
        return outcome.assumingMemoryBound(to: Outcome.self)
    }

    @inline(never)
    private static func reportStale(in function: StaticString) {
        writeDiagnostic("vow: \(function): expected the vow_result of a running callback")
    }
}

extension Core {
    /// Settles this (derived) promise from what a C callback left in its slot: nothing is
    /// the NULL value, a returned value runs the resolution procedure, a thrown error
    /// rejects.
    func settle(from slot: VowResultSlot.Outcome) {
        switch slot {
        case .unset: fulfil(VowValue.sharedNull)
        case .returned(let value):
            if value.needsProcedure {
                resolve(value, as: value.resolution)
            } else if value.reaches(self) {
                // A LIST (or ERROR) that holds this very promise: a cycle never freed.
                reject(EngineError.cycle)
            } else {
                fulfil(value)
            }
        case .adopted(let source): follow(source)
        case .threw(let error): reject(error)
        }
    }
}

/// Calls a value callback with a fresh outcome and returns what it left there.
@inline(__always)
func callValueCallback(_ function: vow_on_value, _ ctx: UnsafeMutableRawPointer?,
                       _ value: VowValue?) -> VowResultSlot.Outcome {
    var outcome = VowResultSlot.Outcome.unset
    withUnsafeMutablePointer(to: &outcome) { pointer in
        withExtendedLifetime(value) {
            vowresult_call_value(function, ctx, value?.borrowedHandle, pointer)
        }
    }
    return outcome
}

/// Calls an error callback with a fresh outcome and returns what it left there.
@inline(__always)
func callErrorCallback(_ function: vow_on_error, _ ctx: UnsafeMutableRawPointer?,
                       _ error: VowErrorBox) -> VowResultSlot.Outcome {
    var outcome = VowResultSlot.Outcome.unset
    withUnsafeMutablePointer(to: &outcome) { pointer in
        withExtendedLifetime(error) {
            vowresult_call_error(function, ctx, error.borrowedHandle, pointer)
        }
    }
    return outcome
}
