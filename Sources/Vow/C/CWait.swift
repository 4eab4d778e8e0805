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
        error_out?.pointee = VowErrorBox.boxing(Core.deadlockError).retainedHandle
        return VOW_PENDING
    }
    // NaN waits without limit, like any other negative-or-unordered timeout.
    let limit: Double? = timeout_seconds >= 0 ? timeout_seconds : nil
    guard let outcome = core.waitForOutcome(timeout: limit) else { return VOW_PENDING }
    switch outcome {
    case .fulfilled(let value):
        value_out?.pointee = VowValue.bridging(value).retainedHandle
        return VOW_FULFILLED
    case .rejected(let error):
        core.markHandled()
        error_out?.pointee = VowErrorBox.boxing(error).retainedHandle
        return VOW_REJECTED
    }
}
