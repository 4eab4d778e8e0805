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

/// The outcome slot behind a `vow_result *`: lives on the stack of the job that runs the
/// callback, valid only during the call. `vow_result_return` / `_adopt` / `_throw` fill it
/// (the value, promise or error retained; setting again releases the earlier one).
struct VowResultSlot {
    enum Outcome {
        case unset
        case returned(VowValue)
        /// `vow_result_adopt`: the promise to follow, held without a PROMISE value around
        /// it (what `vow_result_return` of such a value does, one object less).
        case adopted(Core)
        case threw(VowErrorBox)
    }

    /// Marks a live slot, so a stray pointer passed as `vow_result *` is refused. The first
    /// field: `from(_:in:)` reads it at offset 0 (a test checks the layout).
    var magic: UInt64 = VowResultSlot.liveMagic
    var outcome: Outcome = .unset

    static var liveMagic: UInt64 { 0x746c_7573_2d77_6f76 }  // "vow-sult"

    /// Marks the slot dead once its callback returned, so that an `out` kept past the
    /// callback is refused (a misuse line) instead of written into a stack frame that is
    /// gone. Out of line and unoptimized on purpose: the slot is a local that dies right
    /// after, so an inlined store was deleted as dead by the optimizer (release builds
    /// accepted a stale `out` before, tests/C/test_result_adopt.c checks it).
    @inline(never) @_optimize(none)
    static func retire(_ slot: UnsafeMutablePointer<VowResultSlot>) {
        slot.pointee.magic = 0
    }

    /// The slot behind `out`, or nil (with a diagnostic) if `out` is not a live slot.
    static func from(_ out: OpaquePointer?, in function: StaticString) -> UnsafeMutablePointer<VowResultSlot>? {
        guard let out else { return nil }
        let raw = UnsafeMutableRawPointer(out)
        guard raw.load(as: UInt64.self) == liveMagic else {
            writeDiagnostic("vow: \(function): expected the vow_result of a running callback")
            return nil
        }
        return raw.assumingMemoryBound(to: VowResultSlot.self)
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

/// Calls a value callback with a fresh slot and returns what it left there.
@inline(__always)
func callValueCallback(_ function: vow_on_value, _ ctx: UnsafeMutableRawPointer?,
                       _ value: VowValue?) -> VowResultSlot.Outcome {
    var slot = VowResultSlot()
    withUnsafeMutablePointer(to: &slot) { pointer in
        withExtendedLifetime(value) {
            function(ctx, value?.borrowedHandle, OpaquePointer(pointer))
        }
        VowResultSlot.retire(pointer)
    }
    return slot.outcome
}

/// Calls an error callback with a fresh slot and returns what it left there.
@inline(__always)
func callErrorCallback(_ function: vow_on_error, _ ctx: UnsafeMutableRawPointer?,
                       _ error: VowErrorBox) -> VowResultSlot.Outcome {
    var slot = VowResultSlot()
    withUnsafeMutablePointer(to: &slot) { pointer in
        withExtendedLifetime(error) {
            function(ctx, error.borrowedHandle, OpaquePointer(pointer))
        }
        VowResultSlot.retire(pointer)
    }
    return slot.outcome
}
