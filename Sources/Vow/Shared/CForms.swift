// How the C face reads a promise: its value as a `vow_value *` and its error as a
// `vow_error *`, the same handle every time.
//
// A promise fulfilled from C holds the `VowValue` itself, and one rejected from C the
// `VowErrorBox` itself: those are handed out as they are. A promise settled from Swift
// holds a Swift value or error; its C form is made once, on the first read, and kept with
// the promise (the engine's face cache), so reading it twice, or in two callbacks, gives
// the same handle.

/// The C forms of a promise's value and error, made on first use.
final class CForms: @unchecked Sendable {
    // @unchecked: set once under the engine's lock of the promise, then immutable.
    let value: VowValue?
    let error: VowErrorBox?

    init(value: VowValue?, error: VowErrorBox?) {
        self.value = value
        self.error = error
    }
}

extension Core {
    /// The value as C sees it. The promise is fulfilled.
    var cValue: VowValue {
        withCValue { $0 }
    }

    /// Runs `body` with the value as C sees it, borrowed (the promise keeps it; no retain
    /// for a value that came from C). The promise is fulfilled.
    @inline(__always)
    func withCValue<R>(_ body: (VowValue) -> R) -> R {
        if let held = heldObject(VowValue.self) { return held._withUnsafeGuaranteedRef(body) }
        let cached = faceCache { CForms(value: VowValue.bridging(anyValue!), error: nil) }.value
        return body(cached ?? VowValue.bridging(anyValue!))
    }

    /// The error as C sees it (borrowed: the promise keeps it). The promise is rejected.
    var cError: VowErrorBox {
        let error = self.error!
        if let box = error as? VowErrorBox { return box }
        if let vow = error as? VowError, let origin = vow.origin { return origin }
        return faceCache { CForms(value: nil, error: VowErrorBox.boxing(error)) }.error
            ?? VowErrorBox.boxing(error)
    }
}
