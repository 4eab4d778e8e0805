import CVow

// Foreign thenables (vow.h, "Foreign thenables"): how the engine's resolution procedure
// treats C values, and the built-in class that shows Swift thenables to C.

extension VowValue: Resolvable {
    /// PROMISE values are adopted, THENABLE values assimilated (a Swift thenable directly,
    /// a host object through its class); every other value fulfils as it is.
    package var resolution: Resolution {
        switch content {
        case .promise(let core):
            return .adopt(core)
        case .thenable(let cls, let object, _):
            if cls == swiftThenableClass, let object {
                return .assimilate(SwiftThenableSource(SwiftThenableBox.from(object).thenable))
            }
            return .assimilate(CThenableSource(value: self, cls: cls, object: object))
        default:
            return .fulfil
        }
    }
}

/// A THENABLE value seen by the engine's procedure (Promises/A+ 2.3.3). The engine calls
/// `lookUpThen` once, then the method once, both in one job on the default dispatcher.
struct CThenableSource: ThenableSource, @unchecked Sendable {
    // @unchecked: the class and object are the host's; the header says its functions run
    // on the default dispatcher's thread. `value` keeps the object alive meanwhile.
    let value: VowValue
    let cls: UnsafePointer<vow_thenable_class>
    let object: UnsafeMutableRawPointer?

    /// A host object that is not a thenable fulfils the promise with the THENABLE value
    /// itself (the same handle).
    func fulfilmentValue() -> StoredValue { StoredValue(value) }

    /// What the thenable resolved with is classified like any value (a C value says
    /// itself).
    func resolution(of y: Any) -> Resolution { Resolution.classifying(y) }

    func lookUpThen() -> Result<ThenMethod?, any Error> {
        var method: UnsafeMutableRawPointer?
        var thrown: OpaquePointer?
        let answer = cls.pointee.get_then!(object, &method, &thrown)
        switch answer {
        case Int32(VOW_THEN_NONE.rawValue):
            releaseThrown(thrown)
            return .success(nil)
        case Int32(VOW_THEN_FOUND.rawValue):
            releaseThrown(thrown)
            let found = FoundMethod(method, release: cls.pointee.release_method)
            let value = self.value
            let cls = self.cls
            let object = self.object
            return .success(ThenMethod { target, resolve, reject in
                try withExtendedLifetime((value, found)) {
                    try callThen(cls, object, found.method, target, resolve, reject)
                }
            })
        case Int32(VOW_THEN_THREW.rawValue):
            return .failure(takeThrown(thrown, "get_then"))
        default:
            releaseThrown(thrown)
            return .failure(VowError(.type, "a thenable class's get_then returned \(answer), not a VOW_THEN_* code"))
        }
    }
}

/// Calls the host's `call_then` with a fresh once-only resolver (borrowed for the call; the
/// host retains it to settle later). A throw counts only if the resolver was not used.
private func callThen(_ cls: UnsafePointer<vow_thenable_class>, _ object: UnsafeMutableRawPointer?,
                      _ method: UnsafeMutableRawPointer?, _ target: Core,
                      _ resolve: @escaping @Sendable (Any) -> Void,
                      _ reject: @escaping @Sendable (any Error) -> Void) throws {
    var thrownError: (any Error)?
    do {
        let resolver = OnceResolver(for: target, resolve: resolve, reject: reject)
        var thrown: OpaquePointer?
        let answer = withExtendedLifetime(resolver) {
            cls.pointee.call_then!(object, method, resolver.borrowedHandle, &thrown)
        }
        if answer == Int32(VOW_THEN_THREW.rawValue) {
            let error = takeThrown(thrown, "call_then")
            if resolver.claimForThrow() { thrownError = error }
        } else {
            releaseThrown(thrown)
        }
        // Our reference to the resolver goes here: unused and not kept by the host, it
        // rejects the promise with the broken-promise error.
    }
    if let thrownError { throw thrownError }
}

/// The error a class function handed back (+1, taken over), or a library error if it set
/// none.
private func takeThrown(_ thrown: OpaquePointer?, _ function: String) -> any Error {
    if let thrown, let box = handle(thrown, as: VowErrorBox.self, in: "vow_thenable_class") {
        Unmanaged.passUnretained(box).release()
        return box
    }
    return VowError(domain: VowError.vowDomain, code: 0,
                    message: "a thenable's \(function) threw without handing back an error")
}

/// Releases an error a class function set although it did not report a throw.
private func releaseThrown(_ thrown: OpaquePointer?) {
    if let thrown, let box = handle(thrown, as: VowErrorBox.self, in: "vow_thenable_class") {
        Unmanaged.passUnretained(box).release()
    }
}

/// A method found by `get_then`; `release_method` runs once, when it is no longer needed
/// (after the call, or if it is never made).
private final class FoundMethod: @unchecked Sendable {
    // @unchecked: the method pointer is the host's; used from the job that found it.
    let method: UnsafeMutableRawPointer?
    private let release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

    init(_ method: UnsafeMutableRawPointer?, release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
        self.method = method
        self.release = release
    }

    deinit { release?(method) }
}
