import CVow
import Synchronization

/// The library's own errors, and every error that comes from C.
///
/// Domain `"vow"` with the codes of C's `enum vow_error_codes`; an error made in C with
/// `vow_error_new` arrives here as a `VowError` with its domain, code, message and payload.
/// Match a library error by code: `catch VowError.Code.timeout { ... }`.
public struct VowError: CancellableError, CustomStringConvertible, UnhandledDescribable, @unchecked Sendable {
    // @unchecked: every field is immutable; `payload` is a value the error carries (a C
    // payload is a `VowValue`, itself immutable and thread-safe).

    /// The library's error codes: C's `enum vow_error_codes` (include/vow.h), the one table
    /// of them; the constants here are read from it, and `ErrorCodeTableTests` checks that
    /// this list and the engine's `EngineError.Code` name the same codes as the header.
    ///
    /// A struct with constants rather than an enum, so that `catch VowError.Code.timeout`
    /// and `case VowError.Code.timeout:` are expression patterns that match any error
    /// through `~=` (an enum case there would be an enum-case pattern, which does not).
    public struct Code: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        public let rawValue: Int64

        /// nil for numbers outside the library's codes.
        public init?(rawValue: Int64) {
            guard Code.named.contains(where: { $0.code.rawValue == rawValue }) else { return nil }
            self.rawValue = rawValue
        }

        private init(_ code: vow_error_codes) { self.rawValue = Int64(code.rawValue) }

        /// Cancelled: `cancel()`, cancellation travelling upstream, the losers of a race.
        public static let cancelled = Code(VOW_ERROR_CANCELLED)
        /// The last reference to a resolver that was never used went away.
        public static let broken = Code(VOW_ERROR_BROKEN)
        /// Resolved with itself, or with a chain leading back to itself.
        public static let cycle = Code(VOW_ERROR_CYCLE)
        /// `timeout(seconds:)` ran out before its source settled.
        public static let timeout = Code(VOW_ERROR_TIMEOUT)
        /// A value of the wrong type; the message names the expected and the found.
        public static let type = Code(VOW_ERROR_TYPE)
        /// A malformed libffi signature (`AnyPromise.thenCall`).
        public static let signature = Code(VOW_ERROR_SIGNATURE)
        /// A race over no promises.
        public static let empty = Code(VOW_ERROR_EMPTY)
        /// A `wait()` that could never end.
        public static let deadlock = Code(VOW_ERROR_DEADLOCK)

        /// Every code with its name (the header's `VOW_ERROR_` name in lower case), in the
        /// header's order.
        private static let named: [(code: Code, name: String)] = [
            (.cancelled, "cancelled"), (.broken, "broken"), (.cycle, "cycle"), (.timeout, "timeout"),
            (.type, "type"), (.signature, "signature"), (.empty, "empty"), (.deadlock, "deadlock"),
        ]

        public static let allCases: [Code] = named.map(\.code)

        public var description: String {
            Code.named.first { $0.code == self }.map(\.name) ?? "\(rawValue)"
        }
    }

    /// The library's domain, `"vow"`.
    public static let vowDomain = "vow"

    /// Who defines `code`: ``vowDomain`` for the library's errors, another string for a
    /// program's own (a tag only).
    public let domain: String
    /// The code within `domain`: for the library's errors, a ``Code``'s `rawValue`.
    public let code: Int64
    /// What went wrong, for people.
    public let message: String
    /// A value the error carries (from C: a `vow_error_with_payload`'s value), or nil.
    public let payload: Any?

    /// The `vow_error *` this error came from, when it was made in C: crossing back into C
    /// it is that same handle again (an error keeps its identity across the boundary).
    var origin: VowErrorBox?

    /// An error of any domain, as C's `vow_error_new` makes one.
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

    package var unhandledDescription: String { description }

    /// The Swift face of an engine failure: the same code and message, domain "vow".
    init(_ engine: EngineError) {
        self.init(domain: VowError.vowDomain, code: engine.code.rawValue, message: engine.message)
    }

    /// The error `cancel()` rejects with.
    public static let cancelledError = VowError(.cancelled, "the promise was cancelled")

    /// From now on, errors with this domain and code count as cancellation (also those made
    /// before). Registering twice is harmless; there is no unregister.
    public static func registerCancellation(domain: String, code: Int64) {
        CancellationRegistry.register(domain: domain, code: code)
    }
}

extension VowError {
    /// A pattern that matches errors (`VowError.Code` is one): what the `~=` below takes,
    /// so that it applies to error values only.
    public protocol CodePattern: Sendable {
        /// True if `error` is one this pattern stands for.
        func matches(_ error: any Error) -> Bool
    }
}

extension VowError.Code: VowError.CodePattern {
    /// True for a library error (domain `"vow"`) with this code.
    public func matches(_ error: any Error) -> Bool {
        (unboxError(error) as? VowError)?.vowCode == self
    }
}

/// `catch VowError.Code.timeout { }` (and `case VowError.Code.timeout:` in a `switch` over
/// an error) matches a library error with that code.
///
/// Generic over both sides, so that Swift considers it only where an error is matched: a
/// pattern that does not fit another `switch` (`case .fulfilled:` over a `Swift.Result`) is
/// reported against the value's type ("type 'Result<Int, any Error>' has no member
/// 'fulfilled'"), not as a missing member of `VowError.Code`, as it was when this operator
/// took `VowError.Code` and `any Error` directly.
public func ~= <Pattern: VowError.CodePattern, Value: Error>(pattern: Pattern, value: Value) -> Bool {
    pattern.matches(value)
}

/// Errors that box another error (a C `vow_error` around a Swift error) expose it here, so
/// Swift code always sees the original error.
protocol ErrorBox: Error {
    var boxedError: any Error { get }
}

/// The error Swift code should see: the original error when it crossed into C and back,
/// and the engine's own failures as `VowError`s.
@usableFromInline
func unboxError(_ error: any Error) -> any Error {
    if let box = error as? any ErrorBox { return box.boxedError }
    if let engine = error as? EngineError { return VowError(engine) }
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
