// PromiseKit's ways to settle a `Resolver` that Vow's own lack (Vow has `fulfill`,
// `reject`, `resolve(Swift.Result)`, `resolve(value?, error?)` and, for `Void`, `fulfill()`).

extension Resolver {
    /// Settles from PromiseKit's `Result`.
    @inlinable
    public func resolve(_ result: Result<T>) {
        switch result {
        case .fulfilled(let value): fulfill(value)
        case .rejected(let error): reject(error)
        }
    }

    /// Settles from a `Swift.Result` of any error type.
    @inlinable
    public func resolve<E: Error>(_ result: Swift.Result<T, E>) {
        switch result {
        case .success(let value): fulfill(value)
        case .failure(let error): reject(error)
        }
    }

    /// Fulfils with `value` unless `error` is non-nil (a completion handler whose value is
    /// not optional).
    @inlinable
    public func resolve(_ value: T, _ error: (any Error)?) {
        if let error { reject(error) } else { fulfill(value) }
    }

    /// `resolve(value, error)` for completion handlers that pass the error first.
    @inlinable
    public func resolve(_ error: (any Error)?, _ value: T?) {
        resolve(value, error)
    }
}

extension Resolver where T == Void {
    /// Fulfils unless `error` is non-nil (a completion handler that passes only an error).
    @inlinable
    public func resolve(_ error: (any Error)?) {
        if let error { reject(error) } else { fulfill(()) }
    }

    /// Fulfils (PromiseKit's `fulfill_()`; Vow's `fulfill()` is the same).
    @inlinable
    public func fulfill_() {
        fulfill(())
    }
}
