// C values shown to untyped Swift, and how the untyped face stores what it fulfils a
// promise with (the other way, Swift values shown to C, is shared by both faces:
// Shared/VowValue+Bridging.swift).
//
// C -> untyped Swift (`swiftValue()`): NULL nil, BOOL Bool, INT Int, DOUBLE Double,
// STRING String, BYTES [UInt8], POINTER UnsafeMutableRawPointer?, LIST [Any],
// PROMISE AnyPromise, ERROR the original error, a Swift thenable itself, a foreign
// THENABLE the VowValue itself (it has no Swift form), SWIFT the original value.

extension VowValue {
    /// The untyped Swift view of this value (see the table above). NULL is `nil` (an
    /// `Optional<Any>.none` inside the `Any`).
    func swiftValue() -> Any {
        switch content {
        case .null: return Optional<Any>.none as Any
        case .bool(let flag): return flag
        case .int(let integer): return Int(integer)
        case .double(let real): return real
        case .string(let text): return text
        case .bytes(let bytes): return bytes
        case .pointer(let pointer, _): return pointer as Any
        case .list(let items): return items.map { $0.swiftValue() }
        case .promise(let core): return AnyPromise(core: core)
        case .error(let box): return box.error
        case .thenable(let cls, let object, _):
            if cls == swiftThenableClass, let object { return SwiftThenableBox.from(object).thenable }
            return self
        case .swift(let value): return value
        }
    }

    /// How the untyped face stores a value it fulfils a promise with, as it is (`nil`: the
    /// NULL value). An `AnyPromise` is stored as a PROMISE value (the form C sees it in,
    /// read back in Swift as the same `AnyPromise`), so a promise fulfilled with a promise
    /// fulfilled with a promise ... is freed without recursion too; anything else is
    /// stored as its dynamic type.
    static func stored(_ value: Any?) -> StoredValue {
        guard let value else { return StoredValue(VowValue.sharedNull) }
        if let promise = value as? AnyPromise { return StoredValue(VowValue(.promise(promise.core))) }
        return StoredValue(dynamic: value)
    }
}
