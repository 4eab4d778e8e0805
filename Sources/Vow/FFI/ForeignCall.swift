/// The fixed parts of one `vow_then_call` link: the prepared libffi interface for its
/// signature (with the trailing `void *ctx`) and the C function.
///
/// Made when the link is registered (a malformed signature is refused then, never at call
/// time) and captured by the link's handler: no allocation of its own. The interface comes
/// from `CallInterfaceCache` and is shared by every link with the same signature; the
/// handler's reference goes when the handler is released (after the call, or when the
/// link is dropped).
struct ForeignCall: @unchecked Sendable {
    // @unchecked: the interface is immutable (and Sendable); the function pointer is the C
    // caller's, which the header lets run on the dispatcher's thread.

    typealias Function = @convention(c) () -> Void

    let interface: CallInterface
    let function: Function
    /// The entry point that made the link, for diagnostics.
    let origin: StaticString

    var signature: Signature { interface.signature }

    /// Prepares a call for the NUL-terminated `signature` (bounded scan), or says why not.
    static func make(cString signature: UnsafePointer<CChar>, function: @escaping Function,
                     origin: StaticString) -> Result<ForeignCall, VowError> {
        CallInterfaceCache.interface(forCString: signature).map {
            ForeignCall(interface: $0, function: function, origin: origin)
        }
    }

    /// Prepares a call for a Swift string signature, or says why not.
    static func make(signature: String, function: @escaping Function,
                     origin: StaticString) -> Result<ForeignCall, VowError> {
        CallInterfaceCache.interface(for: signature).map {
            ForeignCall(interface: $0, function: function, origin: origin)
        }
    }

    /// Spreads `value` into the parameters, calls the function with `context` last, and
    /// converts its return. Runs on the calling thread (the link's dispatcher), with no
    /// lock held. The count follows PromiseKit's manifolds for pointer parameters (see
    /// `FFIValues.countProblem`): a missing pointer argument is NULL, extra values beside
    /// pointer parameters are ignored. A count or kind mismatch is a `VowError(.type)`
    /// naming the position, and the function is not called. The arguments are converted
    /// straight into libffi's argument slots (no intermediate array).
    func call(with value: VowValue, context: UnsafeMutableRawPointer?) -> Result<VowValue, VowError> {
        let codes = signature.parameters
        let items = value.listElements
        let count = FFIValues.spreadCount(value, items: items, parameterCount: codes.count)
        if count != codes.count, let problem = FFIValues.countProblem(found: count, for: signature) {
            return .failure(problem)
        }
        // `value` (and through it `items`) owns the strings and values the arguments point
        // at: it is alive across the call.
        let returned = withExtendedLifetime(value) {
            interface.call(function, context: context) { index -> Result<FFIScalar, VowError> in
                guard index < count else { return .success(.pointer(nil)) } // a missing pointer
                let item = items?[index] ?? value
                switch FFIValues.argument(item, for: codes[index]) {
                case .success(let scalar): return .success(scalar)
                case .failure(let mismatch): return .failure(FFIValues.kindMismatch(mismatch, at: index))
                }
            }
        }
        switch returned {
        case .failure(let error): return .failure(error)
        case .success(let scalar): return FFIValues.returnValue(scalar, for: signature.returnCode, in: origin)
        }
    }
}

/// A `vow_then_call` link: when the source fulfils, the call runs on the link's dispatcher
/// and its result resolves the link (a returned PROMISE value is adopted, as with a
/// callback's return); a mismatch rejects it with the type error; a rejection passes
/// through. The C `ctx` and its `destroy` live in the body (see `CLinkBody`).
struct ForeignCallBody: LinkBody, @unchecked Sendable {
    // @unchecked: see `ForeignCall` and `CContext`.
    let call: ForeignCall
    /// Taken over from the entry point: its `destroy` runs in `dispose()`.
    var context: CContext

    func run(from source: Core?, settling link: Core) {
        guard let source else { return }
        if source.isRejected {
            link.settle(like: source)
            return
        }
        switch call.call(with: source.cValue, context: context.ctx) {
        case .success(let value): link.resolve(value, as: value.resolution)
        case .failure(let error): link.reject(error)
        }
    }

    mutating func dispose() { context.destroyNow() }
}
