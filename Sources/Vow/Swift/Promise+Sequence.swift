// PromiseKit's helpers on a promise of a sequence (`mapValues`, `thenMap`, `firstValue`, ...)
// and `compactMap`, with PromiseKit's names and meaning. Each is one `then` (one link on this
// promise, see Promise+Chain.swift): the closure runs once, on `dispatcher`, with the whole
// sequence; a throw from it rejects the returned promise; a rejection passes through without
// calling it. `thenMap` and `thenFlatMap` then wait for the promises it made, with
// `when(fulfilled:)`.

extension Promise where T: Sequence, T.Element: Sendable {
    /// The values transformed one by one (PromiseKit's `mapValues`).
    public func mapValues<U>(on dispatcher: any Dispatcher = .default,
                             file: StaticString = #fileID, line: UInt = #line,
                             _ transform: @escaping @Sendable (T.Element) throws -> U) -> Promise<[U]> {
        then(on: dispatcher, file: file, line: line) { values in try values.map(transform) }
    }

    /// Each value transformed into a sequence, the sequences joined (PromiseKit's
    /// `flatMapValues`).
    public func flatMapValues<S: Sequence & Sendable>(on dispatcher: any Dispatcher = .default,
                                           file: StaticString = #fileID, line: UInt = #line,
                                           _ transform: @escaping @Sendable (T.Element) throws -> S)
        -> Promise<[S.Element]> where S.Element: Sendable {
        then(on: dispatcher, file: file, line: line) { values in try values.flatMap(transform) }
    }

    /// The values transformed, the nils dropped (PromiseKit's `compactMapValues`).
    public func compactMapValues<U>(on dispatcher: any Dispatcher = .default,
                                    file: StaticString = #fileID, line: UInt = #line,
                                    _ transform: @escaping @Sendable (T.Element) throws -> U?) -> Promise<[U]> {
        then(on: dispatcher, file: file, line: line) { values in try values.compactMap(transform) }
    }

    /// Each value turned into a promise, then all of them awaited (PromiseKit's `thenMap`):
    /// fulfils with their values in order, or rejects with the first rejection's error, as
    /// `when(fulfilled:)`. `transform` is called for every value first (all the promises
    /// exist at once; for a bound, use `when(fulfilled:concurrently:)`).
    public func thenMap<U>(on dispatcher: any Dispatcher = .default,
                           file: StaticString = #fileID, line: UInt = #line,
                           _ transform: @escaping @Sendable (T.Element) throws -> Promise<U>) -> Promise<[U]> {
        then(on: dispatcher, file: file, line: line) { values in
            when(fulfilled: try values.map(transform), file: file, line: line)
        }
    }

    /// `thenMap` whose promises hold sequences: the sequences joined in order (PromiseKit's
    /// `thenFlatMap`).
    public func thenFlatMap<S: Sequence & Sendable>(on dispatcher: any Dispatcher = .default,
                                                    file: StaticString = #fileID, line: UInt = #line,
                                                    _ transform: @escaping @Sendable (T.Element) throws -> Promise<S>)
        -> Promise<[S.Element]> where S.Element: Sendable {
        thenMap(on: dispatcher, file: file, line: line, transform).map(on: .inline, file: file, line: line) {
            $0.flatMap { $0 }
        }
    }

    /// The values for which `isIncluded` holds (PromiseKit's `filterValues`).
    public func filterValues(on dispatcher: any Dispatcher = .default,
                             file: StaticString = #fileID, line: UInt = #line,
                             _ isIncluded: @escaping @Sendable (T.Element) throws -> Bool) -> Promise<[T.Element]> {
        then(on: dispatcher, file: file, line: line) { values in try values.filter(isIncluded) }
    }

    /// The values combined into one, from `initialResult` (PromiseKit's `reduce`).
    public func reduce<U>(on dispatcher: any Dispatcher = .default,
                          file: StaticString = #fileID, line: UInt = #line,
                          _ initialResult: U,
                          _ nextPartialResult: @escaping @Sendable (U, T.Element) throws -> U) -> Promise<U> {
        then(on: dispatcher, file: file, line: line) { values in try values.reduce(initialResult, nextPartialResult) }
    }

    /// The values in the order `areInIncreasingOrder` gives (PromiseKit's
    /// `sortedValues(_:)`; `sortedValues { $0 > $1 }` reads the same in both). A throw
    /// from `areInIncreasingOrder` rejects the returned promise.
    public func sortedValues(on dispatcher: any Dispatcher = .default,
                             file: StaticString = #fileID, line: UInt = #line,
                             by areInIncreasingOrder: @escaping @Sendable (T.Element, T.Element) throws -> Bool)
        -> Promise<[T.Element]> {
        then(on: dispatcher, file: file, line: line) { values in try values.sorted(by: areInIncreasingOrder) }
    }

    /// The first value for which `test` holds (PromiseKit's `firstValue(where:)`); none
    /// rejects with `VowError.Code.empty`.
    public func firstValue(on dispatcher: any Dispatcher = .default,
                           file: StaticString = #fileID, line: UInt = #line,
                           where test: @escaping @Sendable (T.Element) throws -> Bool) -> Promise<T.Element> {
        value(on: dispatcher, file: file, line: line, pickedBy: { try $0.first(where: test) },
              orElse: "firstValue(where:): no value of the sequence satisfied the test")
    }

    /// The value `pick` finds among the values (`firstValue(where:)`, `lastValue(where:)`);
    /// none rejects with `VowError.Code.empty` and `emptyMessage`.
    func value(on dispatcher: any Dispatcher, file: StaticString, line: UInt,
               pickedBy pick: @escaping @Sendable (T) throws -> T.Element?,
               orElse emptyMessage: String) -> Promise<T.Element> {
        then(on: dispatcher, file: file, line: line) { values in
            guard let found = try pick(values) else { throw VowError(.empty, emptyMessage) }
            return found
        }
    }

    /// The first value (PromiseKit's `firstValue`); an empty sequence rejects with
    /// `VowError.Code.empty`. It runs no code of yours, so it takes the value where the
    /// promise settles (`.inline`); in debug mode it is recorded with this promise's site.
    public var firstValue: Promise<T.Element> {
        Promise<T.Element>(core: core.link(on: .inline, MapBody<T, T.Element> { values in
            var iterator = values.makeIterator()
            guard let first = iterator.next() else { throw VowError(.empty, "firstValue: the sequence is empty") }
            return first
        }, at: .sameAsSource))
    }
}

extension Promise where T: Sequence, T.Element: Sendable & Comparable {
    /// The values in increasing order (PromiseKit's `sortedValues`).
    public func sortedValues(on dispatcher: any Dispatcher = .default,
                             file: StaticString = #fileID, line: UInt = #line) -> Promise<[T.Element]> {
        then(on: dispatcher, file: file, line: line) { values in values.sorted() }
    }
}

extension Promise where T: BidirectionalCollection, T.Element: Sendable {
    /// The last value (PromiseKit's `lastValue`); an empty collection rejects with
    /// `VowError.Code.empty`. Taken inline, like `firstValue`.
    public var lastValue: Promise<T.Element> {
        Promise<T.Element>(core: core.link(on: .inline, MapBody<T, T.Element> { values in
            guard let last = values.last else { throw VowError(.empty, "lastValue: the collection is empty") }
            return last
        }, at: .sameAsSource))
    }

    /// The last value for which `test` holds; none rejects with `VowError.Code.empty`.
    public func lastValue(on dispatcher: any Dispatcher = .default,
                          file: StaticString = #fileID, line: UInt = #line,
                          where test: @escaping @Sendable (T.Element) throws -> Bool) -> Promise<T.Element> {
        value(on: dispatcher, file: file, line: line, pickedBy: { try $0.last(where: test) },
              orElse: "lastValue(where:): no value of the collection satisfied the test")
    }
}

extension Promise {
    /// The value transformed into an optional (PromiseKit's `compactMap`): `nil` rejects
    /// with a `VowError` of domain `"vow.compactMap"`, code 1, whose message names the value
    /// and the expected type and whose payload is the value.
    public func compactMap<U>(on dispatcher: any Dispatcher = .default,
                              file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping @Sendable (T) throws -> U?) -> Promise<U> {
        then(on: dispatcher, file: file, line: line) { value -> U in
            guard let mapped = try transform(value) else {
                throw VowError(domain: "vow.compactMap", code: 1,
                               message: "compactMap's transform returned nil for \(value) (expected a \(U.self))",
                               payload: value)
            }
            return mapped
        }
    }
}
