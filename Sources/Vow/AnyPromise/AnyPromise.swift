/// An untyped promise: the same object as C's `vow_promise *`.
///
/// `AnyPromise` is a small struct over the engine's promise object, like `Promise<T>`:
/// `AnyPromise(promise)` and `Promise<T>(anyPromise)` are views of one promise (the latter
/// through a converting link). Its value is untyped (`Any?`): a value that came from C is
/// shown as its Swift form (see `VowValue.swiftValue()`), `nil` for C's NULL.
///
/// Callbacks run on a `Dispatcher` (default: `VowRuntime.defaultDispatcher`), never inline in the
/// call that registers them or settles the promise (unless you pass `.inline`), never under
/// a library lock. All members may be used from any thread.
///
/// `Sendable`: the struct holds only the engine object, which is thread-safe; the values
/// it carries are immutable C values, thread-safe handles, or values the Swift side put in
/// (as for `Promise<T>`, where Swift checks `T`, an untyped promise cannot check them: send
/// only values that are safe to share).
public struct AnyPromise: Sendable {
    let core: Core

    init(core: Core) { self.core = core }

    /// A view of `promise`: the same promise, untyped.
    public init<T: Sendable>(_ promise: Promise<T>) {
        core = promise.core
    }

    /// A promise already fulfilled with `value` (`nil`: C's NULL value). The value is kept
    /// as it is and shown to C per the bridging table.
    public static func value(_ value: Any?, file: StaticString = #fileID, line: UInt = #line) -> AnyPromise {
        AnyPromise(core: Core(settledWith: VowValue.stored(value), rejected: false)
            .made(at: .source(file, line)))
    }

    /// A promise already rejected with `error`.
    public init(error: any Error, file: StaticString = #fileID, line: UInt = #line) {
        core = Core(rejected: error).made(at: .source(file, line))
    }

    /// A pending promise and the untyped resolver that settles it. If the resolver is
    /// released without settling, the promise is rejected with `VowError.Code.broken`.
    public static func pending(file: StaticString = #fileID, line: UInt = #line) -> (promise: AnyPromise, resolver: AnyResolver) {
        let core = Core().made(at: .source(file, line))
        return (AnyPromise(core: core), AnyResolver(core: core))
    }

    // MARK: Observing (thread-safe snapshots)

    /// True while the promise is not settled (a snapshot: another thread may settle it).
    public var isPending: Bool { core.isPending }

    /// True once the promise is fulfilled with a value.
    public var isFulfilled: Bool { core.isFulfilled }

    /// True once the promise is rejected (cancellation included).
    public var isRejected: Bool { core.isRejected }

    /// True if this promise was settled by `cancel()` (or by cancellation travelling
    /// upstream to it).
    public var isCancelled: Bool { core.wasCancelled }

    /// The outcome, or nil while pending. Reading it does not count as handling a rejection.
    public var result: Result<Any?, any Error>? {
        if core.isPending { return nil }
        if let error = core.error { return .failure(unboxError(error)) }
        return .success(Bridging.untyped(core))
    }

    /// The error, or nil unless rejected. Reading it does not count as handling it.
    public var error: (any Error)? { core.error.map(unboxError) }

    /// Blocks the calling thread until the promise settles, then returns its value or
    /// throws its error (which counts as handling it). Throws `VowError.Code.deadlock` at
    /// once where the wait could never end (see `Promise.wait()`).
    @available(*, noasync, message: "wait() blocks its thread; in async code use 'try await promise.value'")
    public func wait() throws -> Any? {
        try core.waitForSwift()
        return Bridging.untyped(core)
    }

    /// The value, awaited; throws the error (which counts as handling it). Cancelling the
    /// awaiting task cancels the wait, as for `Promise.value`.
    public var value: Any? {
        get async throws {
            let settled = await core.settledAwaitingCancellably()
            if let error = settled.error { throw unboxError(error) }
            return Bridging.untyped(settled)
        }
    }

    /// Cancels the promise (see `Promise.cancel()`).
    public func cancel() {
        core.cancel()
    }

    // MARK: Chaining

    /// Runs `body` with the value; what it returns resolves the new promise by the
    /// Promises/A+ procedure (a promise or `AnyPromise` is adopted, a thenable
    /// assimilated, anything else fulfils it; `nil` fulfils it with C's NULL value). A
    /// throw rejects it; a rejection skips `body` and passes through.
    @discardableResult
    public func then(on dispatcher: any Dispatcher = .default,
                     file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @Sendable (Any?) throws -> Any?) -> AnyPromise {
        AnyPromise(core: core.link(on: dispatcher, ClosureBody { source, link in
            guard let source else { return }
            if source.isRejected {
                link.settle(like: source)
                return
            }
            do {
                link.resolveProcedure(try body(Bridging.untyped(source)) ?? VowValue.sharedNull)
            } catch {
                link.reject(error)
            }
        }, at: .source(file, line)))
    }

    /// Handles a rejection, like C's `vow_catch`: the new promise fulfils with this one's
    /// value if it fulfilled, is resolved from what `body` returns if it ran (as for
    /// `then`), and stays rejected with the error if the policy skipped it (by default,
    /// cancellation is skipped), so a `finally` after it always runs.
    @discardableResult
    public func `catch`(on dispatcher: any Dispatcher = .default,
                        policy: CatchPolicy = .allErrorsExceptCancellation,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) throws -> Any?) -> AnyPromise {
        AnyPromise(core: core.link(on: dispatcher, ClosureBody { source, link in
            guard let source else { return }
            guard let error = source.error,
                  !policy.passesThrough(error) else {
                link.settle(like: source)
                return
            }
            do {
                link.resolveProcedure(try body(unboxError(error)) ?? VowValue.sharedNull)
            } catch {
                link.reject(error)
            }
        }, at: .source(file, line)))
    }

    /// Runs `body` whatever happened (also when the returned promise was cancelled); the
    /// returned promise then settles like this one.
    @discardableResult
    public func finally(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable () -> Void) -> AnyPromise {
        AnyPromise(core: core.link(on: dispatcher, CleanupBody(body), at: .source(file, line)))
    }
}

/// The right to settle one pending `AnyPromise` (see `AnyPromise.pending()`).
///
/// The first call that settles wins; later ones are ignored. If the last reference goes
/// while the promise is still pending (and it adopted nothing), the promise is rejected
/// with `VowError.Code.broken`. All methods may be called from any thread.
public final class AnyResolver: Sendable {
    let core: Core

    init(core: Core) { self.core = core }

    deinit { core.breakIfResolverUnused() }

    /// Fulfils the promise with `value` as it is (`nil`: C's NULL value); a promise or
    /// thenable is not adopted (see `resolve(_:)`).
    public func fulfill(_ value: Any?) {
        core.settle(VowValue.stored(value), rejected: false, viaResolver: true)
    }

    /// Rejects the promise with `error`.
    public func reject(_ error: any Error) {
        core.rejectFromResolver(error)
    }

    /// The Promises/A+ resolution procedure: a promise or `AnyPromise` is adopted, a
    /// thenable assimilated, anything else fulfils. Adopting uses the resolver up;
    /// resolving with the promise itself (or a chain leading back to it) rejects it with
    /// `VowError.Code.cycle`.
    public func resolve(_ value: Any?) {
        let x = value ?? VowValue.sharedNull
        _ = core.resolveFromResolver(x, as: Resolution.classifying(x))
    }

    /// Registers work to run when cancellation reaches this promise (see
    /// `Resolver.onCancel`).
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        core.onCancel(body)
    }

    /// True once cancellation reached this promise.
    public var isCancelled: Bool { core.wasCancelled }

    /// True while the promise can still be settled through this resolver.
    public var isPending: Bool { !core.isResolverUsed }
}
