import Dispatch

/// PromiseKit's `Guarantee`: a promise that cannot reject, so its `done`, `map` and `then`
/// take closures that cannot throw, `wait()` does not throw, and nothing needs a `catch`.
///
/// A `Guarantee` is a Vow promise (`asPromise()`, `Promise(guarantee)`: the same promise,
/// no copy) that only this type's operators touch. One rule of Vow's reaches it: a resolve
/// function (`pending()`, `Guarantee { seal in … }`) that is released without being called
/// rejects the promise with `VowError.Code.broken` (PromiseKit logged "pending guarantee
/// deallocated" and left it pending forever): its `done`/`map` then never run, the error is
/// reported as unhandled, and `wait()` stops the program with a message naming it.
///
/// The operators run on `on:` (default `.vowDefault`: Vow's default dispatcher; `nil`:
/// inline) with `flags:` honoured, as `Promise`'s do.
public struct Guarantee<T: Sendable>: Sendable {
    /// The Vow promise this guarantee is.
    @usableFromInline
    let promise: Promise<T>

    @inlinable
    init(promise: Promise<T>) { self.promise = promise }

    /// A guarantee already fulfilled with `value`.
    @inlinable
    public static func value(_ value: T) -> Guarantee<T> {
        Guarantee(promise: .value(value))
    }

    /// Runs `body` at once with the function that fulfils the guarantee (PromiseKit's
    /// `Guarantee { seal in … }`: `seal` is a function, not a `Resolver`). Calls after the
    /// first are ignored.
    public init(resolver body: (@escaping @Sendable (T) -> Void) -> Void) {
        let (promise, resolver) = Promise<T>.pending()
        self.promise = promise
        body(resolver.fulfill)
    }

    /// A pending guarantee and the function that fulfils it (PromiseKit's shape: the
    /// function fits where a completion handler `(T) -> Void` is expected, as in
    /// `center.addObserver(forName:object:queue:using: resolve)`).
    public static func pending() -> (guarantee: Guarantee<T>, resolve: @Sendable (T) -> Void) {
        let (promise, resolver) = Promise<T>.pending()
        return (Guarantee(promise: promise), resolver.fulfill)
    }

    /// The Vow promise this guarantee is.
    @inlinable
    public func asPromise() -> Promise<T> { promise }

    /// Calls `to` with the outcome once settled.
    public func pipe(to: @escaping @Sendable (Result<T>) -> Void) { promise.pipe(to: to) }

    /// The outcome, nil while pending.
    public var result: Result<T>? { promise.result }

    /// The value, nil while pending.
    public var value: T? { promise.value }

    /// True while pending.
    public var isPending: Bool { promise.isPending }

    /// True once settled.
    public var isResolved: Bool { !promise.isPending }

    /// True once fulfilled.
    public var isFulfilled: Bool { promise.isFulfilled }

    /// False unless Vow rejected it (a resolve function released uncalled: `broken`).
    public var isRejected: Bool { promise.isRejected }

    /// Blocks until fulfilled and returns the value (see `Promise.wait()`, whose deadlock
    /// detection it keeps: a wait that could never end stops the program with that error,
    /// as does a guarantee Vow rejected as broken).
    public func wait() -> T {
        do {
            return try promise.wait()
        } catch {
            fatalError("VowPromiseKit: Guarantee.wait(): \(error)")
        }
    }

    /// The value, awaited (PromiseKit 8's `async()`).
    public func async() async -> T {
        do {
            return try await promise.vowValue
        } catch {
            fatalError("VowPromiseKit: Guarantee.async(): \(error)")
        }
    }
}

extension Guarantee: Thenable {}

extension Guarantee where T == Void {
    /// A fulfilled `Guarantee<Void>`.
    public init() { self.init(promise: Promise()) }

    /// A fulfilled `Guarantee<Void>` (PromiseKit's `Guarantee<Void>.value`).
    public static var value: Guarantee<Void> { Guarantee() }
}

extension Guarantee {
    /// Runs `body` with the value.
    @inlinable @discardableResult
    public func done(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                     file: StaticString = #fileID, line: UInt = #line,
                     _ body: @escaping @Sendable (T) -> Void) -> Guarantee<Void> {
        Guarantee<Void>(promise: promise.done(on: dispatcher(queue, flags), file: file, line: line, body))
    }

    /// Looks at the value and passes it on.
    @inlinable
    public func get(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                    file: StaticString = #fileID, line: UInt = #line,
                    _ body: @escaping @Sendable (T) -> Void) -> Guarantee<T> {
        Guarantee(promise: promise.get(on: dispatcher(queue, flags), file: file, line: line, body))
    }

    /// Transforms the value.
    @inlinable
    public func map<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                       file: StaticString = #fileID, line: UInt = #line,
                       _ body: @escaping @Sendable (T) -> U) -> Guarantee<U> {
        Guarantee<U>(promise: promise.map(on: dispatcher(queue, flags), file: file, line: line, body))
    }

    /// Continues with the guarantee `body` returns.
    @inlinable @discardableResult
    public func then<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (T) -> Guarantee<U>) -> Guarantee<U> {
        Guarantee<U>(promise: promise.then(on: dispatcher(queue, flags), file: file, line: line) { body($0).promise })
    }

    /// Continues with the promise `body` returns (the result may reject: a `Promise`).
    @inlinable @discardableResult
    public func then<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                        file: StaticString = #fileID, line: UInt = #line,
                        _ body: @escaping @Sendable (T) throws -> Promise<U>) -> Promise<U> {
        promise.then(on: dispatcher(queue, flags), file: file, line: line, body)
    }

    /// Forgets the value.
    @inlinable
    public func asVoid() -> Guarantee<Void> {
        Guarantee<Void>(promise: promise.asVoid())
    }
}

extension Guarantee where T: Sequence, T.Element: Sendable {
    /// The values transformed one by one.
    @inlinable
    public func mapValues<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                             _ transform: @escaping @Sendable (T.Element) -> U) -> Guarantee<[U]> {
        Guarantee<[U]>(promise: promise.mapValues(on: dispatcher(queue, flags), transform))
    }

    /// Each value transformed into a sequence, the sequences joined.
    @inlinable
    public func flatMapValues<S: Sequence & Sendable>(on queue: DispatchQueue? = .vowDefault,
                                                      flags: DispatchWorkItemFlags? = nil,
                                                      _ transform: @escaping @Sendable (T.Element) -> S)
        -> Guarantee<[S.Element]> where S.Element: Sendable {
        Guarantee<[S.Element]>(promise: promise.flatMapValues(on: dispatcher(queue, flags), transform))
    }

    /// The values transformed, nils dropped.
    @inlinable
    public func compactMapValues<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                                    _ transform: @escaping @Sendable (T.Element) -> U?) -> Guarantee<[U]> {
        Guarantee<[U]>(promise: promise.compactMapValues(on: dispatcher(queue, flags), transform))
    }

    /// Each value turned into a guarantee, all of them awaited.
    @inlinable
    public func thenMap<U>(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                           _ transform: @escaping @Sendable (T.Element) -> Guarantee<U>) -> Guarantee<[U]> {
        Guarantee<[U]>(promise: promise.thenMap(on: dispatcher(queue, flags)) { transform($0).promise })
    }

    /// `thenMap` whose guarantees hold sequences, joined.
    @inlinable
    public func thenFlatMap<S: Sequence & Sendable>(on queue: DispatchQueue? = .vowDefault,
                                                    flags: DispatchWorkItemFlags? = nil,
                                                    _ transform: @escaping @Sendable (T.Element) -> Guarantee<S>)
        -> Guarantee<[S.Element]> where S.Element: Sendable {
        Guarantee<[S.Element]>(promise: promise.thenFlatMap(on: dispatcher(queue, flags)) { transform($0).promise })
    }

    /// The values for which `isIncluded` holds.
    @inlinable
    public func filterValues(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                             _ isIncluded: @escaping @Sendable (T.Element) -> Bool) -> Guarantee<[T.Element]> {
        Guarantee<[T.Element]>(promise: promise.filterValues(on: dispatcher(queue, flags), isIncluded))
    }

    /// The values in the order `areInIncreasingOrder` gives.
    @inlinable
    public func sortedValues(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil,
                             _ areInIncreasingOrder: @escaping @Sendable (T.Element, T.Element) -> Bool)
        -> Guarantee<[T.Element]> {
        Guarantee<[T.Element]>(promise: promise.sortedValues(on: dispatcher(queue, flags), by: areInIncreasingOrder))
    }
}

extension Guarantee where T: Sequence, T.Element: Sendable & Comparable {
    /// The values in increasing order.
    @inlinable
    public func sortedValues(on queue: DispatchQueue? = .vowDefault, flags: DispatchWorkItemFlags? = nil)
        -> Guarantee<[T.Element]> {
        Guarantee<[T.Element]>(promise: promise.sortedValues(on: dispatcher(queue, flags)))
    }
}
