import CVow

// Waiting (vow.h, "Waiting").

@c @implementation
func vowface_wait(_ p: OpaquePointer?, _ timeout_seconds: Double,
                     _ value_out: UnsafeMutablePointer<OpaquePointer?>?,
                     _ error_out: UnsafeMutablePointer<OpaquePointer?>?) -> vow_state {
    value_out?.pointee = nil
    error_out?.pointee = nil
    guard let core = handle(p, as: Core.self, in: "vow_wait") else { return VOW_STATE_INVALID }
    if core.wouldDeadlock() {
        // Its own answer, so code that checks the state alone cannot take it for a
        // time-out and wait again forever.
        error_out?.pointee = VowErrorBox.boxing(EngineError.deadlock).retainedHandle
        return VOW_DEADLOCK
    }
    guard core.waitUntilSettled(timeout: waitLimit(timeout_seconds, in: "vow_wait")) else { return VOW_PENDING }
    if core.isRejected {
        core.markHandled()
        error_out?.pointee = core.cError.retainedHandle
        return VOW_REJECTED
    }
    value_out?.pointee = core.cValue.retainedHandle
    return VOW_FULFILLED
}

/// The limit of `vow_wait` (nil: none). The time rule of every C call (see `cSeconds`),
/// except that a negative timeout waits without limit, as the header has always said:
/// `vow_wait(p, -1, ...)` is how C programs wait for as long as it takes.
func waitLimit(_ seconds: Double, in function: StaticString) -> Double? {
    let seconds = cSeconds(seconds, in: function)
    return seconds < 0 || seconds == .infinity ? nil : seconds
}

/// A time in seconds handed to a C call: NaN is a caller's mistake, reported with one
/// misuse line on standard error (`vow: vow_after: NaN seconds (a caller's mistake),
/// treated as 0`) and read as 0, so nothing hangs on it. Other values pass unchanged, for
/// the engine's rule (zero, negative and -infinity: now; +infinity: never).
func cSeconds(_ seconds: Double, in function: StaticString) -> Double {
    guard seconds.isNaN else { return seconds }
    writeDiagnostic("vow: \(function): NaN seconds (a caller's mistake), treated as 0")
    return 0
}
