/// PromiseKit's errors, every case kept, so that code which throws, matches or switches
/// over them still compiles.
///
/// Vow itself never rejects with them: its combinators and operators reject with its own
/// errors, shared with C (MIGRATION.md maps each case): where PromiseKit gives
///
/// - `invalidCallingConvention` (`resolve(nil, nil)`), Vow gives `VowError.Code.type`;
/// - `returnedSelf` (a handler returned its own promise), `VowError.Code.cycle`;
/// - `badInput` (`race` over nothing, `concurrently: 0`), `VowError.Code.empty` for an
///   empty `race`/`race(fulfilled:)`, `VowError.Code.type` for `concurrently` below 1;
/// - `cancelled`, `VowError.Code.cancelled` (`cancel()`); `PMKError.cancelled` thrown by your
///   code counts as a cancellation too (`isCancelled`, `catch`'s policy);
/// - `compactMap`, a `VowError` of domain `"vow.compactMap"` whose payload is the value;
/// - `emptySequence` (`firstValue`, `lastValue`), `VowError.Code.empty`;
/// - `noWinner` (`race(fulfilled:)` where every input rejected), the error of the input that
///   rejected last.
///
/// So `catch PMKError.emptySequence` no longer matches what Vow rejects with; match
/// `VowError.Code.empty` (`catch VowError.Code.empty { }`), or test `error.isCancelled`.
public enum PMKError: Error, CancellableError, CustomDebugStringConvertible, CustomStringConvertible,
                      @unchecked Sendable {
    // @unchecked: `compactMap`'s payload is the value a transform received (kept to be
    // shown), and a metatype; neither is changed after the error is made.
    /// PromiseKit: `seal.resolve(nil, nil)`. Vow rejects with `VowError.Code.type` instead.
    case invalidCallingConvention
    /// PromiseKit: a handler returned its own promise. Vow rejects with
    /// `VowError.Code.cycle` instead, for any cycle, not only this direct one.
    case returnedSelf
    /// PromiseKit: `race` over nothing, `concurrently: 0`. Vow rejects with
    /// `VowError.Code.empty` (an empty `race`, `race(fulfilled:)`) or `VowError.Code.type`
    /// (`concurrently` below 1) instead.
    case badInput
    /// Cancellation. Vow's `cancel()` rejects with `VowError.Code.cancelled`; this case,
    /// thrown by your code, counts as a cancellation too (``isCancelled`` is true, and
    /// `catch` skips it by default).
    case cancelled
    /// PromiseKit's former name of ``compactMap(_:_:)`` (deprecated there too). Vow never
    /// rejects with it.
    @available(*, deprecated, message: "See: `compactMap`")
    case flatMap(Any, Any.Type)
    /// PromiseKit: `compactMap`'s transform returned nil for the value (the first payload; the
    /// second is the type it was to become). Vow rejects with a `VowError` of domain
    /// `"vow.compactMap"` whose payload is the value instead.
    case compactMap(Any, Any.Type)
    /// PromiseKit: `firstValue` or `lastValue` of nothing. Vow rejects with
    /// `VowError.Code.empty` instead.
    case emptySequence
    /// PromiseKit: `race(fulfilled:)` where every input rejected. Vow rejects with the error
    /// of the input that rejected last instead.
    case noWinner

    /// True for `.cancelled`: Vow counts it as a cancellation (`catch` skips it by default).
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    public var debugDescription: String {
        switch self {
        case .flatMap(let value, let type):
            return "Could not `flatMap<\(type)>`: \(value)"
        case .compactMap(let value, let type):
            return "Could not `compactMap<\(type)>`: \(value)"
        case .invalidCallingConvention:
            return "A closure was called with an invalid calling convention, probably (nil, nil)"
        case .returnedSelf:
            return "A promise handler returned itself"
        case .badInput:
            return "Bad input was provided to a PromiseKit function"
        case .cancelled:
            return "The asynchronous sequence was cancelled"
        case .emptySequence:
            return "The first or last element was requested for an empty sequence"
        case .noWinner:
            return "All thenables passed to race(fulfilled:) were rejected"
        }
    }

    public var description: String { debugDescription }
}

extension Error {
    /// True if this error stands for cancellation, by Vow's rule (`isCancellation`): Vow's
    /// cancelled error, Swift's `CancellationError`, a `CancellableError` that says so
    /// (`PMKError.cancelled` is one). Foundation's `URLError.cancelled` and
    /// `CocoaError.userCancelled` count only once you make them `CancellableError`s
    /// (MIGRATION.md has the two lines): Vow does not import Foundation.
    public var isCancelled: Bool { isCancellation(self) }
}
