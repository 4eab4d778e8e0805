import CVow

// Waiting (vow.h, "Waiting").

@c @implementation
public func vow_wait(_ p: OpaquePointer?, _ timeout_seconds: Double,
                     _ value_out: UnsafeMutablePointer<OpaquePointer?>?,
                     _ error_out: UnsafeMutablePointer<OpaquePointer?>?) -> vow_state {
    value_out?.pointee = nil
    error_out?.pointee = nil
    guard let core = promiseHandle(p, in: "vow_wait") else { return VOW_STATE_INVALID }
    if core.wouldDeadlock() {
        // Its own answer, so code that checks the state alone cannot take it for a
        // time-out and wait again forever.
        error_out?.pointee = VowErrorBox.boxing(EngineError.deadlock).retainedHandle
        return VOW_DEADLOCK
    }
    // NaN waits without limit, like any other negative-or-unordered timeout.
    let limit: Double? = timeout_seconds >= 0 ? timeout_seconds : nil
    guard core.waitUntilSettled(timeout: limit) else { return VOW_PENDING }
    if core.isRejected {
        core.markHandled()
        error_out?.pointee = core.cError.retainedHandle
        return VOW_REJECTED
    }
    value_out?.pointee = core.cValue.retainedHandle
    return VOW_FULFILLED
}
