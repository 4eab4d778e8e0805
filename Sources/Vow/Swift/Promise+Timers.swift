/// Fulfils with `()` after `seconds`. Cancelling it stops the timer.
///
/// The time rule of every call that takes seconds: zero, negative and -infinity mean now
/// (it fulfils without waiting); +infinity means never; NaN is a caller's mistake and
/// means now, so nothing hangs on it.
public func after(seconds: Double, file: StaticString = #fileID, line: UInt = #line) -> Promise<Void> {
    Promise(core: Core.after(seconds: seconds, value: ()).made(at: .source(file, line)))
}

extension Promise {
    /// Makes a promise of `work`'s result, run on `dispatcher` (default: the background
    /// pool). Cancelling the promise before `work` starts means it never starts; if the
    /// dispatcher drops the work, the promise is cancelled.
    @inlinable
    public init(on dispatcher: any Dispatcher = .background, file: StaticString = #fileID, line: UInt = #line,
                work: @escaping @Sendable () throws -> T) {
        // One link on a shared settled promise: it runs `work` on `dispatcher`, never if
        // cancelled first, and is cancelled if the dispatcher drops it.
        self.init(core: Core.settledVoid.linkOnSettled(on: dispatcher, WorkBody(work), at: .source(file, line)))
    }

    /// Settles like this promise unless `seconds` pass first; then rejects with
    /// `VowError.Code.timeout` and cancels this promise (under the upstream rule).
    ///
    /// Zero, negative, -infinity and NaN (a caller's mistake): the time is up at once (a
    /// promise already settled still wins); +infinity: it never times out.
    public func timeout(seconds: Double, file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
        Promise(core: core.timeout(seconds: seconds, at: .source(file, line)))
    }
}

/// Calls `body` until its promise fulfils, at most `times` attempts in all, waiting
/// `delay` seconds between attempts. Rejects with the last error; a cancellation error is
/// not retried. Cancelling the returned promise cancels the current attempt and stops
/// further ones.
///
/// The first attempt runs at once, on the calling thread; later ones on the default
/// dispatcher. `delay` follows the time rule of `after(seconds:)`, except that +infinity
/// means the next attempt never comes: the first failure is final.
public func retry<T: Sendable>(times: Int, delay: Double = 0, file: StaticString = #fileID, line: UInt = #line,
                               _ body: @escaping @Sendable () throws -> Promise<T>) -> Promise<T> {
    Promise(core: RetryAttempt.start(times: times, delay: delay, firstInline: true, shouldRetry: nil) {
        try body().core
    }.made(at: .source(file, line)))
}

/// Like `retry(times:delay:_:)`, but retries only the errors `shouldRetry` accepts: any
/// other error (and cancellation, always) settles the returned promise at once. Called
/// on the default dispatcher with each failed attempt's error.
public func retry<T: Sendable>(times: Int, delay: Double = 0,
                               file: StaticString = #fileID, line: UInt = #line,
                               if shouldRetry: @escaping @Sendable (any Error) -> Bool,
                               _ body: @escaping @Sendable () throws -> Promise<T>) -> Promise<T> {
    Promise(core: RetryAttempt.start(times: times, delay: delay, firstInline: true,
                                     shouldRetry: { shouldRetry(unboxError($0)) }) {
        try body().core
    }.made(at: .source(file, line)))
}

extension Promise {
    /// Settles like this promise, `seconds` after it fulfils (Hydra's `defer`): the value
    /// waits, a rejection passes on at once (an error is not worth waiting for).
    /// Cancelling the returned promise during the pause stops the timer; before this
    /// promise settles, it releases this promise as any link does.
    ///
    /// The time rule of `after(seconds:)`: zero, negative, -infinity and NaN (a caller's
    /// mistake) pass the value on without a pause; +infinity never passes it on.
    public func delay(seconds: Double, file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
        Promise(core: core.delayed(seconds: seconds, at: .source(file, line)))
    }
}

/// The state of one `retry` (Swift's and C's `vow_retry`): the attempts made so far, the
/// one running, whether the result was cancelled.
///
/// Threads: `start` runs the first attempt on the calling thread or the dispatcher; every
/// later step (the predicate, the next attempt) runs on the dispatcher; `stop` runs on the
/// default dispatcher when the result is cancelled. The counters are guarded by `lock`;
/// `make` and `shouldRetry` are called without it.
final class RetryAttempt: @unchecked Sendable {
    // @unchecked: `remaining`, `current` and `stopped` are guarded by `lock`.
    private let lock = VowLock()
    private let result: Core
    private var remaining: Int
    private var current: Core?
    private var stopped = false
    private let delay: Double
    /// The clock of the thread that started the retry: the pauses run on it.
    private let clock = TimerClock.current
    private let dispatcher: any Dispatcher
    private let make: @Sendable () throws -> Core
    private let shouldRetry: (@Sendable (any Error) -> Bool)?

    private init(result: Core, remaining: Int, delay: Double, shouldRetry: (@Sendable (any Error) -> Bool)?,
                 make: @escaping @Sendable () throws -> Core) {
        self.result = result
        self.remaining = remaining
        self.delay = delay
        self.dispatcher = Dispatchers.resolve(.default)
        self.shouldRetry = shouldRetry
        self.make = make
    }

    /// Starts a retry and returns its result. `firstInline`: the first attempt runs on
    /// the calling thread (else on the default dispatcher, as every later one).
    static func start(times: Int, delay: Double, firstInline: Bool,
                      shouldRetry: (@Sendable (any Error) -> Bool)?,
                      make: @escaping @Sendable () throws -> Core) -> Core {
        let result = Core()
        let attempt = RetryAttempt(result: result, remaining: max(1, times), delay: delay,
                                   shouldRetry: shouldRetry, make: make)
        result.onCancel { attempt.stop() }
        if firstInline {
            attempt.next()
        } else {
            attempt.onDispatcher { attempt.next() }
        }
        return result
    }

    private func stop() {
        let running = lock.withLock { () -> Core? in
            stopped = true
            return current
        }
        running?.cancel()
    }

    private func onDispatcher(_ body: @escaping @Sendable () -> Void) {
        submitContinuation(ClosureJob(body, onDrop: { [result] in result.cancel() }), to: dispatcher)
    }

    /// Makes the next attempt.
    private func next() {
        let go = lock.withLock { () -> Bool in
            guard !stopped else { return false }
            remaining -= 1
            return true
        }
        guard go else { return }
        let attempt: Core
        do {
            attempt = try make()
        } catch {
            onDispatcher { self.failed(error) }
            return
        }
        lock.withLock { current = attempt }
        attempt.attach(ClosureJob { [self] in
            if attempt.isRejected {
                onDispatcher { self.failed(attempt.error!) }
            } else {
                result.settle(like: attempt)
            }
        })
    }

    /// An attempt failed with `error`: tries again (after the delay) or rejects.
    private func failed(_ error: any Error) {
        let left = lock.withLock { remaining > 0 && !stopped }
        let again = left && !isCancellation(error) && Timing.delayNanoseconds(delay) != nil
            && (shouldRetry?(error) ?? true)
        guard again else {
            result.reject(error)
            return
        }
        guard Timing.delayNanoseconds(delay) != 0 else {
            next()
            return
        }
        let wait = Core.after(seconds: delay, value: (), clock: clock)
        lock.withLock { current = wait }
        wait.attach(ClosureJob { [self] in
            if wait.isFulfilled {
                onDispatcher { self.next() }
            } else {
                result.reject(error)
            }
        })
    }
}
