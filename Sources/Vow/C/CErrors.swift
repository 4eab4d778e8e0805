import CVow

// Errors (vow.h, "Errors"). A `vow_error *` is a `VowErrorBox`.

@c @implementation
func vowface_error_new(_ domain: UnsafePointer<CChar>?, _ code: Int64,
                          _ message: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let domain else { return nil }
    return VowErrorBox(domain: String(cString: domain), code: code,
                       message: message.map { String(cString: $0) } ?? "").retainedHandle
}

@c @implementation
func vowface_error_with_payload(_ domain: UnsafePointer<CChar>?, _ code: Int64,
                                   _ message: UnsafePointer<CChar>?, _ payload: OpaquePointer?) -> OpaquePointer? {
    guard let domain else { return nil }
    let value = payload == nil ? nil : handle(payload, as: VowValue.self, in: "vow_error_with_payload")
    if payload != nil && value == nil { return nil }
    return VowErrorBox(domain: String(cString: domain), code: code,
                       message: message.map { String(cString: $0) } ?? "", payload: value).retainedHandle
}

@c @implementation
func vowface_error_cancelled() -> OpaquePointer? {
    VowErrorBox.boxing(VowError.cancelledError).retainedHandle
}

@c @implementation
func vowface_error_domain(_ e: OpaquePointer?) -> UnsafePointer<CChar>? {
    handle(e, as: VowErrorBox.self, in: "vow_error_domain")?.domainPointer
}

@c @implementation
func vowface_error_code(_ e: OpaquePointer?) -> Int64 {
    handle(e, as: VowErrorBox.self, in: "vow_error_code")?.code ?? 0
}

@c @implementation
func vowface_error_message(_ e: OpaquePointer?) -> UnsafePointer<CChar>? {
    handle(e, as: VowErrorBox.self, in: "vow_error_message")?.messagePointer
}

@c @implementation
func vowface_error_payload(_ e: OpaquePointer?) -> OpaquePointer? {
    handle(e, as: VowErrorBox.self, in: "vow_error_payload")?.payload?.borrowedHandle
}

@c @implementation
func vowface_error_is_cancelled(_ e: OpaquePointer?) -> Bool {
    handle(e, as: VowErrorBox.self, in: "vow_error_is_cancelled")?.isCancelled ?? false
}

@c @implementation
func vowface_register_cancellation(_ domain: UnsafePointer<CChar>?, _ code: Int64) -> Int32 {
    guard let domain else { return VOW_EINVAL.rawValue }
    VowError.registerCancellation(domain: String(cString: domain), code: code)
    return VOW_OK.rawValue
}
