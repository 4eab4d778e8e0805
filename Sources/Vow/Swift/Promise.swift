/// A typed promise: a value of type `T` that will exist later, or the error that
/// prevented it.
///
/// `Promise<T>` is a small struct over the shared engine object; copies refer to the
/// same promise, and `AnyPromise(promise)` and C's `vow_promise *` are views of it too.
/// Callbacks run on a `Dispatcher` (default: the library's serial queue, never the main
/// queue), never inline in the call that settles the promise or registers them (unless
/// you pass `.inline`), never under a library lock. Handlers registered on one promise
/// run in registration order.
public struct Promise<T>: Thenable {
    @usableFromInline
    let core: Core

    @usableFromInline
    init(core: Core) { self.core = core }

    /// Makes a promise and runs `body` with its resolver, at once, on this thread.
    /// A throw from `body` rejects the promise (unless `body` settled it already).
    public init(_ body: (Resolver<T>) throws -> Void) {
        let resolver = Resolver<T>(core: Core())
        core = resolver.core
        do {
            try body(resolver)
        } catch {
            resolver.reject(error)
        }
    }

    /// A promise already fulfilled with `value`.
    public static func value(_ value: T) -> Promise<T> {
        Promise(core: Core(fulfilled: value))
    }

    /// A promise already rejected with `error`.
    public init(error: any Error) {
        core = Core(rejected: error)
    }

    /// A pending promise and the resolver that settles it. If the resolver is released
    /// without settling, the promise is rejected with `VowError.Code.broken`.
    public static func pending() -> (promise: Promise<T>, resolver: Resolver<T>) {
        let resolver = Resolver<T>(core: Core())
        return (Promise(core: resolver.core), resolver)
    }

    // MARK: Observing (thread-safe snapshots)

    public var isPending: Bool { core.isPending }

    public var isFulfilled: Bool { core.isFulfilled }

    public var isRejected: Bool { core.isRejected }

    /// The outcome, or nil while pending. Reading it does not count as handling a rejection.
    public var result: Result<T, any Error>? {
        switch core.snapshot {
        case .pending: return nil
        case .fulfilled(let value): return castValue(value, to: T.self)
        case .rejected(let error): return .failure(unboxError(error))
        }
    }

    /// The error, or nil unless rejected. Reading it does not count as handling it.
    public var error: (any Error)? { core.rejectionForSwift }

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
    public func wait() throws -> T {
        if core.wouldDeadlock() { throw Core.deadlockError }
        let outcome = core.waitForOutcome(timeout: nil)!
        core.markHandled()
        switch outcome {
        case .fulfilled(let value): return try castValue(value, to: T.self).get()
        case .rejected(let error): throw unboxError(error)
        }
    }

    // MARK: Cancelling

    /// Cancels the promise: if it is pending it is rejected at once with the cancellation
    /// error (its `finally` handlers run), its own value/error callbacks are dropped, and
    /// the request travels upstream to every promise it waits on that no other promise
    /// still needs. The producer's `Resolver.onCancel` handlers run. No effect once settled.
    public func cancel() {
        core.cancel()
    }

    // MARK: Thenable

    /// The seed two-callback `then`. `onSuccess` runs on the default dispatcher with the
    /// value; if it throws and `onFailure` is non-nil, `onFailure` gets the error; a
    /// rejection goes to `onFailure` (as the original reason). An error that reaches no
    /// callback (a rejection or throw with `onFailure` nil) is reported to
    /// `Vow.unhandledErrorHandler`. `onFailure` receives cancellations too.
    public func then(_ onSuccess: ((T) throws -> ())?, _ onFailure: ((Any?) -> ())?) {
        core.seedThen(presenting: { try castValue($0, to: T.self).get() }, onSuccess, onFailure)
    }
}

extension Promise: Sendable where T: Sendable {}

extension Promise: Resolvable {
    var resolution: Resolution { .adopt(core) }
}

/// Wraps a value that Swift cannot prove `Sendable`, where the library guarantees it is
/// used safely (each use site says why).
struct UncheckedSendable<Value>: @unchecked Sendable {
    // @unchecked: see the use site; the value is handed over, not shared.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The typed view of an untyped value: a checked cast, never a crash. A value of another
/// type rejects with `VowError.Code.type`, naming what was expected and found.
@inlinable
func castValue<T>(_ value: Any, to type: T.Type) -> Result<T, any Error> {
    if let typed = value as? T { return .success(typed) }
    return Bridging.unbox(value, as: type)
}
