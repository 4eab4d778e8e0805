/// PromiseKit's outcome of a promise: what `tap`, `result`, `pipe(to:)` and
/// `when(resolved:)` give in a file that imports VowPromiseKit.
///
/// It hides `Swift.Result` in such a file, as PromiseKit's did: write `Swift.Result` for
/// the standard one (Vow's own APIs, `Resolver.resolve(_:)` among them, take it).
public enum Result<T> {
    /// The promise fulfilled with this value (`Swift.Result`'s `.success`).
    case fulfilled(T)
    /// The promise rejected with this error, a cancellation included (`Swift.Result`'s
    /// `.failure`).
    case rejected(any Error)
}

extension Result: Sendable where T: Sendable {}

extension Result {
    /// True for `.fulfilled`.
    public var isFulfilled: Bool {
        if case .fulfilled = self { return true }
        return false
    }

    /// The same outcome as a `Swift.Result`.
    @inlinable
    public init(_ result: Swift.Result<T, any Error>) {
        switch result {
        case .success(let value): self = .fulfilled(value)
        case .failure(let error): self = .rejected(error)
        }
    }

    /// The same outcome as a `Swift.Result`.
    public var swiftResult: Swift.Result<T, any Error> {
        switch self {
        case .fulfilled(let value): return .success(value)
        case .rejected(let error): return .failure(error)
        }
    }
}
