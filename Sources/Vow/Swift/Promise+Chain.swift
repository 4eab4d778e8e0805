/// How `catch` treats cancellation.
public enum CatchPolicy: Sendable {
    /// Skip errors that stand for cancellation (the default).
    case allErrorsExceptCancellation
    /// Receive every error, cancellation included.
    case allErrors

    /// Whether a handler with this policy lets `error` pass through unseen (a
    /// cancellation, under `allErrorsExceptCancellation`).
    @inline(__always)
    func passesThrough(_ error: any Error) -> Bool {
        self == .allErrorsExceptCancellation && isCancellation(error)
    }
}

// Every method below registers one link on this promise (the engine's link primitive) and
// returns the link, a new promise. The callback runs on `dispatcher` (default:
// `VowRuntime.defaultDispatcher` as it is now), after this promise settles, never inline, never
// under a lock. If the returned promise is cancelled before the callback starts, the
// callback never runs (except `finally`). Releasing the returned promise does not
// unregister the callback. `file` and `line` default to the caller's `#fileID` and `#line`:
// in debug mode (`VowRuntime.debugMode`) they are recorded as where the returned promise
// was made, and it inherits the chain of this promise.
extension Promise {
    /// Runs `body` with the value; the new promise adopts the promise `body` returns.
    /// A rejection skips `body` and passes through.
    @inlinable @discardableResult
    public func then<U>(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (T) throws -> Promise<U>) -> Promise<U> {
        Promise<U>(core: core.link(on: dispatcher, AdoptBody(body), at: .source(file, line)))
    }

    /// Runs `body` with the value; its return value fulfils the new promise, a throw
    /// rejects it. A rejection skips `body` and passes through.
    @inlinable @discardableResult
    public func then<U>(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (T) throws -> U) -> Promise<U> {
        Promise<U>(core: core.link(on: dispatcher, MapBody(body), at: .source(file, line)))
    }

    /// Runs `body` with the value; the new promise assimilates the thenable it returns
    /// (Promises/A+ 2.3.3: its `then` is called once, in a job on the default dispatcher).
    @discardableResult
    public func then<P: Thenable & Sendable>(on dispatcher: any Dispatcher = .default,
                                            file: StaticString = #fileID, line: UInt = #line,
                                            _ body: @escaping @Sendable (T) throws -> P) -> Promise<P.Value> {
        Promise<P.Value>(core: core.link(on: dispatcher, ProcedureBody { value -> Any in try body(value) },
                                         at: .source(file, line)))
    }

    /// Runs `body` with the value; the new promise, untyped, adopts the `AnyPromise`
    /// `body` returns (a promise of any value, made in Swift or C).
    @discardableResult
    public func then(on dispatcher: any Dispatcher = .default,
                     file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @Sendable (T) throws -> AnyPromise) -> AnyPromise {
        AnyPromise(core: core.link(on: dispatcher, ProcedureBody { value -> Any in try body(value) },
                                   at: .source(file, line)))
    }

    /// Transforms the value (the value-returning `then`).
    @inlinable
    public func map<U>(on dispatcher: any Dispatcher = .default,
                       file: StaticString = #fileID, line: UInt = #line,
                       _ transform: @escaping @Sendable (T) throws -> U) -> Promise<U> {
        then(on: dispatcher, file: file, line: line, transform)
    }

    /// Chains a promise-returning step (the promise-returning `then`).
    @inlinable
    public func flatMap<U>(on dispatcher: any Dispatcher = .default,
                           file: StaticString = #fileID, line: UInt = #line,
                           _ transform: @escaping @Sendable (T) throws -> Promise<U>) -> Promise<U> {
        then(on: dispatcher, file: file, line: line, transform)
    }

    /// Consumes the value; the new promise fulfils with `()` when `body` returns.
    @inlinable @discardableResult
    public func done(on dispatcher: any Dispatcher = .default,
                     file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @Sendable (T) throws -> Void) -> Promise<Void> {
        then(on: dispatcher, file: file, line: line, body)
    }

    /// Looks at the value and passes it on unchanged (a throw rejects).
    public func get(on dispatcher: any Dispatcher = .default,
                    file: StaticString = #fileID, line: UInt = #line,
                    _ body: @escaping @Sendable (T) throws -> Void) -> Promise<T> {
        then(on: dispatcher, file: file, line: line) { value -> T in
            try body(value)
            return value
        }
    }

    /// Looks at the outcome, value or error, and passes it on unchanged. Seeing an error
    /// here does not handle it.
    public func tap(on dispatcher: any Dispatcher = .default,
                    file: StaticString = #fileID, line: UInt = #line,
                    _ body: @escaping @Sendable (Result<T, any Error>) -> Void) -> Promise<T> {
        Promise(core: core.link(on: dispatcher, TapBody(body), at: .source(file, line)))
    }

    /// Validates the value (Hydra's and google/promises' `validate`): passes it on if
    /// `predicate` holds, else rejects with `error` (by default a `VowError` of domain
    /// `"vow.validate"`, code 1). A throw from `predicate` rejects with that error. A
    /// rejection passes through without calling `predicate`.
    public func validate(on dispatcher: any Dispatcher = .default,
                         file: StaticString = #fileID, line: UInt = #line,
                         _ predicate: @escaping @Sendable (T) throws -> Bool,
                         otherwise error: @escaping @Sendable @autoclosure () -> any Error
                             = VowError(domain: "vow.validate", code: 1,
                                        message: "the value did not satisfy validate's predicate")) -> Promise<T> {
        then(on: dispatcher, file: file, line: line) { value -> T in
            guard try predicate(value) else { throw error() }
            return value
        }
    }

    /// The former name of `validate` (its default error keeps the domain `"vow.ensure"`).
    @available(*, deprecated, renamed: "validate",
               message: "use validate(_:otherwise:); in PromiseKit 6 and later 'ensure' means 'always run this', which is Vow's finally")
    public func ensure(on dispatcher: any Dispatcher = .default,
                       file: StaticString = #fileID, line: UInt = #line,
                       _ predicate: @escaping @Sendable (T) throws -> Bool,
                       otherwise error: @escaping @Sendable @autoclosure () -> any Error
                           = VowError(domain: "vow.ensure", code: 1, message: "the value did not satisfy ensure's predicate")) -> Promise<T> {
        validate(on: dispatcher, file: file, line: line, predicate, otherwise: error())
    }

    /// Handles a rejection by returning a promise to continue with. Receives every error,
    /// cancellation included. A fulfilment passes through.
    ///
    /// Disfavoured against the value-returning `recover` below: on a `Promise<Void>`, a
    /// closure of several statements and no `return` matches both, and means this one
    /// (a closure that returns a promise still picks this one).
    @_disfavoredOverload
    public func recover(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) throws -> Promise<T>) -> Promise<T> {
        Promise(core: core.link(on: dispatcher, RecoverBody(.promise(body)), at: .source(file, line)))
    }

    /// Handles a rejection by returning a replacement value. Receives every error,
    /// cancellation included.
    public func recover(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) throws -> T) -> Promise<T> {
        Promise(core: core.link(on: dispatcher, RecoverBody(.value(body)), at: .source(file, line)))
    }

    /// Handles a rejection. With the default policy, cancellation errors are skipped.
    ///
    /// The returned promise fulfils when this one fulfilled or `body` ran (and did not
    /// throw); it stays rejected with the error when the policy skipped it, so a `finally`
    /// after it always runs and a skipped cancellation is still visible.
    @discardableResult
    public func `catch`(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        policy: CatchPolicy = .allErrorsExceptCancellation,
                        _ body: @escaping @Sendable (any Error) throws -> Void) -> Promise<Void> {
        Promise<Void>(core: core.link(on: dispatcher, CatchBody(policy, body), at: .source(file, line)))
    }

    /// Runs `body` whatever happened (also after a skipped catch, also when the returned
    /// promise was cancelled); the returned promise then settles like this one.
    @discardableResult
    public func finally(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable () -> Void) -> Promise<T> {
        Promise(core: core.link(on: dispatcher, CleanupBody(body), at: .source(file, line)))
    }

    /// Another name for `finally`.
    @discardableResult
    public func always(on dispatcher: any Dispatcher = .default,
                       file: StaticString = #fileID, line: UInt = #line,
                       _ body: @escaping @Sendable () -> Void) -> Promise<T> {
        finally(on: dispatcher, file: file, line: line, body)
    }

    /// Forgets the value.
    public func asVoid(file: StaticString = #fileID, line: UInt = #line) -> Promise<Void> {
        then(on: .inline, file: file, line: line) { _ in () }
    }
}

/// Runs `body` at once and returns its promise; a throw becomes a rejected promise
/// (made at the caller's `file` and `line` in debug mode). Reads well at the head of a chain.
public func firstly<U>(file: StaticString = #fileID, line: UInt = #line,
                       _ body: () throws -> Promise<U>) -> Promise<U> {
    do {
        return try body()
    } catch {
        return Promise(error: error, file: file, line: line)
    }
}

/// Runs `body` on `dispatcher` and returns a promise of its result (the first promise of
/// its chain, made at the caller's `file` and `line` in debug mode).
public func firstly<U>(on dispatcher: any Dispatcher, file: StaticString = #fileID, line: UInt = #line,
                       _ body: @escaping @Sendable () throws -> U) -> Promise<U> {
    Promise<Void>(core: Core(fulfilled: ())).then(on: dispatcher, file: file, line: line) { _ in try body() }
}
