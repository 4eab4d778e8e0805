import CVow

// Values (vow.h, "Values"). A `vow_value *` is a `VowValue`.

@c @implementation
public func vow_value_null() -> OpaquePointer? {
    VowValue(.null).retainedHandle
}

@c @implementation
public func vow_value_bool(_ b: Bool) -> OpaquePointer? {
    VowValue(.bool(b)).retainedHandle
}

@c @implementation
public func vow_value_int(_ i: Int64) -> OpaquePointer? {
    VowValue(.int(i)).retainedHandle
}

@c @implementation
public func vow_value_double(_ d: Double) -> OpaquePointer? {
    VowValue(.double(d)).retainedHandle
}

@c @implementation
public func vow_value_string(_ utf8: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let utf8 else { return nil }
    return VowValue.string(utf8).retainedHandle
}

@c @implementation
public func vow_value_bytes(_ bytes: UnsafeRawPointer?, _ n: Int) -> OpaquePointer? {
    guard validCount(n, stride: 1, base: bytes, in: "vow_value_bytes") else { return nil }
    guard n > 0 else { return VowValue(.bytes([])).retainedHandle }
    guard let bytes else { return nil }
    let copy = [UInt8](UnsafeRawBufferPointer(start: bytes, count: n))
    return VowValue(.bytes(copy)).retainedHandle
}

@c @implementation
public func vow_value_pointer(_ p: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    VowValue(.pointer(p, destroy)).retainedHandle
}

@c @implementation
public func vow_value_list(_ items: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    guard validCount(n, stride: MemoryLayout<OpaquePointer?>.stride, base: UnsafeRawPointer(items),
                     in: "vow_value_list") else { return nil }
    guard n > 0 else { return VowValue(.list([])).retainedHandle }
    guard let items else { return nil }
    var values: [VowValue] = []
    values.reserveCapacity(n)
    for index in 0..<n {
        guard let item = valueHandle(items[index], in: "vow_value_list") else { return nil }
        values.append(item)
    }
    return VowValue(.list(values)).retainedHandle
}

@c @implementation
public func vow_value_promise(_ p: OpaquePointer?) -> OpaquePointer? {
    guard let core = promiseHandle(p, in: "vow_value_promise") else { return nil }
    return VowValue(.promise(core)).retainedHandle
}

@c @implementation
public func vow_value_error(_ e: OpaquePointer?) -> OpaquePointer? {
    guard let error = errorHandle(e, in: "vow_value_error") else { return nil }
    return VowValue(.error(error)).retainedHandle
}

@c @implementation
public func vow_value_thenable(_ cls: UnsafePointer<vow_thenable_class>?, _ object: UnsafeMutableRawPointer?,
                               _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guard let cls, cls.pointee.get_then != nil, cls.pointee.call_then != nil else {
        destroy?(object)
        return nil
    }
    return VowValue(.thenable(cls, object, destroy)).retainedHandle
}

@c @implementation
public func vow_value_retain(_ v: OpaquePointer?) -> OpaquePointer? {
    retainHandle(v, .value, in: "vow_value_retain")
}

@c @implementation
public func vow_value_release(_ v: OpaquePointer?) {
    releaseHandle(v, .value, in: "vow_value_release")
}

@c @implementation
public func vow_value_kind(_ v: OpaquePointer?) -> vow_kind {
    valueHandle(v, in: "vow_value_kind")?.kind ?? VOW_KIND_INVALID
}

@c @implementation
public func vow_value_get_bool(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Int32 {
    guard let value = valueHandle(v, in: "vow_value_get_bool"), let out else { return VOW_EINVAL.rawValue }
    guard case .bool(let flag) = value.content else { return VOW_ETYPE.rawValue }
    out.pointee = flag
    return VOW_OK.rawValue
}

@c @implementation
public func vow_value_get_int(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    guard let value = valueHandle(v, in: "vow_value_get_int"), let out else { return VOW_EINVAL.rawValue }
    guard case .int(let integer) = value.content else { return VOW_ETYPE.rawValue }
    out.pointee = integer
    return VOW_OK.rawValue
}

@c @implementation
public func vow_value_get_double(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    guard let value = valueHandle(v, in: "vow_value_get_double"), let out else { return VOW_EINVAL.rawValue }
    switch value.content {
    case .double(let real): out.pointee = real
    case .int(let integer): out.pointee = Double(integer)
    default: return VOW_ETYPE.rawValue
    }
    return VOW_OK.rawValue
}

@c @implementation
public func vow_value_get_string(_ v: OpaquePointer?) -> UnsafePointer<CChar>? {
    valueHandle(v, in: "vow_value_get_string")?.stringPointer
}

@c @implementation
public func vow_value_get_bytes(_ v: OpaquePointer?, _ n: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    guard let value = valueHandle(v, in: "vow_value_get_bytes"), let (bytes, count) = value.bytesPointer else {
        n?.pointee = 0
        return nil
    }
    n?.pointee = count
    return bytes
}

@c @implementation
public func vow_value_get_pointer(_ v: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let value = valueHandle(v, in: "vow_value_get_pointer"),
          case .pointer(let pointer, _) = value.content else { return nil }
    return pointer
}

@c @implementation
public func vow_value_count(_ v: OpaquePointer?) -> Int {
    valueHandle(v, in: "vow_value_count")?.listElements?.count ?? 0
}

@c @implementation
public func vow_value_at(_ v: OpaquePointer?, _ i: Int) -> OpaquePointer? {
    guard let items = valueHandle(v, in: "vow_value_at")?.listElements, i >= 0, i < items.count else { return nil }
    return items[i].borrowedHandle
}

@c @implementation
public func vow_value_get_promise(_ v: OpaquePointer?) -> OpaquePointer? {
    guard let value = valueHandle(v, in: "vow_value_get_promise"),
          case .promise(let core) = value.content else { return nil }
    return core.borrowedHandle
}

@c @implementation
public func vow_value_get_thenable(_ v: OpaquePointer?,
                                   _ cls_out: UnsafeMutablePointer<UnsafePointer<vow_thenable_class>?>?)
    -> UnsafeMutableRawPointer? {
    guard let value = valueHandle(v, in: "vow_value_get_thenable"),
          case .thenable(let cls, let object, _) = value.content else {
        cls_out?.pointee = nil
        return nil
    }
    cls_out?.pointee = cls
    return object
}

@c @implementation
public func vow_value_get_error(_ v: OpaquePointer?) -> OpaquePointer? {
    guard let value = valueHandle(v, in: "vow_value_get_error"),
          case .error(let box) = value.content else { return nil }
    return box.borrowedHandle
}
