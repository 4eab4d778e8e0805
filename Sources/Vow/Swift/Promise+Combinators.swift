// Combinators of the typed face, on the engine's `Core.all` / `allSettled` / `race`: the
// values are gathered typed, in input order, once every input has settled. Each takes the
// caller's `#fileID` and `#line`: in debug mode the result is recorded as made there (the
// first promise of a new chain).

/// Waits for every promise to fulfil: fulfils with their values in input order. The first
/// rejection rejects the result with that same error (the other inputs keep running).
/// No promises: fulfils with `[]`.
/// (Inlinable: specialized for `T` where it is called, gathering the inputs and their
/// values costs no generic lookups per input.)
@inlinable
public func when<T>(fulfilled promises: [Promise<T>],
                    file: StaticString = #fileID, line: UInt = #line) -> Promise<[T]> {
    Promise(core: Core.all(promises.map { $0.core }) { inputs in
        StoredValue(try inputs.map { try $0.typedValue(T.self) })
    }.made(at: .source(file, line)))
}

/// Variadic `when(fulfilled:)`. Disfavoured against the tuple forms: two to five
/// promises of one type give a tuple, as in PromiseKit (three were ambiguous).
@_disfavoredOverload
public func when<T>(fulfilled promises: Promise<T>...,
                    file: StaticString = #fileID, line: UInt = #line) -> Promise<[T]> {
    when(fulfilled: promises, file: file, line: line)
}

/// Waits for every promise to settle; never rejects. Each rejection counts as handled.
/// (Inlinable, as `when(fulfilled:)`.)
@inlinable
public func when<T>(resolved promises: [Promise<T>],
                    file: StaticString = #fileID, line: UInt = #line) -> Promise<[Result<T, any Error>]> {
    Promise(core: Core.allSettled(promises.map { $0.core }) { inputs in
        StoredValue(inputs.map { input -> Result<T, any Error> in
            if let error = input.error { return .failure(unboxError(error)) }
            return Result { try input.typedValue(T.self) }
        })
    }.made(at: .source(file, line)))
}

/// Variadic `when(resolved:)`.
public func when<T>(resolved promises: Promise<T>...,
                    file: StaticString = #fileID, line: UInt = #line) -> Promise<[Result<T, any Error>]> {
    when(resolved: promises, file: file, line: line)
}

/// Settles like the first promise to settle. Once settled, the others are cancelled, each
/// only if nothing else still waits on it. No promises: rejects with `VowError.Code.empty`.
public func race<T>(_ promises: [Promise<T>],
                    file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
    Promise(core: Core.race(promises.map(\.core), emptyError: VowError(.empty, "race over no promises"))
        .made(at: .source(file, line)))
}

/// Variadic `race`.
public func race<T>(_ promises: Promise<T>...,
                    file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
    race(promises, file: file, line: line)
}

/// Fulfils with the first value any promise fulfils with (then cancels the others, under
/// the upstream rule). If all reject, rejects with the error of the one that rejected last
/// (that same error: PromiseKit's `race(fulfilled:)` rejects with `PMKError.noWinner`
/// instead); the other rejections count as handled. No promises rejects with
/// `VowError.Code.empty`. C: `vow_any`, the same rule.
public func any<T>(_ promises: [Promise<T>],
                   file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
    Promise(core: Core.race(promises.map(\.core), fulfilmentOnly: true,
                            emptyError: VowError(.empty, "any() over no promises")).made(at: .source(file, line)))
}

/// Variadic `any`.
public func any<T>(_ promises: Promise<T>...,
                   file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
    any(promises, file: file, line: line)
}

// MARK: Tuples

// (Inlinable, as `when(fulfilled:)`: specialized where called, the gathered tuple is made
// without generic lookups.)

/// Waits for two promises of different types.
@inlinable
public func when<A, B>(fulfilled a: Promise<A>, _ b: Promise<B>,
                       file: StaticString = #fileID, line: UInt = #line) -> Promise<(A, B)> {
    Promise(core: Core.all([a.core, b.core]) { v in
        StoredValue((try v[0].typedValue(A.self), try v[1].typedValue(B.self)))
    }.made(at: .source(file, line)))
}

/// Waits for three promises of different types.
@inlinable
public func when<A, B, C>(fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>,
                          file: StaticString = #fileID, line: UInt = #line) -> Promise<(A, B, C)> {
    Promise(core: Core.all([a.core, b.core, c.core]) { v in
        StoredValue((try v[0].typedValue(A.self), try v[1].typedValue(B.self), try v[2].typedValue(C.self)))
    }.made(at: .source(file, line)))
}

/// Waits for four promises of different types.
@inlinable
public func when<A, B, C, D>(fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>,
                             _ d: Promise<D>,
                             file: StaticString = #fileID, line: UInt = #line) -> Promise<(A, B, C, D)> {
    Promise(core: Core.all([a.core, b.core, c.core, d.core]) { v in
        StoredValue((try v[0].typedValue(A.self), try v[1].typedValue(B.self),
                     try v[2].typedValue(C.self), try v[3].typedValue(D.self)))
    }.made(at: .source(file, line)))
}

/// Waits for five promises of different types.
@inlinable
public func when<A, B, C, D, E>(fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>,
                                _ d: Promise<D>, _ e: Promise<E>,
                                file: StaticString = #fileID, line: UInt = #line) -> Promise<(A, B, C, D, E)> {
    Promise(core: Core.all([a.core, b.core, c.core, d.core, e.core]) { v in
        StoredValue((try v[0].typedValue(A.self), try v[1].typedValue(B.self), try v[2].typedValue(C.self),
                     try v[3].typedValue(D.self), try v[4].typedValue(E.self)))
    }.made(at: .source(file, line)))
}

/// Pairs the values of two promises (`when(fulfilled:_:)` under its functional name).
public func zip<A, B>(_ a: Promise<A>, _ b: Promise<B>,
                      file: StaticString = #fileID, line: UInt = #line) -> Promise<(A, B)> {
    when(fulfilled: a, b, file: file, line: line)
}

/// Combines the values of three promises.
public func zip<A, B, C>(_ a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>,
                         file: StaticString = #fileID, line: UInt = #line) -> Promise<(A, B, C)> {
    when(fulfilled: a, b, c, file: file, line: line)
}
