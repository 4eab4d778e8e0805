import Synchronization

/// An error that may stand for cancellation. `catch` skips errors whose `isCancelled` is
/// true unless its policy is `.allErrors`; the default unhandled-error handler ignores
/// them. Swift's `CancellationError` counts as cancellation too.
public protocol CancellableError: Error {
    var isCancelled: Bool { get }
}

/// The library's own errors, and every error that comes from C.
///
/// Domain `"vow"` with the codes of C's `enum vow_error_codes`; an error made in C with
/// `vow_error_new` arrives here as a `VowError` with its domain, code, message and payload.
/// Match a library error by code: `catch VowError.Code.timeout { ... }`.
public struct VowError: CancellableError, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: every field is immutable; `payload` is a value the error carries (a C
    // payload is a `VowValue`, itself immutable and thread-safe).

    /// The library's error codes (C: `VOW_ERROR_*`, same numbers).
    public enum Code: Int64, Sendable, CaseIterable {
        case cancelled = 1
        case broken
        case cycle
        case timeout
        case type
        case signature
        case empty
        case deadlock
    }

    /// The library's domain, `"vow"`.
    public static let vowDomain = "vow"

    public let domain: String
    public let code: Int64
    public let message: String
    public let payload: Any?

    public init(domain: String, code: Int64, message: String, payload: Any? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.payload = payload
    }

    /// A library error with one of the `vow` codes.
    public init(_ code: Code, _ message: String, payload: Any? = nil) {
        self.init(domain: VowError.vowDomain, code: code.rawValue, message: message, payload: payload)
    }

    /// The library code, when the domain is `"vow"`.
    public var vowCode: Code? {
        domain == VowError.vowDomain ? Code(rawValue: code) : nil
    }

    /// True for the library's cancelled error and for any domain/code pair registered with
    /// `vow_register_cancellation` (or `VowError.registerCancellation`).
    public var isCancelled: Bool {
        (domain == VowError.vowDomain && code == Code.cancelled.rawValue)
            || CancellationRegistry.contains(domain: domain, code: code)
    }

    public var description: String { "\(domain) \(code): \(message)" }

    /// The error `cancel()` rejects with.
    public static let cancelledError = VowError(.cancelled, "the promise was cancelled")

    /// From now on, errors with this domain and code count as cancellation (also those made
    /// before). Registering twice is harmless; there is no unregister.
    public static func registerCancellation(domain: String, code: Int64) {
        CancellationRegistry.register(domain: domain, code: code)
    }
}

/// `catch VowError.Code.timeout { }` matches a library error with that code.
public func ~= (pattern: VowError.Code, value: any Error) -> Bool {
    (unboxError(value) as? VowError)?.vowCode == pattern
}

/// True if `error` stands for cancellation: the library's cancelled error, Swift's
/// `CancellationError`, a `CancellableError` whose `isCancelled` is true, or a registered
/// domain/code pair.
public func isCancellation(_ error: any Error) -> Bool {
    let error = unboxError(error)
    if error is CancellationError { return true }
    if let cancellable = error as? any CancellableError { return cancellable.isCancelled }
    return false
}

/// Errors that box another error (a C `vow_error` around a Swift error) expose it here, so
/// Swift code always sees the original error.
protocol ErrorBox: Error {
    var boxedError: any Error { get }
}

/// The error Swift code should see: the original error when it crossed into C and back.
@inline(__always)
func unboxError(_ error: any Error) -> any Error {
    if let box = error as? any ErrorBox { return box.boxedError }
    return error
}

enum CancellationRegistry {
    private struct Key: Hashable { let domain: String; let code: Int64 }
    private static let pairs = Locked<Set<Key>>([])
    private static let count = Atomic<Int>(0)

    static func register(domain: String, code: Int64) {
        let size = pairs.withLock { set -> Int in
            set.insert(Key(domain: domain, code: code))
            return set.count
        }
        count.store(size, ordering: .releasing)
    }

    static func contains(domain: String, code: Int64) -> Bool {
        guard count.load(ordering: .acquiring) > 0 else { return false }
        return pairs.withLock { $0.contains(Key(domain: domain, code: code)) }
    }
}
