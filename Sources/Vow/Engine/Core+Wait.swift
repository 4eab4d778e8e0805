import Dispatch

extension Core {
    /// Blocks the calling thread until the promise settles or `timeout` (seconds; nil: no
    /// limit) runs out. Returns nil on time-out.
    ///
    /// Throws nothing; the caller checks `wouldDeadlock()` first.
    func waitForOutcome(timeout: Double?) -> Outcome? {
        switch snapshot {
        case .fulfilled(let value): return .fulfilled(value)
        case .rejected(let error): return .rejected(error)
        case .pending: break
        }
        let semaphore = DispatchSemaphore(value: 0)
        let slot = Locked<Outcome?>(nil)
        attach(Handler(dispatcher: InlineDispatcher.shared, dependent: nil, kind: .observer) { outcome in
            slot.withLock { $0 = outcome }
            semaphore.signal()
        })
        if let timeout {
            let nanoseconds = timeout > 1e9 ? UInt64.max / 2 : UInt64(max(0, timeout) * 1e9)
            if semaphore.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max))))) == .timedOut {
                return nil
            }
        } else {
            semaphore.wait()
        }
        return slot.withLock { $0 }
    }

    /// True when the calling thread runs a job of a serial dispatcher that settling this
    /// promise needs: a wait here could never end.
    func wouldDeadlock() -> Bool {
        guard let running = ThreadState.current.runningSerialDispatcher else { return false }
        return settlementNeeds(running)
    }

    static let deadlockError = VowError(.deadlock,
        "wait() was called on the serial dispatcher that must run the awaited promise's callbacks; it would never return")
}
