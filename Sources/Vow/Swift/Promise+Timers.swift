import Dispatch

/// A one-shot timer on a global queue, cancellable.
final class OneShotTimer: @unchecked Sendable {
    // @unchecked: DispatchWorkItem is thread-safe; `item` is set once in init.
    private let item: DispatchWorkItem

    init(seconds: Double, _ body: @escaping @Sendable () -> Void) {
        item = DispatchWorkItem(block: body)
        // NaN and non-positive delays fire at once; +infinity (and anything beyond about
        // 146 years) is capped, so it never fires in practice.
        let delay = seconds.isNaN || seconds <= 0 ? 0 : seconds
        let nanoseconds = min(delay * 1e9, Double(Int.max / 2))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: item)
    }

    func cancel() { item.cancel() }
}

/// Fulfils with `()` after `seconds` (at once for zero, negative or NaN). Cancelling it
/// stops the timer.
public func after(seconds: Double) -> Promise<Void> {
    let core = Core()
    let timer = OneShotTimer(seconds: seconds) { core.settle(.fulfilled(())) }
    core.onCancel { timer.cancel() }
    return Promise(core: core)
}

extension Core {
    /// Settles like `self` unless `seconds` pass first; then rejects with
    /// `VowError.Code.timeout` and releases `self` (cancelling it unless something else
    /// still waits on it).
    func timeout(seconds: Double) -> Core {
        let result = Core(dependingOn: self, settledOn: InlineDispatcher.shared)
        let timer = OneShotTimer(seconds: seconds) { [self] in
            if result.settle(.rejected(VowError(.timeout, "timed out after \(seconds) s"))) {
                result.releaseUpstreams([self])
            }
        }
        result.onCancel { timer.cancel() }
        attach(Handler(dispatcher: InlineDispatcher.shared, dependent: result, kind: .link) { outcome in
            if result.settle(outcome) { timer.cancel() }
        })
        return result
    }
}

extension Promise {
    /// Makes a promise of `work`'s result, run on `dispatcher` (default: the background
    /// pool). Cancelling the promise before `work` starts means it never starts.
    public init(on dispatcher: any Dispatcher = .background, work: @escaping @Sendable () throws -> T) {
        let core = Core()
        self.init(core: core)
        // If the dispatcher drops the job, the promise is cancelled (JobGuard).
        submitJob(Job(body: { _ in
            guard core.isPending else { return }
            core.settle { try work() }
        }, outcome: .fulfilled(()), dependent: core), to: resolved(dispatcher))
    }

    /// Settles like this promise unless `seconds` pass first; then rejects with
    /// `VowError.Code.timeout` and cancels this promise (under the upstream rule).
    public func timeout(seconds: Double) -> Promise<T> {
        Promise(core: core.timeout(seconds: seconds))
    }
}

/// Calls `body` until its promise fulfils, at most `times` attempts in all, waiting
/// `delay` seconds between attempts. Rejects with the last error; a cancellation error is
/// not retried. Cancelling the returned promise cancels the current attempt and stops
/// further ones.
public func retry<T>(times: Int, delay: Double = 0,
                     _ body: @escaping @Sendable () throws -> Promise<T>) -> Promise<T> {
    let result = Core()
    let attempt = RetryAttempt<T>(result: result, remaining: max(1, times), delay: delay, body: body)
    result.onCancel { attempt.stop() }
    attempt.start()
    return Promise(core: result)
}

final class RetryAttempt<T>: @unchecked Sendable {
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
        lock.withLock { current = promise.core }
        promise.core.attach(Handler(dispatcher: InlineDispatcher.shared, dependent: nil, kind: .observer) { [self] outcome in
            switch outcome {
            case .fulfilled: self.result.settle(outcome)
            case .rejected(let error): self.attemptFailed(error)
            }
        })
    }

    private func attemptFailed(_ error: any Error) {
        let again = lock.withLock { remaining > 0 && !stopped } && !isCancellation(error)
        guard again else {
            result.settle(.rejected(error))
            return
        }
        if delay > 0 {
            let wait = after(seconds: delay)
            lock.withLock { current = wait.core }
            wait.core.attach(Handler(dispatcher: InlineDispatcher.shared, dependent: nil, kind: .observer) { [self] outcome in
                if case .fulfilled = outcome { self.start() } else { self.result.settle(.rejected(error)) }
            })
        } else {
            start()
        }
    }
}
