import Dispatch

// PromiseKit's free functions: `after`, `firstly`, `hang`, `race`, `when`. Each is Vow's
// combinator of the same meaning (Vow's rules: what they reject with is Vow's error, see
// `PMKError`); the forms here are those whose argument or result types Vow's own do not
// have (`Guarantee`s, `DispatchTimeInterval`, PromiseKit's `Result`, `Void`).

/// A guarantee fulfilled after `seconds` (PromiseKit's `after(seconds:)`, which returns a
/// `Guarantee`; Vow's returns a `Promise`). Vow's time rule: zero, negative and NaN mean
/// now, +infinity never.
public func after(seconds: Double) -> Guarantee<Void> {
    Guarantee(promise: Vow.after(seconds: seconds))
}

/// A guarantee fulfilled after `interval` (`.milliseconds(n)`, `.seconds(n)`, ...;
/// `.never` never).
public func after(_ interval: DispatchTimeInterval) -> Guarantee<Void> {
    Guarantee(promise: Vow.after(seconds: interval.seconds))
}

extension DispatchTimeInterval {
    /// The interval in seconds (`.never`: +infinity).
    var seconds: Double {
        switch self {
        case .seconds(let n): return Double(n)
        case .milliseconds(let n): return Double(n) / 1_000
        case .microseconds(let n): return Double(n) / 1_000_000
        case .nanoseconds(let n): return Double(n) / 1_000_000_000
        case .never: return .infinity
        @unknown default: return .infinity
        }
    }
}

/// PromiseKit's `firstly(execute:)` over a guarantee.
public func firstly<T>(execute body: () -> Guarantee<T>) -> Guarantee<T> {
    body()
}

/// PromiseKit's `firstly(execute:)`: `body`'s thenable, as a promise; a throw rejects it.
/// (`firstly { … }` without the label is Vow's, the same.)
@_disfavoredOverload
public func firstly<U: Thenable>(file: StaticString = #fileID, line: UInt = #line,
                                 execute body: () throws -> U) -> Promise<U.T> {
    do {
        return try body().asPromise()
    } catch {
        return Promise(error: error, file: file, line: line)
    }
}

/// Waits for `promise` and returns its value or throws its error (PromiseKit's `hang`).
///
/// Blocks the calling thread, as `wait()` does, with its deadlock detection. PromiseKit's
/// ran the main run loop meanwhile, so work queued on `DispatchQueue.main` could run; Vow
/// needs no main queue (its default is its own queue), but a chain you sent to
/// `DispatchQueue.main` cannot finish while `hang` blocks the main thread.
public func hang<T>(_ promise: Promise<T>) throws -> T {
    try promise.wait()
}

// MARK: race

/// Settles like the first guarantee to settle.
public func race<T>(_ guarantees: Guarantee<T>...) -> Guarantee<T> {
    Guarantee(promise: Vow.race(guarantees.map(\.promise)))
}

/// Fulfils with the first value (PromiseKit's `race(fulfilled:)`: Vow's `any`). Every input
/// rejected: the error of the one that rejected last (PromiseKit: `PMKError.noWinner`); no
/// inputs: `VowError.Code.empty` (PromiseKit: `PMKError.badInput`).
public func race<T>(fulfilled promises: [Promise<T>], file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
    Vow.any(promises, file: file, line: line)
}

/// `race(fulfilled:)` over guarantees (the first to be fulfilled).
public func race<T>(fulfilled guarantees: [Guarantee<T>]) -> Promise<T> {
    Vow.any(guarantees.map(\.promise))
}

/// `race` over any thenables (PromiseKit's generic form; for promises, Vow's `race`).
@_disfavoredOverload
public func race<U: Thenable>(_ thenables: [U]) -> Promise<U.T> {
    Vow.race(thenables.map { $0.asPromise() })
}

// MARK: when

/// Waits for promises of `Void` (PromiseKit's `Void` form: a `Promise<Void>`, not
/// `Promise<[Void]>`).
public func when(fulfilled promises: [Promise<Void>], file: StaticString = #fileID, line: UInt = #line) -> Promise<Void> {
    Vow.when(fulfilled: promises, file: file, line: line).asVoid(file: file, line: line)
}

/// Waits for promises of `Void`, variadic.
public func when(fulfilled promises: Promise<Void>..., file: StaticString = #fileID, line: UInt = #line) -> Promise<Void> {
    when(fulfilled: promises as [Promise<Void>], file: file, line: line)
}

/// Waits for every promise to settle (never rejects), with PromiseKit's `Result`s, as a
/// `Guarantee`. Each rejection counts as handled.
public func when<T>(resolved promises: [Promise<T>]) -> Guarantee<[Result<T>]> {
    Guarantee(promise: Vow.when(resolved: promises).map(on: .inline) { $0.map(Result.init) })
}

/// `when(resolved:)`, variadic.
public func when<T>(resolved promises: Promise<T>...) -> Guarantee<[Result<T>]> {
    when(resolved: promises as [Promise<T>])
}

/// The bounded `when(resolved:)` with PromiseKit's `Result`s, as a `Guarantee` (the
/// iterator is consumed: Vow's `when(resolved:concurrently:)`).
public func when<It: IteratorProtocol, T>(resolved iterator: sending It, concurrently: Int) -> Guarantee<[Result<T>]>
    where It.Element == Promise<T> {
    Guarantee(promise: Vow.when(resolved: iterator, concurrently: concurrently).map(on: .inline) { $0.map(Result.init) })
}

/// Waits for guarantees: their values, in order. A `Promise`, as PromiseKit's generic
/// `when(fulfilled:)` over thenables gives (so `catch` and `recover` may follow);
/// `when(guarantees:)` gives a `Guarantee`.
public func when<T>(fulfilled guarantees: [Guarantee<T>]) -> Promise<[T]> {
    Vow.when(fulfilled: guarantees.map(\.promise))
}

/// Waits for guarantees of `Void`.
public func when(guarantees: [Guarantee<Void>]) -> Guarantee<Void> {
    Guarantee(promise: Vow.when(fulfilled: guarantees.map(\.promise)).asVoid())
}

/// Waits for guarantees of `Void`, variadic.
public func when(_ guarantees: Guarantee<Void>...) -> Guarantee<Void> {
    when(guarantees: guarantees as [Guarantee<Void>])
}

/// Waits for two guarantees.
public func when<A, B>(guarantees a: Guarantee<A>, _ b: Guarantee<B>) -> Guarantee<(A, B)> {
    Guarantee(promise: Vow.when(fulfilled: a.promise, b.promise))
}

/// Waits for three guarantees.
public func when<A, B, C>(guarantees a: Guarantee<A>, _ b: Guarantee<B>, _ c: Guarantee<C>) -> Guarantee<(A, B, C)> {
    Guarantee(promise: Vow.when(fulfilled: a.promise, b.promise, c.promise))
}

/// Waits for two thenables of any kind (a promise and a guarantee, say).
@_disfavoredOverload
public func when<U: Thenable, V: Thenable>(fulfilled u: U, _ v: V) -> Promise<(U.T, V.T)> {
    Vow.when(fulfilled: u.asPromise(), v.asPromise())
}

/// Waits for three thenables of any kind.
@_disfavoredOverload
public func when<U: Thenable, V: Thenable, W: Thenable>(fulfilled u: U, _ v: V, _ w: W) -> Promise<(U.T, V.T, W.T)> {
    Vow.when(fulfilled: u.asPromise(), v.asPromise(), w.asPromise())
}

/// Waits for four thenables of any kind.
@_disfavoredOverload
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable>(fulfilled u: U, _ v: V, _ w: W, _ x: X)
    -> Promise<(U.T, V.T, W.T, X.T)> {
    Vow.when(fulfilled: u.asPromise(), v.asPromise(), w.asPromise(), x.asPromise())
}

/// Waits for five thenables of any kind.
@_disfavoredOverload
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable, Y: Thenable>(
    fulfilled u: U, _ v: V, _ w: W, _ x: X, _ y: Y) -> Promise<(U.T, V.T, W.T, X.T, Y.T)> {
    Vow.when(fulfilled: u.asPromise(), v.asPromise(), w.asPromise(), x.asPromise(), y.asPromise())
}

// MARK: DispatchQueue.async(.promise)

/// PromiseKit's marker for its extensions of other types (`queue.async(.promise) { }`,
/// and in the extension libraries `dataTask(.promise, with:)`, `launch(.promise)`): a
/// method that takes it as its first argument returns a promise.
public enum PMKNamespacer: Sendable {
    /// The marker's one value: `queue.async(.promise) { }` returns a promise of the body's
    /// result (a `Guarantee` for a body that cannot throw) where `queue.async { }` returns
    /// nothing.
    case promise
}

extension DispatchQueue {
    /// Runs `body` on this queue and returns a guarantee of its result (PromiseKit's
    /// `async(.promise)` with a closure that cannot throw). `group`, `qos` and `flags` are
    /// honoured, as `async(group:qos:flags:execute:)` does.
    @discardableResult
    public final func async<T: Sendable>(_: PMKNamespacer, group: DispatchGroup? = nil, qos: DispatchQoS = .default,
                                         flags: DispatchWorkItemFlags = [],
                                         execute body: @escaping @Sendable () -> T) -> Guarantee<T> {
        Guarantee(promise: Promise(on: submitter(group: group, qos: qos, flags: flags), work: body))
    }

    /// Runs `body` on this queue and returns a promise of its result; a throw rejects it.
    @discardableResult
    public final func async<T: Sendable>(_: PMKNamespacer, group: DispatchGroup? = nil, qos: DispatchQoS = .default,
                                         flags: DispatchWorkItemFlags = [],
                                         execute body: @escaping @Sendable () throws -> T) -> Promise<T> {
        Promise(on: submitter(group: group, qos: qos, flags: flags), work: body)
    }

    /// This queue, or this queue with the options `async` was given.
    private func submitter(group: DispatchGroup?, qos: DispatchQoS, flags: DispatchWorkItemFlags) -> any Dispatcher {
        if group == nil, qos == .default, flags.isEmpty { return self }
        return QueueWithOptions(self, flags: flags, qos: qos, group: group)
    }
}
