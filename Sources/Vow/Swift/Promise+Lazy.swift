/// Lazy promises (Hydra's lazy promise), over the engine's `Core.lazy(on:_:)`.

extension Promise {
    /// A lazy promise: `body` runs once, on `dispatcher`, only when the promise is first
    /// wanted: a handler is registered on it (`then`, `done`, `catch`, a combinator,
    /// another promise adopting it, ...), `wait()` is called, or its `value` is awaited.
    /// Reading `isPending` or `result` does not start it.
    ///
    /// Like `Promise { seal in ... }`, `body` gets the resolver (keep it to settle later;
    /// released unused, the promise rejects with `VowError.Code.broken`), and a throw
    /// from it rejects the promise. Cancelled before it started, the promise never runs
    /// `body` (which is released then). If `dispatcher` drops the start, the promise is
    /// cancelled.
    public init(on dispatcher: any Dispatcher = .default,
                file: StaticString = #fileID, line: UInt = #line,
                lazy body: @escaping @Sendable (Resolver<T>) throws -> Void) {
        self.init(core: Core.lazy(on: dispatcher) { core in
            let resolver = Resolver<T>(core: core)
            do {
                try body(resolver)
            } catch {
                resolver.reject(error)
            }
        }.made(at: .source(file, line)))
    }
}
