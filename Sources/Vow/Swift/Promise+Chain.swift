/// How `catch` treats cancellation.
public enum CatchPolicy: Sendable {
    /// Skip errors that stand for cancellation (the default).
    case allErrorsExceptCancellation
    /// Receive every error, cancellation included.
    case allErrors
}

extension Core {
    /// A derived promise settled by a callback on `dispatcher`, with the dispatcher
    /// resolved (`.default` looked up now).
    @usableFromInline
    func derive(on dispatcher: any Dispatcher) -> (Core, any Dispatcher) {
        let target = resolved(dispatcher)
        return (Core(dependingOn: self, settledOn: target), target)
    }

    /// Settles `self` from a callback's result: a thrown error rejects.
    @inlinable
    func settle<U>(from body: () throws -> U) {
        do {
            settle(.fulfilled(try body()))
        } catch {
            settle(.rejected(error))
        }
    }

    /// Settles `self` from a callback that returns a promise: adopts it.
    @inlinable
    func adopt<U>(from body: () throws -> Promise<U>) {
        do {
            follow(try body().core)
        } catch {
            settle(.rejected(error))
        }
    }
}

// Every method below registers one handler on this promise and returns a new promise.
// The callback runs on `dispatcher` (default: `Vow.defaultDispatcher` as it is now),
// after this promise settles, never inline, never under a lock. If the returned promise
// is cancelled before the callback starts, the callback never runs (except `finally`).
// Releasing the returned promise does not unregister the callback.
extension Promise {
    /// Runs `body` with the value; the new promise adopts the promise `body` returns.
    /// A rejection skips `body` and passes through.
    @inlinable @discardableResult
    public func then<U>(on dispatcher: any Dispatcher = .default,
                        _ body: @escaping @Sendable (T) throws -> Promise<U>) -> Promise<U> {
        let (derived, target) = core.derive(on: dispatcher)
        core.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled(let raw):
                derived.adopt { try body(try castValue(raw, to: T.self).get()) }
            case .rejected(let error):
                derived.settle(.rejected(error))
            }
        })
        return Promise<U>(core: derived)
    }

    /// Runs `body` with the value; its return value fulfils the new promise, a throw
    /// rejects it. A rejection skips `body` and passes through.
    @inlinable @discardableResult
    public func then<U>(on dispatcher: any Dispatcher = .default,
                        _ body: @escaping @Sendable (T) throws -> U) -> Promise<U> {
        let (derived, target) = core.derive(on: dispatcher)
        core.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled(let raw):
                derived.settle { try body(try castValue(raw, to: T.self).get()) }
            case .rejected(let error):
                derived.settle(.rejected(error))
            }
        })
        return Promise<U>(core: derived)
    }

    /// Runs `body` with the value; the new promise assimilates the thenable it returns
    /// (Promises/A+ 2.3.3: its `then` is called once, in a job on the default dispatcher).
    @discardableResult
    public func then<P: Thenable & SendableMetatype>(on dispatcher: any Dispatcher = .default,
                                  _ body: @escaping @Sendable (T) throws -> P) -> Promise<P.Value> {
        let (derived, target) = core.derive(on: dispatcher)
        core.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled(let raw):
                do {
                    let thenable: Any = try body(try castValue(raw, to: T.self).get())
                    derived.resolveProcedure(thenable)
                } catch {
                    derived.settle(.rejected(error))
                }
            case .rejected(let error):
                derived.settle(.rejected(error))
            }
        })
        return Promise<P.Value>(core: derived)
    }

    /// Transforms the value (the value-returning `then`).
    public func map<U>(on dispatcher: any Dispatcher = .default,
                       _ transform: @escaping @Sendable (T) throws -> U) -> Promise<U> {
        then(on: dispatcher, transform)
    }

    /// Chains a promise-returning step (the promise-returning `then`).
    public func flatMap<U>(on dispatcher: any Dispatcher = .default,
                           _ transform: @escaping @Sendable (T) throws -> Promise<U>) -> Promise<U> {
        then(on: dispatcher, transform)
    }

    /// Consumes the value; the new promise fulfils with `()` when `body` returns.
    @discardableResult
    public func done(on dispatcher: any Dispatcher = .default,
                     _ body: @escaping @Sendable (T) throws -> Void) -> Promise<Void> {
        then(on: dispatcher, body)
    }

    /// Looks at the value and passes it on unchanged (a throw rejects).
    public func get(on dispatcher: any Dispatcher = .default,
                    _ body: @escaping @Sendable (T) throws -> Void) -> Promise<T> {
        then(on: dispatcher) { value -> T in
            try body(value)
            return value
        }
    }

    /// Looks at the outcome, value or error, and passes it on unchanged. Seeing an error
    /// here does not handle it.
    public func tap(on dispatcher: any Dispatcher = .default,
                    _ body: @escaping @Sendable (Result<T, any Error>) -> Void) -> Promise<T> {
        let (derived, target) = core.derive(on: dispatcher)
        core.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled(let raw):
                body(castValue(raw, to: T.self))
            case .rejected(let error):
                body(.failure(unboxError(error)))
            }
            derived.settle(outcome)
        })
        return Promise(core: derived)
    }

    /// Validates the value: passes it on if `predicate` holds, else rejects with `error`.
    public func ensure(on dispatcher: any Dispatcher = .default,
                       _ predicate: @escaping @Sendable (T) throws -> Bool,
                       otherwise error: @escaping @Sendable @autoclosure () -> any Error
                           = VowError(domain: "vow.ensure", code: 1, message: "the value did not satisfy ensure's predicate")) -> Promise<T> {
        then(on: dispatcher) { value -> T in
            guard try predicate(value) else { throw error() }
            return value
        }
    }

    /// Handles a rejection by returning a promise to continue with. Receives every error,
    /// cancellation included. A fulfilment passes through.
    public func recover(on dispatcher: any Dispatcher = .default,
                        _ body: @escaping @Sendable (any Error) throws -> Promise<T>) -> Promise<T> {
        let (derived, target) = core.derive(on: dispatcher)
        core.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled:
                derived.settle(outcome)
            case .rejected(let error):
                derived.adopt { try body(unboxError(error)) }
            }
        })
        return Promise(core: derived)
    }

    /// Handles a rejection by returning a replacement value. Receives every error,
    /// cancellation included.
    public func recover(on dispatcher: any Dispatcher = .default,
                        _ body: @escaping @Sendable (any Error) throws -> T) -> Promise<T> {
        let (derived, target) = core.derive(on: dispatcher)
        core.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled:
                derived.settle(outcome)
            case .rejected(let error):
                derived.settle { try body(unboxError(error)) }
            }
        })
        return Promise(core: derived)
    }

    /// Handles a rejection. With the default policy, cancellation errors are skipped.
    ///
    /// The returned promise fulfils when this one fulfilled or `body` ran (and did not
    /// throw); it stays rejected with the error when the policy skipped it, so a `finally`
    /// after it always runs and a skipped cancellation is still visible.
    @discardableResult
    public func `catch`(on dispatcher: any Dispatcher = .default,
                        policy: CatchPolicy = .allErrorsExceptCancellation,
                        _ body: @escaping @Sendable (any Error) throws -> Void) -> Promise<Void> {
        let (derived, target) = core.derive(on: dispatcher)
        core.attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled:
                derived.settle(.fulfilled(()))
            case .rejected(let error):
                if policy == .allErrorsExceptCancellation && isCancellation(error) {
                    derived.settle(outcome)
                } else {
                    derived.settle { try body(unboxError(error)) }
                }
            }
        })
        return Promise<Void>(core: derived)
    }

    /// Runs `body` whatever happened (also after a skipped catch, also when the returned
    /// promise was cancelled); the returned promise then settles like this one.
    @discardableResult
    public func finally(on dispatcher: any Dispatcher = .default,
                        _ body: @escaping @Sendable () -> Void) -> Promise<T> {
        Promise(core: core.finallyLink(on: dispatcher, body))
    }

    /// Another name for `finally`.
    @discardableResult
    public func always(on dispatcher: any Dispatcher = .default,
                       _ body: @escaping @Sendable () -> Void) -> Promise<T> {
        finally(on: dispatcher, body)
    }

    /// Forgets the value.
    public func asVoid() -> Promise<Void> {
        then(on: .inline) { _ in () }
    }
}

/// Runs `body` at once and returns its promise; a throw becomes a rejected promise.
/// Reads well at the head of a chain.
public func firstly<U>(_ body: () throws -> Promise<U>) -> Promise<U> {
    do {
        return try body()
    } catch {
        return Promise(error: error)
    }
}

/// Runs `body` on `dispatcher` and returns a promise of its result.
public func firstly<U>(on dispatcher: any Dispatcher, _ body: @escaping @Sendable () throws -> U) -> Promise<U> {
    Promise<Void>.value(()).then(on: dispatcher) { _ in try body() }
}
