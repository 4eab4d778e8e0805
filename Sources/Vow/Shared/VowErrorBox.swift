#if canImport(Glibc)
import Glibc
#endif

/// A rejection reason as C sees it: `vow_error *` is this object, passed with `Unmanaged`.
///
/// It boxes any Swift error. An error made in C (`vow_error_new`) is a box around a
/// `VowError`; a Swift error that C must see is boxed with `boxing(_:)`. When C rejects a
/// promise the engine stores the box itself, so C readers get the same handle back; Swift
/// APIs call `unboxError`, so Swift code sees the original error (the same value that
/// went in, for a Swift error that crossed into C and back).
///
/// How a Swift error looks in C: domain = the name of its type
/// (`String(describing: type(of: error))`), code = its raw value if it is
/// `RawRepresentable` with an integer raw value (truncated to 64 bits), else 0,
/// message = `String(describing: error)`. A `VowError` shows its own domain, code,
/// message and payload.
///
/// The C strings for domain and message are made once, in `init`, and freed in `deinit`:
/// `vow_error_domain` / `_message` hand out borrowed pointers valid for the box's life.
final class VowErrorBox: HandleObject, ErrorBox, CancellableError, UnhandledDescribable, @unchecked Sendable {
    // @unchecked: immutable after `init`; the boxed error is Sendable (every Error is),
    // the payload a VowValue (immutable).

    /// The original error (never itself a box).
    let error: any Error
    let domain: String
    let code: Int64
    let message: String
    /// The payload as a value: a `VowError`'s payload, bridged (the same handle if it
    /// already is a `VowValue`); nil if none.
    let payload: VowValue?

    private let cDomain: UnsafeMutablePointer<CChar>
    private let cMessage: UnsafeMutablePointer<CChar>

    /// Boxes `error`, which must not be a box already (use `boxing(_:)`).
    private init(_ error: any Error) {
        self.error = error
        if let vow = error as? VowError {
            domain = vow.domain
            code = vow.code
            message = vow.message
            payload = vow.payload.map { VowValue.bridging($0) }
        } else {
            domain = String(describing: type(of: error))
            code = integerRawValue(of: error) ?? 0
            message = String(describing: error)
            payload = nil
        }
        cDomain = strdup(domain)!
        cMessage = strdup(message)!
        super.init(tag: .error)
    }

    deinit {
        free(cDomain)
        free(cMessage)
    }

    /// The box for `error`: a box passes through as itself (identity kept), anything else
    /// is boxed anew.
    static func boxing(_ error: any Error) -> VowErrorBox {
        if let box = error as? VowErrorBox { return box }
        if let engine = error as? EngineError {
            return engine.code == .cancelled ? sharedCancelled : VowErrorBox(VowError(engine))
        }
        if let vow = error as? VowError {
            if let origin = vow.origin { return origin }
            if vow.isSharedCancellation { return sharedCancelled }
        }
        return VowErrorBox(error)
    }

    /// The box of the engine's cancellation error (`VowError.cancelledError`, what
    /// `cancel()` rejects with). One box for all of them, living as long as the process,
    /// so every C reader of a cancelled promise sees the same handle.
    static let sharedCancelled = VowErrorBox(VowError.cancelledError)

    /// A box around a new `VowError` (what `vow_error_new` makes).
    convenience init(domain: String, code: Int64, message: String, payload: VowValue? = nil) {
        self.init(VowError(domain: domain, code: code, message: message, payload: payload))
    }

    /// The error Swift sees: the original Swift error, or for an error made in C a
    /// `VowError` that remembers this box (rethrown into C, it is this handle again).
    var boxedError: any Error {
        guard var vow = error as? VowError else { return error }
        vow.origin = self
        return vow
    }

    /// Cancellation as C sees it: the boxed error is a cancellation error, or this
    /// domain/code pair was registered with `vow_register_cancellation`.
    var isCancelled: Bool {
        isCancellation(error) || CancellationRegistry.contains(domain: domain, code: code)
    }

    /// How the default unhandled-error line names it: "domain code: message", or the
    /// Swift error's own description when it boxes a Swift error.
    var unhandledDescription: String {
        if let described = error as? any UnhandledDescribable { return described.unhandledDescription }
        return "\(type(of: error)): \(String(describing: error))"
    }

    /// The domain as NUL-terminated UTF-8, borrowed for the box's life.
    var domainPointer: UnsafePointer<CChar> { UnsafePointer(cDomain) }

    /// The message as NUL-terminated UTF-8, borrowed for the box's life.
    var messagePointer: UnsafePointer<CChar> { UnsafePointer(cMessage) }
}

/// The integer raw value of an error that is `RawRepresentable` with an integer raw value.
private func integerRawValue(of error: any Error) -> Int64? {
    guard let representable = error as? any RawRepresentable else { return nil }
    return integerRawValue(representable)
}

private func integerRawValue<R: RawRepresentable>(_ value: R) -> Int64? {
    guard let integer = value.rawValue as? any BinaryInteger else { return nil }
    return Int64(truncatingIfNeeded: integer)
}

extension VowError {
    /// True for an error equal to `VowError.cancelledError` (same domain, code and message,
    /// no payload).
    fileprivate var isSharedCancellation: Bool {
        let shared = VowError.cancelledError
        return code == shared.code && payload == nil && domain == shared.domain && message == shared.message
    }
}
