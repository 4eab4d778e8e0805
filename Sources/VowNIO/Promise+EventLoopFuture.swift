#if NIO
import NIOCore
import Vow

// Promises and futures, each way. Values and errors cross unchanged: a future that fails
// with `error` gives a promise rejected with that same `error`, and the other way round.

extension Promise where T: Sendable {
    /// A promise that settles as `future` completes: fulfilled with its value, or rejected
    /// with its error (the same error value).
    ///
    /// The promise is settled on the future's loop thread, when NIO runs the future's
    /// callbacks; the promise's own callbacks then run on the dispatchers they were
    /// registered with. The future keeps the promise's resolver until it completes.
    ///
    /// Cancelling the promise rejects it at once with `VowError.Code.cancelled` but cannot
    /// stop the work behind the future (NIO futures cannot be cancelled); the future's
    /// later result is then ignored.
    ///
    /// In debug mode the promise records the caller's `file` and `line`, as every API that
    /// makes a promise does.
    public init(_ future: EventLoopFuture<T>, file: StaticString = #fileID, line: UInt = #line) {
        let (promise, resolver) = Promise<T>.pending(file: file, line: line)
        future.whenComplete { result in resolver.resolve(result) }
        self = promise
    }

    /// A future on `loop` that completes as this promise settles: succeeds with its value,
    /// fails with its error (the same error value). If the promise is cancelled, the future
    /// fails with Vow's cancellation error (`VowError` with code `.cancelled`).
    ///
    /// The future takes the promise's outcome as a handler: a rejection that goes into the
    /// future counts as handled (like `catch(policy: .allErrors)`), so it is not reported to
    /// `VowRuntime.unhandledErrorHandler`; what the future's own callbacks do with it is NIO's
    /// business. The handler also means the promise is still wanted: cancelling other
    /// promises that depend on it does not cancel it (see cancellation in the Vow docs).
    ///
    /// The future completes on `loop`'s thread (NIO carries the result over when the promise
    /// settles on another thread; no extra Vow hop). `loop` must still be running when the
    /// promise settles: like any `EventLoopPromise`, the future cannot complete on a loop
    /// that has shut down (NIO then reports it). In debug mode the two handler links record
    /// the caller's `file` and `line`.
    public func futureResult(on loop: any EventLoop, file: StaticString = #fileID,
                             line: UInt = #line) -> EventLoopFuture<T> {
        let target = loop.makePromise(of: T.self)
        tap(on: .inline, file: file, line: line) { result in target.completeWith(result) }
            .catch(on: .inline, file: file, line: line, policy: .allErrors) { _ in }  // the error went into the future
        return target.futureResult
    }
}

extension EventLoopFuture where Value: Sendable {
    /// This future as a Vow promise: `Promise(self)`, for chaining
    /// (`channel.writeAndFlush(x).promise.then(on: …) { … }`). A property cannot see its
    /// caller's line: in debug mode this promise's site is this file's; `Promise(future)`
    /// records the caller's.
    public var promise: Promise<Value> {
        Promise(self)
    }
}
#endif
