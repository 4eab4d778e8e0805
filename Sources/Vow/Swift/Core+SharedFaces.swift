// What `Promise<T>` and `AnyPromise` do alike, written once on the engine object; the two
// faces differ only in how they present the value (typed cast, or untyped bridging).

extension Core {
    var isFulfilled: Bool {
        if case .fulfilled = snapshot { return true }
        return false
    }

    var isRejected: Bool {
        if case .rejected = snapshot { return true }
        return false
    }

    /// The error as Swift code should see it (a C box unwrapped), or nil unless rejected.
    var rejectionForSwift: (any Error)? {
        if case .rejected(let error) = snapshot { return unboxError(error) }
        return nil
    }

    /// `finally`: a cleanup handler (it runs even if the returned promise was cancelled),
    /// then the returned promise settles like this one.
    func finallyLink(on dispatcher: any Dispatcher, _ body: @escaping @Sendable () -> Void) -> Core {
        let (derived, target) = derive(on: dispatcher)
        attach(Handler(dispatcher: target, dependent: derived, kind: .cleanup) { outcome in
            body()
            derived.settle(outcome)
        })
        return derived
    }

    /// The seed two-callback `then`: `onSuccess` runs on the default dispatcher with the
    /// value as `present` makes it; a throw from either goes to `onFailure` (as the original
    /// rejection reason), as does a rejection. An error that reaches no callback rejects an
    /// internal promise nobody holds, so it is reported as unhandled.
    func seedThen<V>(presenting present: @escaping @Sendable (Any) throws -> V,
                     _ onSuccess: ((V) throws -> ())?, _ onFailure: ((Any?) -> ())?) {
        // The seed protocol's closures are not @Sendable; they are handed over to run once
        // on the dispatcher, as Promises/A+ requires.
        let callbacks = UncheckedSendable((onSuccess, onFailure))
        let (derived, target) = derive(on: .default)
        attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            let (onSuccess, onFailure) = callbacks.value
            var failure: (any Error)?
            switch outcome {
            case .fulfilled(let raw):
                do {
                    if let onSuccess { try onSuccess(present(raw)) }
                } catch {
                    failure = error
                }
            case .rejected(let error):
                failure = error
            }
            guard let failure else {
                derived.settle(.fulfilled(()))
                return
            }
            if let onFailure {
                onFailure(ThenableReason.reason(for: failure))
                derived.settle(.fulfilled(()))
            } else {
                derived.settle(.rejected(failure))
            }
        })
    }
}
