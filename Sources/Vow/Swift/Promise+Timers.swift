/// Fulfils with `()` after `seconds` (at once for zero, negative or NaN). Cancelling it
/// stops the timer.
public func after(seconds: Double, file: StaticString = #fileID, line: UInt = #line) -> Promise<Void> {
    Promise(core: Core.after(seconds: seconds, value: ()).made(at: .source(file, line)))
}

extension Promise {
    /// Makes a promise of `work`'s result, run on `dispatcher` (default: the background
    /// pool). Cancelling the promise before `work` starts means it never starts; if the
    /// dispatcher drops the work, the promise is cancelled.
    public init(on dispatcher: any Dispatcher = .background, file: StaticString = #fileID, line: UInt = #line,
                work: @escaping @Sendable () throws -> T) {
        let core = Core().made(at: .source(file, line))
        self.init(core: core)
        submitContinuation(ClosureJob({
            guard core.isPending else { return }
            core.settle { try work() }
        }, onDrop: { core.cancel() }), to: Dispatchers.resolve(dispatcher))
    }

    /// Settles like this promise unless `seconds` pass first; then rejects with
    /// `VowError.Code.timeout` and cancels this promise (under the upstream rule).
    public func timeout(seconds: Double, file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
        Promise(core: core.timeout(seconds: seconds).made(at: .source(file, line), from: core))
    }
}

/// Calls `body` until its promise fulfils, at most `times` attempts in all, waiting
/// `delay` seconds between attempts. Rejects with the last error; a cancellation error is
/// not retried. Cancelling the returned promise cancels the current attempt and stops
/// further ones.
public func retry<T: Sendable>(times: Int, delay: Double = 0, file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @Sendable () throws -> Promise<T>) -> Promise<T> {
    let result = Core().made(at: .source(file, line))
    let attempt = RetryAttempt<T>(result: result, remaining: max(1, times), delay: delay, body: body)
    result.onCancel { attempt.stop() }
    attempt.start()
    return Promise(core: result)
}

final class RetryAttempt<T: Sendable>: @unchecked Sendable {
    // @unchecked: `remaining`, `current` and `stopped` are guarded by `lock`.
    private let lock = VowLock()
    private let result: Core
    private var remaining: Int
    private var current: Core?
    private var stopped = false
    private let delay: Double
    private let body: @Sendable () throws -> Promise<T>

    init(result: Core, remaining: Int, delay: Double, body: @escaping @Sendable () throws -> Promise<T>) {
        self.result = result
        self.remaining = remaining
        self.delay = delay
        self.body = body
    }

    func stop() {
        let running = lock.withLock { () -> Core? in
            stopped = true
            return current
        }
        running?.cancel()
    }

    func start() {
        let go = lock.withLock { () -> Bool in
            guard !stopped else { return false }
            remaining -= 1
            return true
        }
        guard go else { return }
        let promise: Promise<T>
        do {
            promise = try body()
        } catch {
            attemptFailed(error)
            return
        }
        let attempt = promise.core
        lock.withLock { current = attempt }
        attempt.attach(ClosureJob { [self] in
            if let error = attempt.error {
                self.attemptFailed(error)
            } else {
                self.result.settle(like: attempt)
            }
        })
    }

    private func attemptFailed(_ error: any Error) {
        let again = lock.withLock { remaining > 0 && !stopped } && !isCancellation(error)
        guard again else {
            result.reject(error)
            return
        }
        if delay > 0 {
            let wait = after(seconds: delay).core
            lock.withLock { current = wait }
            wait.attach(ClosureJob { [self] in
                if wait.isFulfilled { self.start() } else { self.result.reject(error) }
            })
        } else {
            start()
        }
    }
}
