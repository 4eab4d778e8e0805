/// The engine's own failures: cancellation, a broken promise, a cycle, a time-out, a race
/// over nothing, a wait that could never end.
///
/// The engine only records what happened (a code and a message); the faces present it to
/// their users in their own error type (the Swift face's error value, the C face's error
/// handle, both in domain "vow"). The codes are the ones both faces publish.
@usableFromInline package struct EngineError: Error, CancellableError, UnhandledDescribable, Sendable {
    @usableFromInline package enum Code: Int64, Sendable {
        case cancelled = 1
        case broken = 2
        case cycle = 3
        case timeout = 4
        case empty = 7
        case deadlock = 8
    }

    @usableFromInline package let code: Code
    @usableFromInline package let message: String

    @usableFromInline init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The error `cancel()` rejects with.
    @usableFromInline package static let cancelled = EngineError(.cancelled, "the promise was cancelled")

    /// A promise resolved with itself, or with a chain that leads back to it.
    @usableFromInline package static let cycle = EngineError(.cycle, "a promise was resolved with itself, or with a chain that leads back to it")

    /// A wait that could never end.
    @usableFromInline package static let deadlock = EngineError(.deadlock,
        "wait() was called on the serial dispatcher that must run the awaited promise's callbacks; it would never return")

    /// The broken-promise error for `promise`, whose resolver was released unused.
    @usableFromInline package static func broken(at promise: Core,
                               _ message: String = "the resolver was released before it settled its promise") -> EngineError {
        EngineError(.broken, message + DebugRecord.siteSuffix(of: promise))
    }

    /// The time-out error.
    @usableFromInline package static func timeout(seconds: Double) -> EngineError {
        EngineError(.timeout, "timed out after \(seconds) s")
    }

    @usableFromInline package var isCancelled: Bool { code == .cancelled }

    @usableFromInline package var unhandledDescription: String { "vow \(code.rawValue): \(message)" }
}
