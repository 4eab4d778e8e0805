// Retry: a promise settled by the first of up to `times` attempts that fulfils (Swift's
// `retry(times:delay:_:)`, C's `vow_retry`). The engine owns the protocol around the
// attempts (the count, the pauses, the stop when the result is cancelled, the
// cancellation error that is never retried), so each face is one call of `Core.retry`
// with its own way of making an attempt and of asking whether an error is worth another.

extension Core {
    /// A promise that settles like the first attempt that fulfils, or rejects with the last
    /// error once `times` attempts (at least one) failed, `delay` seconds apart (the time
    /// rule of `after`, except that +infinity makes the first failure final). A
    /// cancellation error is never retried, nor an error `shouldRetry` refuses (it is
    /// called on the default dispatcher). Cancelling the result cancels the running attempt
    /// and stops further ones.
    ///
    /// `make` makes an attempt (a throw fails it; so does the result itself, or a promise
    /// that leads back to it, with the cycle error); the first runs on the calling thread
    /// when `firstInline`, else on the default dispatcher, as every later one.
    package static func retry(times: Int, delay: Double, firstInline: Bool,
                              shouldRetry: (@Sendable (any Error) -> Bool)?,
                              make: @escaping @Sendable () throws -> Core) -> Core {
        RetryAttempt.start(times: times, delay: delay, firstInline: firstInline, shouldRetry: shouldRetry, make: make)
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
    private let result: RetryResult
    private var remaining: Int
    private var current: Core?
    private var stopped = false
    private let delay: Double
    private let dispatcher: any Dispatcher
    /// The clock of the pauses: the one `.default` had where the retry started.
    private let clock: any Dispatcher
    private let make: @Sendable () throws -> Core
    private let shouldRetry: (@Sendable (any Error) -> Bool)?

    private init(result: RetryResult, remaining: Int, delay: Double, shouldRetry: (@Sendable (any Error) -> Bool)?,
                 make: @escaping @Sendable () throws -> Core) {
        self.result = result
        self.remaining = remaining
        self.delay = delay
        self.dispatcher = Dispatchers.resolve(.default)
        self.clock = Dispatchers.clock(of: DefaultDispatcher.shared)
        self.shouldRetry = shouldRetry
        self.make = make
    }

    /// Starts a retry and returns its result (see `Core.retry`).
    static func start(times: Int, delay: Double, firstInline: Bool,
                      shouldRetry: (@Sendable (any Error) -> Bool)?,
                      make: @escaping @Sendable () throws -> Core) -> Core {
        let result = RetryResult()
        let attempt = RetryAttempt(result: result, remaining: max(1, times), delay: delay,
                                   shouldRetry: shouldRetry, make: make)
        result.attempt = attempt
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
        // The result itself, or a promise that leads back to it, would make the result wait
        // on itself: that attempt fails with the cycle error.
        if attempt === result || attempt.waits(on: result) {
            onDispatcher { self.failed(EngineError.cycle) }
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

    /// The attempt running, or the pause before the next one (the cycle check: see
    /// `RetryResult`).
    var running: [Core] {
        lock.withLock { current.map { [$0] } ?? [] }
    }

    /// An attempt failed with `error`: tries again (after the delay) or rejects.
    private func failed(_ error: any Error) {
        let left = lock.withLock { remaining > 0 && !stopped }
        let again = left && !isCancellation(error) && Timing.delaySeconds(delay) != nil
            && (shouldRetry?(error) ?? true)
        guard again else {
            result.reject(error)
            return
        }
        guard Timing.delaySeconds(delay) != 0 else {
            next()
            return
        }
        let wait = Core.after(seconds: delay, value: (), on: clock)
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

/// The result of a retry: it waits on the attempt running, which no word of it holds, so
/// it tells the cycle check (`Core.waits(on:)`) through `ProducerInputs`.
final class RetryResult: Core, ProducerInputs, @unchecked Sendable {
    // @unchecked: `attempt` is set once, before the result is handed out, and only read after.
    weak var attempt: RetryAttempt?

    override init() {
        super.init()
        word.store(Flags.hasProducerInputs.rawValue, ordering: .relaxed)
    }

    var inputsMade: [Core] {
        attempt?.running ?? []
    }
}
