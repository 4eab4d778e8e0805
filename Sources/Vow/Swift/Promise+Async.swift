extension Promise {
    /// The value, awaited. Throws the error on rejection (which counts as handling it).
    ///
    /// Cancellation-aware: cancelling the awaiting task cancels the wait, and the request
    /// reaches this promise under the upstream rule (it is cancelled only if nothing else
    /// still waits on it); the await then throws the cancellation error.
    public var value: T {
        get async throws {
            let observed = try await core.outcomeAwaitingCancellably()
            switch observed {
            case .fulfilled(let raw): return try castValue(raw, to: T.self).get()
            case .rejected(let error): throw unboxError(error)
            }
        }
    }

    /// Makes a promise of an async closure's result. The closure runs in a new `Task`;
    /// cancelling the promise cancels that task.
    public init(_ body: @escaping @Sendable () async throws -> T) {
        let core = Core()
        self.init(core: core)
        let task = Task {
            do {
                let value = try await body()
                core.settle(.fulfilled(value))
            } catch {
                core.settle(.rejected(error))
            }
        }
        core.onCancel { task.cancel() }
    }
}

extension Core {
    /// Waits for the outcome through a private dependent, so that cancelling the waiting
    /// task cancels only that dependent (and this promise only if nothing else needs it).
    func outcomeAwaitingCancellably() async throws -> Outcome {
        let waiter = Core(dependingOn: self, settledOn: InlineDispatcher.shared)
        attach(Handler(dispatcher: InlineDispatcher.shared, dependent: waiter, kind: .link) { outcome in
            waiter.settle(outcome)
        })
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                waiter.attach(Handler(dispatcher: InlineDispatcher.shared, dependent: nil, kind: .observer) { outcome in
                    continuation.resume(returning: outcome)
                })
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}
