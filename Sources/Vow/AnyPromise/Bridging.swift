/// The typed view of an untyped value: a checked cast, never a crash. A value of another
/// type rejects with `VowError.Code.type`, naming what was expected and found.
func castValue<T>(_ value: Any, to type: T.Type) -> Result<T, any Error> {
    if let typed = value as? T { return .success(typed) }
    return Bridging.unbox(value, as: type)
}

/// Conversions from the untyped values the engine stores to the types Swift code asks for.
///
/// `castValue` (the typed view, Swift/Promise.swift) tries `value as? T` first and comes
/// here when that fails. C values (`VowValue`) convert per the table in c-api.md:
///
///   NULL      Optional.none (any Optional), Void
///   BOOL      Bool
///   INT       any FixedWidthInteger (range-checked), any BinaryFloatingPoint
///   DOUBLE    any BinaryFloatingPoint
///   STRING    String, Substring
///   BYTES     [UInt8]
///   POINTER   UnsafeMutableRawPointer, UnsafeRawPointer, OpaquePointer (NULL: Optional.none)
///   LIST      [Element] element-wise; tuples of 2 to 5 elements (see AnyPromise+Bridging)
///   PROMISE   AnyPromise, Promise<U> (a converting view)
///   ERROR     the error (the original Swift error, or a VowError)
///   THENABLE  a Swift thenable as itself
///   SWIFT     the original value
///
/// Other Swift values first take their C form (`VowValue.bridging`), so an `Int` reads as
/// an `Int32` (range-checked), an `[Any]` of values as `[Int]`, and so on. A value that
/// does not convert is a `VowError` with code `.type` naming what was expected and found.
@usableFromInline
enum Bridging {
    /// The slow path of `castValue`: `value` is not a `T` as it stands.
    @usableFromInline
    static func unbox<T>(_ value: Any, as type: T.Type) -> Result<T, any Error> {
        if let cValue = value as? VowValue { return convert(cValue, to: T.self) }
        let bridged = VowValue.bridging(value)
        if case .swift(let original) = bridged.content {
            return .failure(typeError(expected: T.self, found: "\(Swift.type(of: original))"))
        }
        return convert(bridged, to: T.self)
    }

    /// The slow path of `Core.typedValue`: the promise holds a value of another type than
    /// `T` (a C value, an untyped value): it is converted, or the type error is thrown.
    @usableFromInline
    static func convertedValue<T>(of promise: Core, to type: T.Type) throws -> T {
        try castValue(promise.anyValue!, to: T.self).get()
    }

    /// Like `castValue`, but a C value is always converted (so `Any` receives the Swift
    /// view of a C value, not the `VowValue` object). Used where untyped values reach
    /// typed Swift code (AnyPromise conversions, list elements).
    static func cast<T>(_ value: Any, to type: T.Type) -> Result<T, any Error> {
        if T.self != VowValue.self, let cValue = value as? VowValue { return convert(cValue, to: T.self) }
        return castValue(value, to: T.self)
    }

    /// Converts a C value to `T`.
    static func convert<T>(_ value: VowValue, to type: T.Type) -> Result<T, any Error> {
        if T.self == VowValue.self { return .success(value as! T) }
        if let optional = T.self as? any BridgedOptional.Type {
            return optional.bridgeOptional(value).map { $0 as! T }
        }
        switch value.content {
        case .null:
            if T.self == Void.self { return .success(() as! T) }
        case .int(let integer):
            if let integerType = T.self as? any FixedWidthInteger.Type {
                guard let exact = exactInteger(integer, as: integerType) else {
                    return .failure(typeError(expected: T.self, found: "\(value.kindDescription), out of range"))
                }
                return .success(exact as! T)
            }
            if let realType = T.self as? any BinaryFloatingPoint.Type {
                return .success(floatingPoint(Double(integer), as: realType) as! T)
            }
        case .double(let real):
            if let realType = T.self as? any BinaryFloatingPoint.Type {
                return .success(floatingPoint(real, as: realType) as! T)
            }
        case .string(let text):
            if T.self == Substring.self { return .success(Substring(text) as! T) }
        case .pointer(let pointer, _):
            if let pointer {
                if T.self == UnsafeRawPointer.self { return .success(UnsafeRawPointer(pointer) as! T) }
                if T.self == OpaquePointer.self { return .success(OpaquePointer(pointer) as! T) }
            }
        case .list(let items):
            if let arrayType = T.self as? any BridgedArray.Type {
                return arrayType.bridgeList(items).map { $0 as! T }
            }
            if (2...5).contains(items.count), let tuple = anyTuple(items.map { $0.swiftValue() }) as? T {
                return .success(tuple)
            }
        case .promise(let core):
            if let promiseType = T.self as? any BridgedPromise.Type {
                return .success(promiseType.bridgePromise(core) as! T)
            }
        case .error(let box):
            if let error = box.error as? T { return .success(error) }
            if let same = box as? T { return .success(same) }
        case .swift(let original):
            if let typed = original as? T { return .success(typed) }
            return .failure(typeError(expected: T.self, found: value.kindDescription))
        case .bool, .bytes, .thenable:
            break
        }
        if let typed = value.swiftValue() as? T { return .success(typed) }
        return .failure(typeError(expected: T.self, found: value.kindDescription))
    }

    /// The type error: `expected Int, found String`.
    static func typeError<T>(expected: T.Type, found: String) -> VowError {
        VowError(.type, "expected \(T.self), found \(found)")
    }

    /// `values` as a tuple of `Any` of the same arity (2 to 5), for a dynamic tuple cast.
    private static func anyTuple(_ values: [Any]) -> Any? {
        switch values.count {
        case 2: return (values[0], values[1])
        case 3: return (values[0], values[1], values[2])
        case 4: return (values[0], values[1], values[2], values[3])
        case 5: return (values[0], values[1], values[2], values[3], values[4])
        default: return nil
        }
    }
}

private func exactInteger<I: FixedWidthInteger>(_ value: Int64, as type: I.Type) -> Any? {
    I(exactly: value)
}

private func floatingPoint<F: BinaryFloatingPoint>(_ value: Double, as type: F.Type) -> Any {
    F(value)
}

// MARK: Helper protocols (runtime checks on generic target types)

/// `Optional<Wrapped>` as a conversion target: NULL (and a NULL pointer) is `.none`,
/// anything else converts to `Wrapped`.
protocol BridgedOptional {
    static func bridgeOptional(_ value: VowValue) -> Result<Any, any Error>
}

extension Optional: BridgedOptional {
    static func bridgeOptional(_ value: VowValue) -> Result<Any, any Error> {
        switch value.content {
        case .null, .pointer(nil, _):
            return .success(Optional<Wrapped>.none as Any)
        default:
            return Bridging.convert(value, to: Wrapped.self).map { Optional<Wrapped>.some($0) as Any }
        }
    }
}

/// `Array<Element>` as a conversion target: a LIST converts element-wise.
protocol BridgedArray {
    static func bridgeList(_ items: [VowValue]) -> Result<Any, any Error>
}

extension Array: BridgedArray {
    static func bridgeList(_ items: [VowValue]) -> Result<Any, any Error> {
        var elements: [Element] = []
        elements.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            switch Bridging.convert(item, to: Element.self) {
            case .success(let element):
                elements.append(element)
            case .failure(let error):
                let reason = (error as? VowError)?.message ?? "\(error)"
                return .failure(VowError(.type, "expected \(Self.self), item \(index): \(reason)"))
            }
        }
        return .success(elements)
    }
}

/// `Promise<U>` as a conversion target: a PROMISE becomes a converting view of it.
protocol BridgedPromise {
    static func bridgePromise(_ core: Core) -> Any
}
