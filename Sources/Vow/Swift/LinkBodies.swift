// The link bodies of the typed face: what each chaining operator does when its source has
// settled, on the link primitive of the engine (`Core.link(on:_:)`). Each body holds the
// user's closure directly (the link object is the only allocation of a link) and lets go
// of it in `dispose()`, which the engine calls once.
//
// These run through the engine's generic link code, so they read values with
// `Core.typedValue` (no `Optional<T>` or `Result<T, _>` of a generic type on the common
// path: generic code would look their metadata up on every call).

/// `then { T -> U }` (map): the value transformed; a rejection passes through.
@usableFromInline
struct MapBody<T: Sendable, U: Sendable>: LinkBody {
    @usableFromInline var transform: (@Sendable (T) throws -> U)?

    @inlinable
    init(_ transform: @escaping @Sendable (T) throws -> U) { self.transform = transform }

    @usableFromInline
    func run(from source: Core?, settling link: Core) {
        guard let source, let transform else { return }
        if source.isRejected {
            link.settle(like: source)
            return
        }
        do {
            link.fulfil(try transform(try source.typedValue(T.self)))
        } catch {
            link.reject(error)
        }
    }

    @inlinable
    mutating func dispose() { transform = nil }
}

/// `Promise(on:work:)`: `work`'s result, on a link of `Core.settledVoid` (so the promise
/// is one link: it never runs if cancelled first, and is cancelled if its dispatcher
/// drops it).
@usableFromInline
struct WorkBody<U: Sendable>: LinkBody {
    @usableFromInline var work: (@Sendable () throws -> U)?

    @inlinable
    init(_ work: @escaping @Sendable () throws -> U) { self.work = work }

    @usableFromInline
    func run(from source: Core?, settling link: Core) {
        guard source != nil, let work else { return }
        do {
            link.fulfil(try work())
        } catch {
            link.reject(error)
        }
    }

    @inlinable
    mutating func dispose() { work = nil }
}

extension Core {
    /// A promise fulfilled with `()`, shared: the source of `Promise(on:work:)`'s links.
    @usableFromInline static let settledVoid = Core(fulfilled: ())
}

/// `then { T -> Promise<U> }` (flatMap): the link adopts the returned promise.
@usableFromInline
struct AdoptBody<T: Sendable, U: Sendable>: LinkBody {
    @usableFromInline var transform: (@Sendable (T) throws -> Promise<U>)?

    @inlinable
    init(_ transform: @escaping @Sendable (T) throws -> Promise<U>) { self.transform = transform }

    @usableFromInline
    func run(from source: Core?, settling link: Core) {
        guard let source, let transform else { return }
        if source.isRejected {
            link.settle(like: source)
            return
        }
        do {
            link.follow(try transform(try source.typedValue(T.self)).core)
        } catch {
            link.reject(error)
        }
    }

    @inlinable
    mutating func dispose() { transform = nil }
}

/// `recover { Error -> Promise<T> }` and `recover { Error -> T }`: a fulfilment passes
/// through; a rejection goes to the body (cancellation included, unless the policy of
/// `recover(policy:)` skips it: then it passes through).
@usableFromInline
struct RecoverBody<T: Sendable>: LinkBody {
    @usableFromInline enum Handler {
        case promise(@Sendable (any Error) throws -> Promise<T>)
        case value(@Sendable (any Error) throws -> T)
    }
    @usableFromInline var handler: Handler?
    @usableFromInline let policy: CatchPolicy

    @inlinable
    init(_ handler: Handler, policy: CatchPolicy = .allErrors) {
        self.handler = handler
        self.policy = policy
    }

    @usableFromInline
    func run(from source: Core?, settling link: Core) {
        guard let source, let handler else { return }
        guard let error = source.error else {
            link.settle(like: source)
            return
        }
        if policy.passesThrough(error) {
            link.settle(like: source)
            return
        }
        do {
            switch handler {
            case .promise(let body): link.follow(try body(unboxError(error)).core)
            case .value(let body): link.fulfil(try body(unboxError(error)))
            }
        } catch {
            link.reject(error)
        }
    }

    @inlinable
    mutating func dispose() { handler = nil }
}

/// `catch(policy:) { Error -> Void }`: fulfils with `()` when the source fulfilled or the
/// body ran; a cancellation the policy skips passes through.
@usableFromInline
struct CatchBody: LinkBody {
    @usableFromInline var body: (@Sendable (any Error) throws -> Void)?
    @usableFromInline let policy: CatchPolicy

    @inlinable
    init(_ policy: CatchPolicy, _ body: @escaping @Sendable (any Error) throws -> Void) {
        self.policy = policy
        self.body = body
    }

    @usableFromInline
    func run(from source: Core?, settling link: Core) {
        guard let source, let body else { return }
        guard let error = source.error else {
            link.fulfil(())
            return
        }
        if policy.passesThrough(error) {
            link.settle(like: source)
            return
        }
        link.settle { try body(unboxError(error)) }
    }

    @inlinable
    mutating func dispose() { body = nil }
}

/// `tap { Result<T, Error> -> Void }`: sees the outcome, passes it on unchanged.
@usableFromInline
struct TapBody<T>: LinkBody {
    @usableFromInline var body: (@Sendable (Result<T, any Error>) -> Void)?

    @inlinable
    init(_ body: @escaping @Sendable (Result<T, any Error>) -> Void) { self.body = body }

    @usableFromInline
    func run(from source: Core?, settling link: Core) {
        guard let source, let body else { return }
        if let error = source.error {
            body(.failure(unboxError(error)))
        } else {
            body(Result { try source.typedValue(T.self) })
        }
        link.settle(like: source)
    }

    @inlinable
    mutating func dispose() { body = nil }
}

/// `then { T -> some Thenable }`: the link assimilates what the body returns (the
/// resolution procedure: a promise is adopted, a thenable's `then` called once).
@usableFromInline
struct ProcedureBody<T>: LinkBody {
    @usableFromInline var body: (@Sendable (T) throws -> Any)?

    @inlinable
    init(_ body: @escaping @Sendable (T) throws -> Any) { self.body = body }

    @usableFromInline
    func run(from source: Core?, settling link: Core) {
        guard let source, let body else { return }
        if source.isRejected {
            link.settle(like: source)
            return
        }
        do {
            link.resolveProcedure(try body(try source.typedValue(T.self)))
        } catch {
            link.reject(error)
        }
    }

    @inlinable
    mutating func dispose() { body = nil }
}

/// The seed two-callback `then(_:_:)` (`Thenable`): `onSuccess` with the value as
/// `present` shows it; a throw from it, or a rejection, goes to `onFailure` (as the
/// original reason). An error that reaches no callback rejects the link, which nobody
/// holds: it is reported as unhandled.
struct SeedThenBody<V>: LinkBody {
    var callbacks: (onSuccess: (@Sendable (V) throws -> Void)?, onFailure: (@Sendable (Any?) -> Void)?)?
    let present: @Sendable (Core) throws -> V

    init(onSuccess: (@Sendable (V) throws -> Void)?, onFailure: (@Sendable (Any?) -> Void)?,
         present: @escaping @Sendable (Core) throws -> V) {
        callbacks = (onSuccess, onFailure)
        self.present = present
    }

    func run(from source: Core?, settling link: Core) {
        guard let source, let (onSuccess, onFailure) = callbacks else { return }
        var failure = source.error
        if failure == nil {
            do {
                let value = try present(source)
                try onSuccess?(value)
            } catch {
                failure = error
            }
        }
        guard let failure else {
            link.fulfil(())
            return
        }
        if let onFailure {
            onFailure(ThenableReason.reason(for: failure))
            link.fulfil(())
        } else {
            link.reject(failure)
        }
    }

    mutating func dispose() { callbacks = nil }
}
