import CVow

/// A C callback: its function pointers, its `ctx`, and the `destroy` that runs exactly
/// once, in `deinit`.
///
/// The engine's handler closure captures the callback, so `destroy` runs when the handler
/// is released: after the callback ran (the job that ran it is dropped), when the derived
/// promise is cancelled (the engine removes its value/error handlers then), when the source
/// is freed unsettled, or when a dispatcher drops the job. A registration that fails drops
/// its only reference before returning, so `destroy` runs inside the failing call.
final class CCallback: @unchecked Sendable {
    // @unchecked: `ctx` is the C caller's; the header makes it their promise that `ctx` may
    // be used on the dispatcher's thread and destroyed on any thread. Everything here is
    // immutable.
    let ctx: UnsafeMutableRawPointer?
    private let destroy: CDestroy?
    let onValue: vow_on_value?
    let onError: vow_on_error?
    /// A plain `fn(ctx)` (finally, cancel handlers).
    let plain: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

    init(ctx: UnsafeMutableRawPointer?, destroy: CDestroy?, onValue: vow_on_value? = nil,
         onError: vow_on_error? = nil, plain: (@convention(c) (UnsafeMutableRawPointer?) -> Void)? = nil) {
        self.ctx = ctx
        self.destroy = destroy
        self.onValue = onValue
        self.onError = onError
        self.plain = plain
    }

    deinit { destroy?(ctx) }
}

/// The outcome slot behind a `vow_result *`: lives on the stack of the job that runs the
/// callback, valid only during the call. `vow_result_return` / `_throw` fill it (the value
/// or error retained; setting again releases the earlier one).
struct VowResultSlot {
    enum Outcome {
        case unset
        case returned(VowValue)
        case threw(VowErrorBox)
    }

    /// Marks a live slot, so a stray pointer passed as `vow_result *` is refused.
    var magic: UInt64 = VowResultSlot.liveMagic
    var outcome: Outcome = .unset

    static let liveMagic: UInt64 = 0x746c_7573_2d77_6f76  // "vow-sult"
    static let magicOffset = MemoryLayout<VowResultSlot>.offset(of: \.magic)!

    /// The slot behind `out`, or nil (with a diagnostic) if `out` is not a live slot.
    static func from(_ out: OpaquePointer?, in function: StaticString) -> UnsafeMutablePointer<VowResultSlot>? {
        guard let out else { return nil }
        let raw = UnsafeMutableRawPointer(out)
        guard raw.load(fromByteOffset: magicOffset, as: UInt64.self) == liveMagic else {
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
        case .unset: settle(.fulfilled(VowValue.sharedNull))
        case .returned(let value): resolve(value, as: value.resolution)
        case .threw(let error): settle(.rejected(error))
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
        pointer.pointee.magic = 0
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
        pointer.pointee.magic = 0
    }
    return slot.outcome
}
