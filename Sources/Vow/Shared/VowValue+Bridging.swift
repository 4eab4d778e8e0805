import CVow

// Swift values shown to C: what both faces hand over when C reads a Swift value.
//
// Swift -> C (`VowValue.bridging`), per the table in c-api.md:
//   a VowValue                      itself (identity kept)
//   nil, (), Optional.none          NULL
//   Bool                            BOOL
//   any integer that fits int64     INT
//   Double, Float (any binary FP)   DOUBLE
//   String, Substring               STRING
//   [UInt8] (exactly)               BYTES
//   arrays, slices, tuples          LIST (element-wise)
//   AnyPromise, Promise<T>          PROMISE (the same promise)
//   an Error                        ERROR (boxed; a box passes through)
//   a Thenable that is no promise   THENABLE (class `swiftThenableClass`)
//   raw and typed pointers          POINTER (no destroy)
//   anything else                   SWIFT (opaque; comes back as the same value)
//
// The other way, C values shown to untyped Swift (`swiftValue()`), is the Swift face's:
// AnyPromise/VowValue+Swift.swift.

extension VowValue {
    /// The value C sees for the Swift value `value` (see the table above). A `VowValue`
    /// passes through as itself. Makes a new value (+1 for the caller) otherwise.
    static func bridging(_ value: Any) -> VowValue {
        if let same = value as? VowValue { return same }
        if let optional = value as? any AnyOptional {
            guard let wrapped = optional.wrappedAny else { return sharedNull }
            return bridging(wrapped)
        }
        if value is Void { return sharedNull }
        if let flag = value as? Bool { return VowValue(.bool(flag)) }
        if let integer = value as? any BinaryInteger {
            if let exact = exactInt64(integer) { return VowValue(.int(exact)) }
            return VowValue(.swift(value))
        }
        if let real = value as? any BinaryFloatingPoint { return VowValue(.double(double(real))) }
        if let text = value as? String { return VowValue(.string(text)) }
        if let text = value as? Substring { return VowValue(.string(String(text))) }
        if type(of: value) == [UInt8].self { return VowValue(.bytes(value as! [UInt8])) }
        if let promise = value as? any PromiseView { return VowValue(.promise(promise.promiseCore)) }
        if let outcome = value as? Outcome {
            switch outcome {
            case .fulfilled(let fulfilled): return bridging(fulfilled)
            case .rejected(let error): return VowValue(.error(VowErrorBox.boxing(error)))
            }
        }
        if let error = value as? any Error { return VowValue(.error(VowErrorBox.boxing(error))) }
        if let sequence = value as? any BridgedSequence {
            return VowValue(.list(sequence.bridgedElements.map { bridging($0) }))
        }
        if let thenable = value as? any Thenable {
            let box = SwiftThenableBox(thenable)
            return VowValue(.thenable(swiftThenableClass, Unmanaged.passRetained(box).toOpaque(),
                                      releaseSwiftThenableBox))
        }
        if let pointer = value as? any RawPointerConvertible { return VowValue(.pointer(pointer.mutableRawPointer, nil)) }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .tuple {
            return VowValue(.list(mirror.children.map { bridging($0.value) }))
        }
        return VowValue(.swift(value))
    }
}

private func exactInt64<I: BinaryInteger>(_ integer: I) -> Int64? { Int64(exactly: integer) }

private func double<F: BinaryFloatingPoint>(_ real: F) -> Double { Double(real) }

// MARK: Helper protocols (runtime checks on generic types)

/// Lets bridging look inside an `Optional` held in an `Any`.
protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}

/// Sequences that become a LIST.
protocol BridgedSequence {
    var bridgedElements: [Any] { get }
}

extension Array: BridgedSequence {
    var bridgedElements: [Any] { map { $0 as Any } }
}

extension ArraySlice: BridgedSequence {
    var bridgedElements: [Any] { map { $0 as Any } }
}

extension ContiguousArray: BridgedSequence {
    var bridgedElements: [Any] { map { $0 as Any } }
}

/// Pointer types that become a POINTER.
protocol RawPointerConvertible {
    var mutableRawPointer: UnsafeMutableRawPointer { get }
}

extension UnsafeMutableRawPointer: RawPointerConvertible {
    var mutableRawPointer: UnsafeMutableRawPointer { self }
}

extension UnsafeRawPointer: RawPointerConvertible {
    var mutableRawPointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(mutating: self) }
}

extension UnsafeMutablePointer: RawPointerConvertible {
    var mutableRawPointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}

extension UnsafePointer: RawPointerConvertible {
    var mutableRawPointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(mutating: self) }
}

extension OpaquePointer: RawPointerConvertible {
    var mutableRawPointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}

/// The promise types of the Swift API (`Promise<T>`, `AnyPromise`): views of a `Core`.
protocol PromiseView {
    var promiseCore: Core { get }
}
