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
    /// lock held. A count or kind mismatch is a `VowError(.type)` naming the position, and
    /// the function is not called. The arguments are converted straight into libffi's
    /// argument slots (no intermediate array).
    func call(with value: VowValue, context: UnsafeMutableRawPointer?) -> Result<VowValue, VowError> {
        let codes = signature.parameters
        let items = value.listElements
        let count = FFIValues.spreadCount(value, items: items, parameterCount: codes.count)
        guard count == codes.count else {
            return .failure(FFIValues.countMismatch(found: count, for: signature))
        }
        // `value` (and through it `items`) owns the strings and values the arguments point
        // at: it is alive across the call.
        let returned = withExtendedLifetime(value) {
            interface.call(function, context: context) { index -> Result<FFIScalar, VowError> in
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

extension Core {
    /// Registers a `vow_then_call` link on this promise and returns the derived promise.
    ///
    /// Like `vow_then`: a `.link` handler on `dispatcher`, which the engine removes if the
    /// derived promise is cancelled first (the call then never runs). When this promise
    /// fulfils, the call runs on `dispatcher` and its result resolves the derived promise
    /// (a returned PROMISE value is adopted, as with a callback's return); a mismatch
    /// rejects it with the type error; a rejection passes through. `callback` holds the
    /// C `ctx` and its `destroy`, which runs when the handler is released.
    func thenCall(_ call: ForeignCall, on dispatcher: any Dispatcher, _ callback: CCallback) -> Core {
        let (derived, target) = derive(on: dispatcher)
        attach(Handler(dispatcher: target, dependent: derived, kind: .link) { outcome in
            guard derived.isPending else { return }
            switch outcome {
            case .fulfilled(let raw):
                switch call.call(with: VowValue.bridging(raw), context: callback.ctx) {
                case .success(let value): derived.resolve(with: value)
                case .failure(let error): derived.settle(.rejected(error))
                }
            case .rejected:
                derived.settle(outcome)
            }
        })
        return derived
    }
}

extension Core {
    /// The resolution procedure for a value known to be a `VowValue`: the same as
    /// `resolveProcedure`, without its dynamic cast (a measurable share of a link's cost).
    @inline(__always)
    fileprivate func resolve(with value: VowValue) {
        switch value.resolution {
        case .adopt(let source): follow(source)
        case .assimilate(let thenable): assimilate(thenable)
        case .fulfil: settle(.fulfilled(value))
        }
    }
}
