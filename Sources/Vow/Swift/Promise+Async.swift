extension Promise {
    /// The value, awaited. Throws the error on rejection (which counts as handling it).
    ///
    /// Cancellation-aware: cancelling the awaiting task cancels the wait, and the request
    /// reaches this promise under the upstream rule (it is cancelled only if nothing else
    /// still waits on it); the await then throws the cancellation error.
    public var value: T {
        get async throws {
            let settled = await core.settledAwaitingCancellably()
            if let error = settled.error { throw unboxError(error) }
            return try settled.typedValue(T.self)
        }
    }

    /// Makes a promise of an async closure's result. The closure runs in a new `Task`;
    /// cancelling the promise cancels that task.
    public init(file: StaticString = #fileID, line: UInt = #line, _ body: @escaping @Sendable () async throws -> T) {
        let core = Core().made(at: .source(file, line))
        self.init(core: core)
        let task = Task {
            do {
                let value = try await body()
                core.fulfil(value)
            } catch {
                core.reject(error)
            }
        }
        core.onCancel { task.cancel() }
    }
}
