import CVow

/// Conversions between values (`VowValue`, C's `vow_value`) and the C scalars libffi
/// moves, following the table of c-api.md ("libffi"). Pure functions: no locks, no
/// user code; they run on whichever thread makes the call or receives the trampoline call.
enum FFIValues {
    // MARK: Values into arguments (vow_then_call)

    /// How many arguments a promise's value spreads into: a LIST's items; any other value
    /// is a list of one, except the NULL value given to a signature without parameters,
    /// which is no arguments at all (so "v()" can follow a promise that fulfils with
    /// nothing, like `vow_after`). Item `index` is `items?[index] ?? value`.
    @inline(__always)
    static func spreadCount(_ value: VowValue, items: [VowValue]?, parameterCount: Int) -> Int {
        if let items { return items.count }
        if parameterCount == 0, value.isNull { return 0 }
        return 1
    }

    /// Whether `found` values may be spread into `signature`'s parameters, the manifold
    /// rule of PromiseKit for its object arguments, applied to the pointer codes (s, p, V):
    /// a missing value for a pointer parameter is passed as NULL, and values beyond the
    /// last parameter are ignored when every parameter is a pointer (or there are none).
    /// Scalars (b, i, q, d, f) keep the strict count: nil when the spread is fine, else
    /// the type error naming the first missing scalar or the first extra value.
    static func countProblem(found: Int, for signature: Signature) -> VowError? {
        let codes = signature.parameters
        if found < codes.count {
            guard let missing = codes[found...].firstIndex(where: { !$0.isPointer }) else { return nil }
            return countMismatch(position: missing + 1, "missing", found: found, for: signature)
        }
        if found > codes.count, codes.contains(where: { !$0.isPointer }) {
            return countMismatch(position: codes.count + 1, "unexpected", found: found, for: signature)
        }
        return nil
    }

    /// The type error for a spread of `found` values into `signature` at `position`.
    private static func countMismatch(position: Int, _ problem: String, found: Int, for signature: Signature) -> VowError {
        VowError(.type, "argument \(position) \(problem): \(signature.text) takes "
                 + "\(count(signature.parameters.count, "argument")), found \(count(found, "value"))")
    }

    /// The type error for a value that does not fit parameter `index` (0-based).
    static func kindMismatch(_ mismatch: Mismatch, at index: Int) -> VowError {
        VowError(.type, "argument \(index + 1): \(mismatch.text)")
    }

    /// Why one value does not fit a parameter.
    struct Mismatch: Error {
        let text: String
    }

    /// Converts one value to the C type of `code`: INT → q, i (if it fits), d, f;
    /// DOUBLE → d, f; BOOL → b; STRING → s; POINTER → p; NULL → s or p (a NULL pointer);
    /// any value → V (borrowed).
    static func argument(_ value: VowValue, for code: FFICode) -> Result<FFIScalar, Mismatch> {
        switch (code, value.content) {
        case (.bool, .bool(let flag)):
            return .success(.bool(flag))
        case (.int32, .int(let number)):
            guard let narrow = Int32(exactly: number) else {
                return .failure(Mismatch(text: "INT \(number) does not fit in int32_t for 'i'"))
            }
            return .success(.int32(narrow))
        case (.int64, .int(let number)):
            return .success(.int64(number))
        case (.double, .int(let number)):
            return .success(.double(Double(number)))
        case (.double, .double(let number)):
            return .success(.double(number))
        case (.float, .int(let number)):
            return .success(.float(Float(number)))
        case (.float, .double(let number)):
            return .success(.float(Float(number)))
        case (.string, .string):
            return .success(.pointer(value.stringPointer.map { UnsafeMutableRawPointer(mutating: $0) }))
        case (.string, .null), (.pointer, .null):
            return .success(.pointer(nil))
        case (.pointer, .pointer(let address, _)):
            return .success(.pointer(address))
        case (.value, _):
            return .success(.pointer(Unmanaged.passUnretained(value).toOpaque()))
        default:
            return .failure(Mismatch(text: "expected \(expectedKinds(code)) for '\(code.letter)', found \(kindName(value))"))
        }
    }

    // MARK: Scalars into values (returns, trampoline arguments)

    /// The value of a C return of type `code` (`vow_then_call`): v → NULL; b → BOOL;
    /// i, q → INT; d, f → DOUBLE; s → STRING copied (the pointer is not freed; NULL → NULL);
    /// p → POINTER without destroy; V → the returned value, whose reference passes to the
    /// library (NULL → NULL). A V return that is not a `vow_value` is refused (its
    /// reference is not ours to drop).
    static func returnValue(_ scalar: FFIScalar, for code: FFICode, in function: StaticString) -> Result<VowValue, VowError> {
        if code == .value {
            guard case .pointer(let raw?) = scalar else { return .success(VowValue.sharedNull) }
            guard handle(OpaquePointer(raw), as: VowValue.self, in: function) != nil else {
                return .failure(VowError(.type, "the function returned a pointer that is not a vow_value for 'V'"))
            }
            return .success(Unmanaged<VowValue>.fromOpaque(raw).takeRetainedValue())
        }
        return .success(value(of: scalar, for: code))
    }

    /// The value of a trampoline argument of type `code`: strings are copied (before the
    /// call returns), V values retained, NULL s or V give the NULL value. A V argument that
    /// is not a `vow_value` is refused.
    static func argumentValue(_ scalar: FFIScalar, for code: FFICode, in function: StaticString) -> Result<VowValue, VowError> {
        if code == .value {
            guard case .pointer(let raw?) = scalar else { return .success(VowValue.sharedNull) }
            guard let value = handle(OpaquePointer(raw), as: VowValue.self, in: function) else {
                return .failure(VowError(.type, "a pointer that is not a vow_value was passed for 'V'"))
            }
            return .success(value)
        }
        return .success(value(of: scalar, for: code))
    }

    /// Scalars of every code but V.
    private static func value(of scalar: FFIScalar, for code: FFICode) -> VowValue {
        switch scalar {
        case .void: return VowValue.sharedNull
        case .bool(let flag): return VowValue(.bool(flag))
        case .int32(let number): return VowValue(.int(Int64(number)))
        case .int64(let number): return VowValue(.int(number))
        case .double(let number): return VowValue(.double(number))
        case .float(let number): return VowValue(.double(Double(number)))
        case .pointer(let raw):
            if code == .string {
                guard let raw else { return VowValue.sharedNull }
                return VowValue.string(UnsafePointer(raw.assumingMemoryBound(to: CChar.self)))
            }
            return VowValue(.pointer(raw, nil))
        }
    }

    // MARK: Messages

    /// The C kind name of a value, as messages show it (INT, STRING, ...).
    static func kindName(_ value: VowValue) -> String {
        switch value.content {
        case .null: return "NULL"
        case .bool: return "BOOL"
        case .int: return "INT"
        case .double: return "DOUBLE"
        case .string: return "STRING"
        case .bytes: return "BYTES"
        case .pointer: return "POINTER"
        case .list: return "LIST"
        case .promise: return "PROMISE"
        case .error: return "ERROR"
        case .thenable: return "THENABLE"
        case .swift: return "SWIFT"
        }
    }

    private static func expectedKinds(_ code: FFICode) -> String {
        switch code {
        case .void: return "nothing"
        case .bool: return "a BOOL"
        case .int32, .int64: return "an INT"
        case .double, .float: return "an INT or DOUBLE"
        case .string: return "a STRING or NULL"
        case .pointer: return "a POINTER or NULL"
        case .value: return "any value"
        }
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
