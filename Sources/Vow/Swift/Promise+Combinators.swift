/// Shared state of a combinator waiting on many promises.
final class Gather: @unchecked Sendable {
    // @unchecked: `slots` and `remaining` are only touched under `lock`.
    let lock = VowLock()
    var slots: [Any]
    var remaining: Int

    init(count: Int) {
        slots = Array(repeating: (), count: count)
        remaining = count
    }

    /// Stores one slot; returns the full array when it was the last one missing.
    func store(_ value: Any, at index: Int) -> [Any]? {
        lock.lock()
        defer { lock.unlock() }
        slots[index] = value
        remaining -= 1
        return remaining == 0 ? slots : nil
    }
}

extension Core {
    /// `when(fulfilled:)` on untyped cores: fulfils with the values in input order; the
    /// first rejection wins with that same error; no inputs fulfils with `[]`.
    static func all(_ inputs: [Core]) -> Core {
        guard !inputs.isEmpty else { return Core(fulfilled: [Any]()) }
        let result = Core(dependingOnAll: inputs)
        let gather = Gather(count: inputs.count)
        for (index, input) in inputs.enumerated() {
            input.attach(Handler(dispatcher: InlineDispatcher.shared, dependent: result, kind: .link) { outcome in
                switch outcome {
                case .fulfilled(let value):
                    if let values = gather.store(value, at: index) { result.settle(.fulfilled(values)) }
                case .rejected:
                    result.settle(outcome)
                }
            })
        }
        return result
    }

    /// `when(resolved:)` / `vow_join`: never rejects; fulfils with one `Outcome` per input,
    /// in input order, once all have settled.
    static func allSettled(_ inputs: [Core]) -> Core {
        guard !inputs.isEmpty else { return Core(fulfilled: [Outcome]()) }
        let result = Core(dependingOnAll: inputs)
        let gather = Gather(count: inputs.count)
        for (index, input) in inputs.enumerated() {
            input.attach(Handler(dispatcher: InlineDispatcher.shared, dependent: result, kind: .link) { outcome in
                if let outcomes = gather.store(outcome, at: index) {
                    result.settle(.fulfilled(outcomes.map { $0 as! Outcome }))
                }
            })
        }
        return result
    }

    /// `race`: settles like the first input to settle; then the others are released
    /// (cancelled under the upstream rule). No inputs rejects with `VowError.Code.empty`.
    /// With `fulfilmentOnly` (`any`), rejections are skipped until all inputs rejected,
    /// and then the last error wins.
    static func race(_ inputs: [Core], fulfilmentOnly: Bool = false) -> Core {
        guard !inputs.isEmpty else {
            return Core(rejected: VowError(.empty, fulfilmentOnly ? "any() over no promises" : "race over no promises"))
        }
        let result = Core(dependingOnAll: inputs)
        let gather = Gather(count: inputs.count)
        for (index, input) in inputs.enumerated() {
            input.attach(Handler(dispatcher: InlineDispatcher.shared, dependent: result, kind: .link) { outcome in
                if fulfilmentOnly, case .rejected = outcome {
                    if gather.store((), at: index) != nil { result.settle(outcome) }
                    return
                }
                if result.settle(outcome) {
                    result.releaseUpstreams(inputs)
                }
            })
        }
        return result
    }
}

/// Waits for every promise to fulfil: fulfils with their values in input order. The first
/// rejection rejects the result with that same error (the other inputs keep running).
/// No promises: fulfils with `[]`.
public func when<T>(fulfilled promises: [Promise<T>]) -> Promise<[T]> {
    let all = Core.all(promises.map(\.core))
    return Promise<[Any]>(core: all).then(on: .inline) { values in
        try values.map { try castValue($0, to: T.self).get() }
    }
}

/// Variadic `when(fulfilled:)`.
public func when<T>(fulfilled promises: Promise<T>...) -> Promise<[T]> {
    when(fulfilled: promises)
}

/// Waits for every promise to settle; never rejects. Each rejection counts as handled.
public func when<T>(resolved promises: [Promise<T>]) -> Promise<[Result<T, any Error>]> {
    let all = Core.allSettled(promises.map(\.core))
    return Promise<[Outcome]>(core: all).then(on: .inline) { outcomes in
        outcomes.map { outcome -> Result<T, any Error> in
            switch outcome {
            case .fulfilled(let value): return castValue(value, to: T.self)
            case .rejected(let error): return .failure(unboxError(error))
            }
        }
    }
}

/// Variadic `when(resolved:)`.
public func when<T>(resolved promises: Promise<T>...) -> Promise<[Result<T, any Error>]> {
    when(resolved: promises)
}

/// Settles like the first promise to settle. Once settled, the others are cancelled, each
/// only if nothing else still waits on it. No promises: rejects with `VowError.Code.empty`.
public func race<T>(_ promises: [Promise<T>]) -> Promise<T> {
    Promise(core: Core.race(promises.map(\.core)))
}

/// Variadic `race`.
public func race<T>(_ promises: Promise<T>...) -> Promise<T> {
    race(promises)
}

/// Fulfils with the first value any promise fulfils with (then cancels the others, under
/// the upstream rule); rejects with the last error if all reject; no promises rejects with
/// `VowError.Code.empty`.
public func any<T>(_ promises: [Promise<T>]) -> Promise<T> {
    Promise(core: Core.race(promises.map(\.core), fulfilmentOnly: true))
}

/// Variadic `any`.
public func any<T>(_ promises: Promise<T>...) -> Promise<T> {
    any(promises)
}

// MARK: Tuples

/// Waits for two promises of different types.
public func when<A, B>(fulfilled a: Promise<A>, _ b: Promise<B>) -> Promise<(A, B)> {
    Promise<[Any]>(core: Core.all([a.core, b.core])).then(on: .inline) { v in
        (try castValue(v[0], to: A.self).get(), try castValue(v[1], to: B.self).get())
    }
}

/// Waits for three promises of different types.
public func when<A, B, C>(fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>) -> Promise<(A, B, C)> {
    Promise<[Any]>(core: Core.all([a.core, b.core, c.core])).then(on: .inline) { v in
        (try castValue(v[0], to: A.self).get(), try castValue(v[1], to: B.self).get(),
         try castValue(v[2], to: C.self).get())
    }
}

/// Waits for four promises of different types.
public func when<A, B, C, D>(fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>,
                             _ d: Promise<D>) -> Promise<(A, B, C, D)> {
    Promise<[Any]>(core: Core.all([a.core, b.core, c.core, d.core])).then(on: .inline) { v in
        (try castValue(v[0], to: A.self).get(), try castValue(v[1], to: B.self).get(),
         try castValue(v[2], to: C.self).get(), try castValue(v[3], to: D.self).get())
    }
}

/// Waits for five promises of different types.
public func when<A, B, C, D, E>(fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>,
                                _ d: Promise<D>, _ e: Promise<E>) -> Promise<(A, B, C, D, E)> {
    Promise<[Any]>(core: Core.all([a.core, b.core, c.core, d.core, e.core])).then(on: .inline) { v in
        (try castValue(v[0], to: A.self).get(), try castValue(v[1], to: B.self).get(),
         try castValue(v[2], to: C.self).get(), try castValue(v[3], to: D.self).get(),
         try castValue(v[4], to: E.self).get())
    }
}

/// Pairs the values of two promises (`when(fulfilled:_:)` under its functional name).
public func zip<A, B>(_ a: Promise<A>, _ b: Promise<B>) -> Promise<(A, B)> {
    when(fulfilled: a, b)
}

/// Combines the values of three promises.
public func zip<A, B, C>(_ a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>) -> Promise<(A, B, C)> {
    when(fulfilled: a, b, c)
}
