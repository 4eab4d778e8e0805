/// A typed promise: a value of type `T` that will exist later, or the error that
/// prevented it.
///
/// `Promise<T>` is a small struct over the engine's promise object; copies refer to the
/// same promise, and `AnyPromise(promise)` and C's `vow_promise *` are views of it too.
/// Callbacks run on a `Dispatcher` (default: the library's serial queue, never the main
/// queue), never inline in the call that settles the promise or registers them (unless
/// you pass `.inline`), never under a library lock. Handlers registered on one promise
/// run in registration order.
///
/// `T` is `Sendable`: a promise's value is handed from the thread that settles it to every
/// callback registered on it, which may run on different dispatchers at once, so every
/// value crosses threads (see the article on ownership and threads).
public struct Promise<T: Sendable>: Thenable, Sendable {
    @usableFromInline
    let core: Core

    @usableFromInline
    init(core: Core) { self.core = core }

    /// Makes a promise and runs `body` with its resolver, at once, on this thread.
    /// A throw from `body` rejects the promise (unless `body` settled it already).
    public init(file: StaticString = #fileID, line: UInt = #line, _ body: (Resolver<T>) throws -> Void) {
        let resolver = Resolver<T>(core: Core().made(at: .source(file, line)))
        core = resolver.core
        do {
            try body(resolver)
        } catch {
            resolver.reject(error)
        }
    }

    /// A promise already fulfilled with `value`.
    @inlinable
    public static func value(_ value: T, file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
        Promise(core: Core(fulfilled: value).made(at: .source(file, line)))
    }

    /// A promise already rejected with `error`.
    public init(error: any Error, file: StaticString = #fileID, line: UInt = #line) {
        core = Core(rejected: error).made(at: .source(file, line))
    }

    /// A pending promise and the resolver that settles it. If the resolver is released
    /// without settling, the promise is rejected with `VowError.Code.broken`.
    @inlinable
    public static func pending(file: StaticString = #fileID, line: UInt = #line) -> (promise: Promise<T>, resolver: Resolver<T>) {
        let resolver = Resolver<T>(core: Core().made(at: .source(file, line)))
        return (Promise(core: resolver.core), resolver)
    }

    // MARK: Observing (thread-safe snapshots)

    /// True while the promise is not settled (a snapshot: another thread may settle it).
    public var isPending: Bool { core.isPending }

    /// True once the promise is fulfilled with a value.
    public var isFulfilled: Bool { core.isFulfilled }

    /// True once the promise is rejected (cancellation included).
    public var isRejected: Bool { core.isRejected }

    /// The outcome, or nil while pending. Reading it does not count as handling a rejection.
    public var result: Result<T, any Error>? {
        if core.isPending { return nil }
        if let error = core.error { return .failure(unboxError(error)) }
        return Result { try core.typedValue(T.self) }
    }

    /// The error, or nil unless rejected. Reading it does not count as handling it.
    public var error: (any Error)? { core.error.map(unboxError) }

    /// True if this promise was settled by `cancel()` (or by cancellation travelling
    /// upstream to it).
    public var isCancelled: Bool { core.wasCancelled }

    // MARK: Waiting

    /// Blocks the calling thread until the promise settles, then returns its value or
    /// throws its error (which counts as handling it).
    ///
    /// Never hangs silently: called from a job of a serial dispatcher that the awaited
    /// chain needs (say inside a callback on the default dispatcher, waiting on a promise
    /// whose callback is queued there), it throws `VowError.Code.deadlock` at once.
    @available(*, noasync, message: "wait() blocks its thread; in async code use 'try await promise.value'")
    public func wait() throws -> T {
        try core.waitForSwift()
        return try core.typedValue(T.self)
    }

    // MARK: Cancelling

    /// Cancels the promise: if it is pending it is rejected at once with the cancellation
    /// error (its `finally` handlers run), its own value/error callbacks are dropped, and
    /// the request travels upstream to every promise it waits on that no other promise
    /// still needs. The producer's `Resolver.onCancel` handlers run. A body already running
    /// runs to its end, and the promise it returns is cancelled under the same rule. No
    /// effect once settled.
    public func cancel() {
        core.cancel()
    }

    // MARK: Thenable

    /// The seed two-callback `then`. `onSuccess` runs on the default dispatcher with the
    /// value; if it throws and `onFailure` is non-nil, `onFailure` gets the error; a
    /// rejection goes to `onFailure` (as the original reason). An error that reaches no
    /// callback (a rejection or throw with `onFailure` nil) is reported to
    /// `VowRuntime.unhandledErrorHandler`. `onFailure` receives cancellations too.
    public func then(_ onSuccess: (@Sendable (T) throws -> ())?, _ onFailure: (@Sendable (Any?) -> ())?) {
        _ = core.link(on: .default, SeedThenBody(onSuccess: onSuccess, onFailure: onFailure) { source in
            try source.typedValue(T.self)
        })
    }
}

extension Promise: Resolvable {
    package var resolution: Resolution { .adopt(core) }
}

/// Wraps a value that Swift cannot prove `Sendable`, where the library guarantees it is
/// used safely (each use site says why).
struct UncheckedSendable<Value>: @unchecked Sendable {
    // @unchecked: see the use site; the value is handed over, not shared.
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Core {
    /// The value as a `T`: read directly when the promise holds a `T` (a typed promise
    /// always does), else converted (C values, untyped values; see `Bridging`). Throws
    /// the type error for a value of another type. The promise is fulfilled.
    @inlinable
    func typedValue<T>(_ type: T.Type) throws -> T {
        if holds(T.self) { return load(T.self) }
        return try Bridging.convertedValue(of: self, to: T.self)
    }

    /// Waits for the promise (Swift's `wait()`): throws the deadlock error where the wait
    /// could never end, the promise's error if it rejects (which counts as handling it).
    func waitForSwift() throws {
        if wouldDeadlock() { throw VowError(EngineError.deadlock) }
        _ = waitUntilSettled(timeout: nil)
        if let error {
            markHandled()
            throw unboxError(error)
        }
    }
}
