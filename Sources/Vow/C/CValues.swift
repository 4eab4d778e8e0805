import CVow

// Values (vow.h, "Values"). A `vow_value *` is a `VowValue`.

@c @implementation
func vowface_value_null() -> OpaquePointer? {
    VowValue(.null).retainedHandle
}

@c @implementation
func vowface_value_bool(_ b: Bool) -> OpaquePointer? {
    VowValue(.bool(b)).retainedHandle
}

@c @implementation
func vowface_value_int(_ i: Int64) -> OpaquePointer? {
    VowValue(.int(i)).retainedHandle
}

@c @implementation
func vowface_value_double(_ d: Double) -> OpaquePointer? {
    VowValue(.double(d)).retainedHandle
}

@c @implementation
func vowface_value_string(_ utf8: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let utf8 else { return nil }
    return VowValue.string(utf8).retainedHandle
}

@c @implementation
func vowface_value_bytes(_ bytes: UnsafeRawPointer?, _ n: Int) -> OpaquePointer? {
    guard validCount(n, stride: 1, base: bytes, in: "vow_value_bytes") else { return nil }
    guard n > 0 else { return VowValue(.bytes([])).retainedHandle }
    guard let bytes else { return nil }
    let copy = [UInt8](UnsafeRawBufferPointer(start: bytes, count: n))
    return VowValue(.bytes(copy)).retainedHandle
}

@c @implementation
func vowface_value_pointer(_ p: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    VowValue(.pointer(p, destroy)).retainedHandle
}

@c @implementation
func vowface_value_list(_ items: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    guard validCount(n, stride: MemoryLayout<OpaquePointer?>.stride, base: UnsafeRawPointer(items),
                     in: "vow_value_list") else { return nil }
    guard n > 0 else { return VowValue(.list([])).retainedHandle }
    guard let items else { return nil }
    var values: [VowValue] = []
    values.reserveCapacity(n)
    for index in 0..<n {
        guard let item = handle(items[index], as: VowValue.self, in: "vow_value_list") else { return nil }
        values.append(item)
    }
    return VowValue(.list(values)).retainedHandle
}

@c @implementation
func vowface_value_promise(_ p: OpaquePointer?) -> OpaquePointer? {
    guard let core = handle(p, as: Core.self, in: "vow_value_promise") else { return nil }
    return VowValue(.promise(core)).retainedHandle
}

@c @implementation
func vowface_value_error(_ e: OpaquePointer?) -> OpaquePointer? {
    guard let error = handle(e, as: VowErrorBox.self, in: "vow_value_error") else { return nil }
    return VowValue(.error(error)).retainedHandle
}

@c @implementation
func vowface_value_thenable(_ cls: UnsafePointer<vow_thenable_class>?, _ object: UnsafeMutableRawPointer?,
                               _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guard let cls, cls.pointee.get_then != nil, cls.pointee.call_then != nil else {
        destroy?(object)
        return nil
    }
    return VowValue(.thenable(cls, object, destroy)).retainedHandle
}

@c @implementation
func vowface_value_kind(_ v: OpaquePointer?) -> vow_kind {
    withHandle(v, .value, as: VowValue.self, in: "vow_value_kind", else: VOW_KIND_INVALID) { $0.kind }
}

@c @implementation
func vowface_value_get_bool(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Int32 {
    getScalar(v, out, in: "vow_value_get_bool") { if case .bool(let flag) = $0 { flag } else { nil } }
}

@c @implementation
func vowface_value_get_int(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    getScalar(v, out, in: "vow_value_get_int") { if case .int(let integer) = $0 { integer } else { nil } }
}

@c @implementation
func vowface_value_get_double(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    getScalar(v, out, in: "vow_value_get_double") { content in
        switch content {
        case .double(let real): real
        case .int(let integer): Double(integer)
        default: nil
        }
    }
}

/// `vow_value_get_bool`, `_int` and `_double`: writes what `read` finds in the value to
/// `*out` (VOW_OK); VOW_ETYPE if `read` finds nothing (another kind), VOW_EINVAL for a bad
/// handle or a NULL `out`.
@inline(__always)
private func getScalar<T>(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<T>?, in function: StaticString,
                          _ read: (VowValue.Content) -> T?) -> Int32 {
    guard let out else {
        _ = unmanagedHandle(v, .value, as: VowValue.self, in: function)  // the bad handle's line first
        return VOW_EINVAL.rawValue
    }
    return withHandle(v, .value, as: VowValue.self, in: function, else: VOW_EINVAL.rawValue) { value in
        guard let scalar = read(value.content) else { return VOW_ETYPE.rawValue }
        out.pointee = scalar
        return VOW_OK.rawValue
    }
}

@c @implementation
func vowface_value_get_string(_ v: OpaquePointer?) -> UnsafePointer<CChar>? {
    handle(v, as: VowValue.self, in: "vow_value_get_string")?.stringPointer
}

@c @implementation
func vowface_value_get_bytes(_ v: OpaquePointer?, _ n: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    guard let value = handle(v, as: VowValue.self, in: "vow_value_get_bytes"), let (bytes, count) = value.bytesPointer else {
        n?.pointee = 0
        return nil
    }
    n?.pointee = count
    return bytes
}

@c @implementation
func vowface_value_get_pointer(_ v: OpaquePointer?) -> UnsafeMutableRawPointer? {
    readContent(v, in: "vow_value_get_pointer") { if case .pointer(let pointer, _) = $0 { pointer } else { nil } }
}

@c @implementation
func vowface_value_count(_ v: OpaquePointer?) -> Int {
    handle(v, as: VowValue.self, in: "vow_value_count")?.listElements?.count ?? 0
}

@c @implementation
func vowface_value_at(_ v: OpaquePointer?, _ i: Int) -> OpaquePointer? {
    withHandle(v, .value, as: VowValue.self, in: "vow_value_at", else: nil) { value in
        guard case .list(let items) = value.content, i >= 0, i < items.count else { return nil }
        return items[i].borrowedHandle
    }
}

@c @implementation
func vowface_value_get_promise(_ v: OpaquePointer?) -> OpaquePointer? {
    readContent(v, in: "vow_value_get_promise") { if case .promise(let core) = $0 { core.borrowedHandle } else { nil } }
}

@c @implementation
func vowface_value_get_thenable(_ v: OpaquePointer?,
                                   _ cls_out: UnsafeMutablePointer<UnsafePointer<vow_thenable_class>?>?)
    -> UnsafeMutableRawPointer? {
    let thenable = readContent(v, in: "vow_value_get_thenable") {
        if case .thenable(let cls, let object, _) = $0 { (cls, object) } else { nil }
    }
    guard let (cls, object) = thenable else {
        cls_out?.pointee = nil
        return nil
    }
    cls_out?.pointee = cls
    return object
}

@c @implementation
func vowface_value_get_error(_ v: OpaquePointer?) -> OpaquePointer? {
    readContent(v, in: "vow_value_get_error") { if case .error(let box) = $0 { box.borrowedHandle } else { nil } }
}

/// What `read` finds in the content of the value behind `v` (borrowed: the value keeps
/// it); nil for NULL, a handle of another kind (with a diagnostic naming `function`) or a
/// value of another kind.
@inline(__always)
private func readContent<R>(_ v: OpaquePointer?, in function: StaticString,
                            _ read: (VowValue.Content) -> R?) -> R? {
    withHandle(v, .value, as: VowValue.self, in: function, else: nil) { read($0.content) }
}
