/// An error that may stand for cancellation. `catch` skips errors whose `isCancelled` is
/// true unless its policy is `.allErrors`; the default unhandled-error handler ignores
/// them. Swift's `CancellationError` counts as cancellation too.
public protocol CancellableError: Error {
    /// True if this error stands for cancellation.
    var isCancelled: Bool { get }
}

/// True if `error` stands for cancellation: the library's cancelled error, Swift's
/// `CancellationError`, a `CancellableError` whose `isCancelled` is true (the library's
/// errors count domain/code pairs registered as cancellation from C too).
public func isCancellation(_ error: any Error) -> Bool {
    if error is CancellationError { return true }
    if let cancellable = error as? any CancellableError { return cancellable.isCancelled }
    return false
}
