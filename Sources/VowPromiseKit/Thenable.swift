import Dispatch

/// PromiseKit's `Thenable`: what `then`, `map`, `done`, `when`, `race` and the other
/// combinators accept. `Promise` and `Guarantee` conform.
///
/// It hides Vow's own `Thenable` (the Promises/A+ seed protocol) in a file that imports
/// VowPromiseKit; write `Vow.Thenable` for that one.
///
/// A type of your own conforms with `pipe(to:)` and `result` (PromiseKit's requirements);
/// `asPromise()` then makes a Vow promise that follows it. Not class-bound (PromiseKit's
/// was `AnyObject`): Vow's `Promise` is a struct over the engine's object.
public protocol Thenable<T>: SendableMetatype {
    /// The type of the value it fulfils with (a `Promise<T>`'s and a `Guarantee<T>`'s `T`);
    /// `Sendable`, as every value of a Vow promise, because it may reach another thread.
    associatedtype T: Sendable
    /// Calls `to` once, with the outcome, when this thenable settles.
    func pipe(to: @escaping @Sendable (Result<T>) -> Void)
    /// The outcome, or nil while pending.
    var result: Result<T>? { get }
    /// This thenable as a Vow promise (itself, for `Promise`; the promise it wraps, for
    /// `Guarantee`; one that follows `pipe(to:)`, for a type of your own).
    func asPromise() -> Promise<T>
}

/// PromiseKit's `CatchMixin`: a `Thenable` with `catch`, `recover` and `ensure`. `Promise`
/// conforms.
public protocol CatchMixin: Thenable {}

extension Thenable {
    /// A promise that follows `pipe(to:)`.
    public func asPromise() -> Promise<T> {
        let (promise, resolver) = Promise<T>.pending()
        pipe { outcome in resolver.resolve(outcome.swiftResult) }
        return promise
    }

    /// The error, or nil unless rejected.
    public var error: (any Error)? {
        if case .rejected(let error)? = result { return error }
        return nil
    }

    /// True while pending.
    public var isPending: Bool { result == nil }

    /// True once settled.
    public var isResolved: Bool { result != nil }

    /// True once fulfilled.
    public var isFulfilled: Bool { value != nil }

    /// True once rejected.
    public var isRejected: Bool { error != nil }

    /// The value, or nil while pending or when rejected.
    public var value: T? {
        if case .fulfilled(let value)? = result { return value }
        return nil
    }

    // The operators on any thenable (a type of your own, or generic code over `Thenable`):
    // each is the operator of `asPromise()`. `Promise` and `Guarantee` have their own,
    // which Swift prefers.

    /// PromiseKit's `then`: `body`'s thenable is followed.
    public func then<U: Thenable>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                                  _ body: @escaping @Sendable (T) throws -> U) -> Promise<U.T> {
        asPromise().then(on: dispatcher(queue, flags)) { try body($0).asPromise() }
    }

    /// PromiseKit's `map`.
    public func map<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                       _ transform: @escaping @Sendable (T) throws -> U) -> Promise<U> {
        asPromise().map(on: dispatcher(queue, flags), transform)
    }

    /// PromiseKit's `compactMap` (nil rejects as Vow's `compactMap` does).
    public func compactMap<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                              _ transform: @escaping @Sendable (T) throws -> U?) -> Promise<U> {
        asPromise().compactMap(on: dispatcher(queue, flags), transform)
    }

    /// PromiseKit's `done`.
    @discardableResult
    public func done(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                     _ body: @escaping @Sendable (T) throws -> Void) -> Promise<Void> {
        asPromise().done(on: dispatcher(queue, flags), body)
    }

    /// PromiseKit's `get`.
    public func get(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                    _ body: @escaping @Sendable (T) throws -> Void) -> Promise<T> {
        asPromise().get(on: dispatcher(queue, flags), body)
    }

    /// PromiseKit's `tap`.
    public func tap(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                    _ body: @escaping @Sendable (Result<T>) -> Void) -> Promise<T> {
        asPromise().tap(on: dispatcher(queue, flags)) { body(Result($0)) }
    }

    /// PromiseKit's `asVoid`.
    public func asVoid() -> Promise<Void> {
        asPromise().asVoid()
    }
}

extension CatchMixin {
    /// PromiseKit's `catch` (see `Promise.catch`).
    @discardableResult
    public func `catch`(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                        policy: CatchPolicy = Settings.catchPolicy,
                        _ body: @escaping @Sendable (any Error) -> Void) -> PMKFinalizer {
        asPromise().catch(on: dispatcher(queue, flags), policy: policy, body)
    }

    /// PromiseKit's `recover` (every error, Vow's rule; see `Promise.recover`).
    public func recover<U: Thenable>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                                     policy: CatchPolicy = .allErrors,
                                     _ body: @escaping @Sendable (any Error) throws -> U) -> Promise<T> where U.T == T {
        asPromise().recover(on: dispatcher(queue, flags), policy: policy) { try body($0).asPromise() }
    }

    /// PromiseKit's `ensure`: Vow's `finally`.
    public func ensure(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                       _ body: @escaping @Sendable () -> Void) -> Promise<T> {
        asPromise().finally(on: dispatcher(queue, flags), body)
    }

    /// PromiseKit's `cauterize` (Vow's).
    @discardableResult
    public func cauterize() -> PMKFinalizer {
        asPromise().cauterize()
    }
}

/// What PromiseKit's `catch` returns: in Vow, a `Promise<Void>` that fulfils once the error
/// was handled (or the source fulfilled), so `finally`, `done` or `wait()` may follow.
public typealias PMKFinalizer = Promise<Void>

/// What PromiseKit's `catch(only:)` returns: a `Promise<Void>` that is still rejected with
/// any other error, so another `catch` may follow.
public typealias PMKCascadingFinalizer = Promise<Void>
