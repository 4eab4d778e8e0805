import CVow

// Status strings (vow.h, "Status codes"). The strings are static: C string literals in
// the binary, never freed. vow_version and vow_version_number are C
// (Sources/CVow/version.c), made from the header's version macros.

@c @implementation
func vowface_status_string(_ status: Int32) -> UnsafePointer<CChar>? {
    switch status {
    case VOW_OK.rawValue: return cString("ok")
    case VOW_EINVAL.rawValue: return cString("invalid argument (NULL, or a handle of the wrong type)")
    case VOW_EALREADY.rawValue: return cString("the resolver was already used")
    case VOW_ETYPE.rawValue: return cString("the value is of another kind")
    case VOW_ESIGNATURE.rawValue: return cString("malformed libffi signature")
    case VOW_ENOMEM.rawValue: return cString("out of memory")
    default: return cString("unknown status")
    }
}

/// A static string literal as a C string (its storage is in the binary, NUL-terminated).
@inline(__always)
private func cString(_ literal: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)
}
