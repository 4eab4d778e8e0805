/// Small helpers from the libraries Vow replaces (see MIGRATION.md for the names there).

extension Promise {
    /// Turns a promise of an optional into a promise of its value: `nil` rejects with
    /// `error` (by default a `VowError` of domain `"vow.unwrap"`, code 1, "the promise
    /// was fulfilled with nil"); a value passes on unwrapped; a rejection passes through.
    /// (khanlou/Promise's and PromiseKit's `compactMap` idea, as one call.)
    ///
    /// A method on `Promise` rather than on `Optional`: an extension of `Optional` would
    /// show up on every optional of every program that imports Vow, and clash with the
    /// `unwrap` helpers many code bases already have. For an optional in hand, write
    /// `Promise.value(optional).unwrap(orReject: ...)`.
    public func unwrap<Wrapped: Sendable>(on dispatcher: any Dispatcher = .default,
                                          file: StaticString = #fileID, line: UInt = #line,
                                          orReject error: @escaping @Sendable @autoclosure () -> any Error
                                              = VowError(domain: "vow.unwrap", code: 1,
                                                         message: "the promise was fulfilled with nil"))
        -> Promise<Wrapped> where T == Wrapped? {
        then(on: dispatcher, file: file, line: line) { value -> Wrapped in
            guard let value else { throw error() }
            return value
        }
    }
}
