import Dispatch

// PromiseKit's spellings on Vow's `Promise`.
//
// Each operator that takes a closure comes here with PromiseKit's parameters, `on:
// DispatchQueue? = .vowDefault` and `flags: DispatchWorkItemFlags? = nil` (see Queues.swift),
// and calls Vow's operator of the same meaning with the dispatcher they stand for. Where
// Vow's own operator accepts the call too (no `on:`, or `on:` a queue), Swift picks Vow's,
// which has fewer parameters: the layer is in the way only of what Vow cannot spell
// (`on: nil`, `flags:`, PromiseKit's `Result`, a `Guarantee`). A few overloads with no
// `on:` at all (`tap`, `catch`, the `Guarantee` forms of `recover`) are there to be picked
// over Vow's where PromiseKit's meaning differs in type.

extension Promise: Thenable, CatchMixin {
    /// Calls `to` once, with the outcome, when this promise settles (on the thread that
    /// settles it). Seeing a rejection here handles it.
    public func pipe(to: @escaping @Sendable (Result<T>) -> Void) {
        then(on: .inline) { to(.fulfilled($0)) }
            .catch(on: .inline, policy: .allErrors) { to(.rejected($0)) }
    }

    /// PromiseKit's `result`: the outcome as PromiseKit's `Result`, nil while pending.
    /// (Vow's `Swift.Result` one: `vowResult` is not public; `Result(swiftResult)` converts.)
    public var result: Result<T>? {
        vowResult.map(Result.init)
    }

    /// PromiseKit's `value`: the value, or nil while pending or when rejected. In a file
    /// that imports VowPromiseKit it hides Vow's awaited `value`: await with `async()`.
    public var value: T? {
        if case .success(let value)? = vowResult { return value }
        return nil
    }

    /// True once settled (PromiseKit's `isResolved`, Vow's `!isPending`).
    @inlinable
    public var isResolved: Bool { !isPending }

    /// This promise (the `Thenable` requirement).
    @inlinable
    public func asPromise() -> Promise<T> { self }

    /// The value, awaited (PromiseKit 8's `async()`; Vow's `value` in Vow's own files).
    /// Throws the error; cancelling the awaiting task cancels the wait (Vow's rule).
    public func async() async throws -> T {
        try await vowValue
    }

    /// PromiseKit's `Promise(resolver:)`; `Promise { seal in … }` is Vow's own initializer.
    @_disfavoredOverload
    public init(file: StaticString = #fileID, line: UInt = #line, resolver body: (Resolver<T>) throws -> Void) {
        self.init(file: file, line: line, body)
    }

    /// A promise that follows `thenable` (PromiseKit's `Promise(guarantee)`).
    @inlinable
    public init<U: Thenable>(_ thenable: U) where U.T == T {
        self = thenable.asPromise()
    }
}

// MARK: Chaining with `on:` and `flags:`

extension Promise {
    /// PromiseKit's `then` with `on:`/`flags:`.
    @inlinable @discardableResult
    public func then<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (T) throws -> Promise<U>) -> Promise<U> {
        then(on: dispatcher(queue, flags), file: file, line: line, body)
    }

    /// PromiseKit's `then` whose closure returns a `Guarantee`.
    @inlinable @discardableResult
    public func then<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (T) throws -> Guarantee<U>) -> Promise<U> {
        then(on: dispatcher(queue, flags), file: file, line: line) { try body($0).promise }
    }

    /// PromiseKit's `map` with `on:`/`flags:`.
    @inlinable
    public func map<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                       file: StaticString = #fileID, line: UInt = #line,
                       _ transform: @escaping @Sendable (T) throws -> U) -> Promise<U> {
        map(on: dispatcher(queue, flags), file: file, line: line, transform)
    }

    /// PromiseKit's `compactMap` with `on:`/`flags:` (nil rejects as Vow's does).
    @inlinable
    public func compactMap<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                              file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping @Sendable (T) throws -> U?) -> Promise<U> {
        compactMap(on: dispatcher(queue, flags), file: file, line: line, transform)
    }

    /// PromiseKit's `done` with `on:`/`flags:`.
    @inlinable @discardableResult
    public func done(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                     file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @Sendable (T) throws -> Void) -> Promise<Void> {
        done(on: dispatcher(queue, flags), file: file, line: line, body)
    }

    /// PromiseKit's `get` with `on:`/`flags:`.
    @inlinable
    public func get(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                    file: StaticString = #fileID, line: UInt = #line,
                    _ body: @escaping @Sendable (T) throws -> Void) -> Promise<T> {
        get(on: dispatcher(queue, flags), file: file, line: line, body)
    }

    /// PromiseKit's `tap`: `body` sees the outcome as PromiseKit's `Result`
    /// (`.fulfilled`/`.rejected`), then the returned promise settles like this one. Seeing
    /// an error here does not handle it (Vow's `tap`).
    @inlinable
    public func tap(file: StaticString = #fileID, line: UInt = #line,
                    _ body: @escaping @Sendable (Result<T>) -> Void) -> Promise<T> {
        tap(on: .default, file: file, line: line) { (outcome: Swift.Result<T, any Error>) in body(Result(outcome)) }
    }

    /// PromiseKit's `tap` with `on:`/`flags:`.
    @inlinable
    public func tap(on queue: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
                    file: StaticString = #fileID, line: UInt = #line,
                    _ body: @escaping @Sendable (Result<T>) -> Void) -> Promise<T> {
        tap(on: dispatcher(queue, flags), file: file, line: line) { (outcome: Swift.Result<T, any Error>) in
            body(Result(outcome))
        }
    }

    /// PromiseKit's `catch`: the policy is `conf.catchPolicy` (by default cancellations are
    /// skipped). Returns Vow's `Promise<Void>` (`PMKFinalizer`), so `finally` may follow.
    @inlinable @discardableResult
    public func `catch`(file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) -> Void) -> PMKFinalizer {
        `catch`(on: .default, file: file, line: line, policy: Settings.catchPolicy, body)
    }

    /// PromiseKit's `catch` with `on:`/`flags:`/`policy:`.
    @inlinable @discardableResult
    public func `catch`(on queue: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
                        policy: CatchPolicy = Settings.catchPolicy,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) -> Void) -> PMKFinalizer {
        `catch`(on: dispatcher(queue, flags), file: file, line: line, policy: policy, body)
    }

    /// PromiseKit's `recover` with `on:`/`flags:`/`policy:`. Without a policy it receives
    /// every error, cancellation included (Vow's rule; PromiseKit's skipped cancellations).
    @inlinable
    public func recover(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                        policy: CatchPolicy = .allErrors,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) throws -> Promise<T>) -> Promise<T> {
        recover(on: dispatcher(queue, flags), file: file, line: line, policy: policy, body)
    }

    /// PromiseKit's `recover` whose closure returns a `Guarantee`: the result cannot fail.
    @inlinable @discardableResult
    public func recover(file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) -> Guarantee<T>) -> Guarantee<T> {
        Guarantee(promise: recover(on: .default, file: file, line: line) { body($0).promise })
    }

    /// `recover(_:)` returning a `Guarantee`, with `on:`/`flags:`.
    @inlinable @discardableResult
    public func recover(on queue: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) -> Guarantee<T>) -> Guarantee<T> {
        Guarantee(promise: recover(on: dispatcher(queue, flags), file: file, line: line) { body($0).promise })
    }

    /// PromiseKit's `ensure`: Vow's `finally`. `body` runs whatever happened, then the
    /// returned promise settles like this one. (Vow's own deprecated `ensure` is the
    /// predicate check `validate`.)
    @inlinable
    public func ensure(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                       file: StaticString = #fileID, line: UInt = #line,
                       _ body: @escaping @Sendable () -> Void) -> Promise<T> {
        finally(on: dispatcher(queue, flags), file: file, line: line, body)
    }

    /// PromiseKit's `ensureThen`: `body`'s guarantee is waited for, then the returned
    /// promise settles like this one.
    @inlinable
    public func ensureThen(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                           file: StaticString = #fileID, line: UInt = #line,
                           _ body: @escaping @Sendable () -> Guarantee<Void>) -> Promise<T> {
        ensureThen(on: dispatcher(queue, flags), file: file, line: line) { body().promise }
    }

    /// PromiseKit's `finally` (after `catch`) with `on:`/`flags:`.
    @inlinable @discardableResult
    public func finally(on queue: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable () -> Void) -> Promise<T> {
        finally(on: dispatcher(queue, flags), file: file, line: line, body)
    }
}

extension Promise where T == Void {
    /// PromiseKit's `recover` of a `Promise<Void>` whose closure cannot throw: the result is
    /// a `Guarantee<Void>`.
    @inlinable @discardableResult
    public func recover(file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) -> Void) -> Guarantee<Void> {
        Guarantee(promise: recover(on: .default, file: file, line: line) { (error: any Error) throws -> Void in body(error) })
    }

    /// `recover(_:)` of a `Promise<Void>`, with `on:`/`flags:`.
    @inlinable @discardableResult
    public func recover(on queue: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (any Error) -> Void) -> Guarantee<Void> {
        Guarantee(promise: recover(on: dispatcher(queue, flags), file: file, line: line) {
            (error: any Error) throws -> Void in body(error)
        })
    }
}

// MARK: Errors of one kind (PromiseKit's `catch(only:)`, `recover(only:)`)

extension Promise {
    /// Handles only `only` (an `Equatable` error): `body` runs for it; any other error
    /// rejects the returned promise, so another `catch` may follow.
    @discardableResult
    public func `catch`<E: Error & Equatable>(_ only: E, on queue: DispatchQueue? = .vowDefault,
                                              flags: DispatchWorkItemFlags? = nil,
                                              file: StaticString = #fileID, line: UInt = #line,
                                              _ body: @escaping @Sendable () -> Void) -> PMKCascadingFinalizer {
        asVoid(file: file, line: line).recover(on: dispatcher(queue, flags), file: file, line: line) {
            (error: any Error) throws -> Void in
            guard let match = error as? E, match == only else { throw error }
            body()
        }
    }

    /// Handles only errors of type `E`: `body` runs for them (cancellations skipped unless
    /// `policy` is `.allErrors`); any other error rejects the returned promise.
    @discardableResult
    public func `catch`<E: Error>(_ only: E.Type, on queue: DispatchQueue? = .vowDefault,
                                  flags: DispatchWorkItemFlags? = nil,
                                  policy: CatchPolicy = Settings.catchPolicy,
                                  file: StaticString = #fileID, line: UInt = #line,
                                  _ body: @escaping @Sendable (E) -> Void) -> PMKCascadingFinalizer {
        asVoid(file: file, line: line).recover(on: dispatcher(queue, flags), file: file, line: line) {
            (error: any Error) throws -> Void in
            guard let match = error as? E, policy == .allErrors || !isCancellation(error) else { throw error }
            body(match)
        }
    }

    /// Recovers only from `only`: `body`'s promise replaces it; other errors pass through.
    public func recover<U: Thenable, E: Error & Equatable>(_ only: E, on queue: DispatchQueue? = .vowDefault,
                                                           flags: DispatchWorkItemFlags? = nil,
                                                           file: StaticString = #fileID, line: UInt = #line,
                                                           _ body: @escaping @Sendable () -> U) -> Promise<T>
        where U.T == T {
        recover(on: dispatcher(queue, flags), file: file, line: line) { (error: any Error) throws -> Promise<T> in
            guard let match = error as? E, match == only else { throw error }
            return body().asPromise()
        }
    }

    /// Recovers only from errors of type `E` (cancellations skipped unless `policy` is
    /// `.allErrors`); other errors pass through.
    public func recover<U: Thenable, E: Error>(_ only: E.Type, on queue: DispatchQueue? = .vowDefault,
                                               flags: DispatchWorkItemFlags? = nil,
                                               policy: CatchPolicy = Settings.catchPolicy,
                                               file: StaticString = #fileID, line: UInt = #line,
                                               _ body: @escaping @Sendable (E) throws -> U) -> Promise<T>
        where U.T == T {
        recover(on: dispatcher(queue, flags), file: file, line: line) { (error: any Error) throws -> Promise<T> in
            guard let match = error as? E, policy == .allErrors || !isCancellation(error) else { throw error }
            return try body(match).asPromise()
        }
    }
}

// MARK: Sequences with `on:` and `flags:`

extension Promise where T: Sequence, T.Element: Sendable {
    /// PromiseKit's `mapValues` with `on:`/`flags:`.
    @inlinable
    public func mapValues<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                             file: StaticString = #fileID, line: UInt = #line,
                             _ transform: @escaping @Sendable (T.Element) throws -> U) -> Promise<[U]> {
        mapValues(on: dispatcher(queue, flags), file: file, line: line, transform)
    }

    /// PromiseKit's `flatMapValues` with `on:`/`flags:`.
    @inlinable
    public func flatMapValues<S: Sequence & Sendable>(on queue: DispatchQueue? = .vowDefault,
                                                      flags: DispatchWorkItemFlags? = nil,
                                                      file: StaticString = #fileID, line: UInt = #line,
                                                      _ transform: @escaping @Sendable (T.Element) throws -> S)
        -> Promise<[S.Element]> where S.Element: Sendable {
        flatMapValues(on: dispatcher(queue, flags), file: file, line: line, transform)
    }

    /// PromiseKit's `compactMapValues` with `on:`/`flags:`.
    @inlinable
    public func compactMapValues<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                                    file: StaticString = #fileID, line: UInt = #line,
                                    _ transform: @escaping @Sendable (T.Element) throws -> U?) -> Promise<[U]> {
        compactMapValues(on: dispatcher(queue, flags), file: file, line: line, transform)
    }

    /// PromiseKit's `thenMap` with `on:`/`flags:`.
    @inlinable
    public func thenMap<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                           file: StaticString = #fileID, line: UInt = #line,
                           _ transform: @escaping @Sendable (T.Element) throws -> Promise<U>) -> Promise<[U]> {
        thenMap(on: dispatcher(queue, flags), file: file, line: line, transform)
    }

    /// PromiseKit's `thenMap` whose closure returns a `Guarantee`.
    @inlinable
    public func thenMap<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                           file: StaticString = #fileID, line: UInt = #line,
                           _ transform: @escaping @Sendable (T.Element) throws -> Guarantee<U>) -> Promise<[U]> {
        thenMap(on: dispatcher(queue, flags), file: file, line: line) { try transform($0).promise }
    }

    /// PromiseKit's `thenFlatMap` with `on:`/`flags:`.
    @inlinable
    public func thenFlatMap<S: Sequence & Sendable>(on queue: DispatchQueue? = .vowDefault,
                                                    flags: DispatchWorkItemFlags? = nil,
                                                    file: StaticString = #fileID, line: UInt = #line,
                                                    _ transform: @escaping @Sendable (T.Element) throws -> Promise<S>)
        -> Promise<[S.Element]> where S.Element: Sendable {
        thenFlatMap(on: dispatcher(queue, flags), file: file, line: line, transform)
    }

    /// PromiseKit's `filterValues` with `on:`/`flags:`.
    @inlinable
    public func filterValues(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                             file: StaticString = #fileID, line: UInt = #line,
                             _ isIncluded: @escaping @Sendable (T.Element) throws -> Bool) -> Promise<[T.Element]> {
        filterValues(on: dispatcher(queue, flags), file: file, line: line, isIncluded)
    }

    /// PromiseKit's `firstValue(where:)` with `on:`/`flags:`.
    @inlinable
    public func firstValue(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                           file: StaticString = #fileID, line: UInt = #line,
                           where test: @escaping @Sendable (T.Element) throws -> Bool) -> Promise<T.Element> {
        firstValue(on: dispatcher(queue, flags), file: file, line: line, where: test)
    }

    /// PromiseKit's `sortedValues(_:)` with `on:`/`flags:` (Vow's `sortedValues(by:)`).
    @inlinable
    public func sortedValues(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                             file: StaticString = #fileID, line: UInt = #line,
                             _ areInIncreasingOrder: @escaping @Sendable (T.Element, T.Element) throws -> Bool)
        -> Promise<[T.Element]> {
        sortedValues(on: dispatcher(queue, flags), file: file, line: line, by: areInIncreasingOrder)
    }
}

extension Promise where T: Sequence, T.Element: Sendable & Comparable {
    /// PromiseKit's `sortedValues()` with `on:`/`flags:`.
    @inlinable
    public func sortedValues(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                             file: StaticString = #fileID, line: UInt = #line) -> Promise<[T.Element]> {
        sortedValues(on: dispatcher(queue, flags), file: file, line: line)
    }
}
