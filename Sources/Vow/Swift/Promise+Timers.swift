/// Fulfils with `()` after `seconds` on `dispatcher`'s clock (`Dispatcher.scheduleTimer`;
/// `.default`: the dispatcher `.default` stands for here, now, which is Dispatch's real
/// clock unless it is a loop with timers of its own, such as an installed `TestLoop`).
/// Cancelling it stops the timer; a dispatcher that goes away before it fired (a test loop
/// released) cancels it.
///
/// The time rule of every call that takes seconds: zero, negative and -infinity mean now
/// (it fulfils without waiting); +infinity means never; NaN is a caller's mistake and
/// means now, so nothing hangs on it.
public func after(seconds: Double, on dispatcher: any Dispatcher = .default,
                  file: StaticString = #fileID, line: UInt = #line) -> Promise<Void> {
    Promise(core: Core.after(seconds: seconds, value: (), on: dispatcher).made(at: .source(file, line)))
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

    /// Settles like this promise unless `seconds` pass first on `dispatcher`'s clock (as
    /// for `after(seconds:on:)`); then rejects with `VowError.Code.timeout` and cancels this
    /// promise (under the upstream rule).
    ///
    /// Zero, negative, -infinity and NaN (a caller's mistake): the time is up at once (a
    /// promise already settled still wins); +infinity: it never times out. Once the result
    /// settles the timer is stopped and keeps neither promise (nor the value) until its
    /// deadline.
    public func timeout(seconds: Double, on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
        Promise(core: core.timeout(seconds: seconds, on: dispatcher, at: .source(file, line)))
    }
}

/// Calls `body` until its promise fulfils, at most `times` attempts in all, waiting
/// `delay` seconds between attempts. Rejects with the last error; a cancellation error is
/// not retried. Cancelling the returned promise cancels the current attempt and stops
/// further ones.
///
/// The first attempt runs at once, on the calling thread; later ones on the default
/// dispatcher (the one `.default` stands for at this call), whose clock times the pauses.
/// `delay` follows the time rule of `after(seconds:)`, except that +infinity means the
/// next attempt never comes: the first failure is final. An attempt that is the returned
/// promise itself, or a promise that leads back to it, fails with `VowError.Code.cycle` (it
/// would wait on itself).
public func retry<T: Sendable>(times: Int, delay: Double = 0, file: StaticString = #fileID, line: UInt = #line,
                               _ body: @escaping @Sendable () throws -> Promise<T>) -> Promise<T> {
    Promise(core: Core.retry(times: times, delay: delay, firstInline: true, shouldRetry: nil) {
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
    Promise(core: Core.retry(times: times, delay: delay, firstInline: true,
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
    /// The pause runs on `dispatcher`'s clock as it stands at this call (as for
    /// `after(seconds:on:)`), whichever thread this promise fulfils on. The time rule of
    /// `after(seconds:)`: zero, negative, -infinity and NaN (a caller's mistake) pass the
    /// value on without a pause; +infinity never passes it on.
    public func delay(seconds: Double, on dispatcher: any Dispatcher = .default,
                      file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
        Promise(core: core.delayed(seconds: seconds, on: dispatcher, at: .source(file, line)))
    }
}
