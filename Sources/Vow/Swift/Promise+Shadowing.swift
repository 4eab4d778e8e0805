// Vow's `result` and `value` under names that a module which hides them can still reach:
// VowPromiseKit declares PromiseKit's `result` (PromiseKit's `Result`) and `value` (`T?`),
// and in its files those hide Vow's (a module's own declaration shadows an imported one of
// the same name), so it builds its own on these.

extension Promise {
    /// `result`, for modules that hide it (package-only).
    @inlinable
    package var vowResult: Result<T, any Error>? { result }

    /// The awaited `value`, for modules that hide it (package-only).
    package var vowValue: T {
        get async throws { try await value }
    }
}
