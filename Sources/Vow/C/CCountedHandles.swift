import CVow

// The retain and release of the counted handles: promise, value and error. Their C entry
// points (vow_promise_retain, vow_value_release, ...) are made by the preprocessor from the
// table in Sources/CVow/counted_handles.c; each calls one of these two with its kind, the
// tag its objects carry (see vow_counted_handles.h).

@c @implementation
func vow_counted_retain(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind) -> UnsafeMutableRawPointer? {
    guard let object = countedObject(handle, kind, retaining: true) else { return nil }
    _ = object.retain()
    return handle
}

@c @implementation
func vow_counted_release(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind) {
    countedObject(handle, kind, retaining: false)?.release()
}

/// The object behind a counted handle, unretained: the check of `unmanagedHandle` (NULL:
/// nil, silently), with its common case inline (the tag is `kind`'s and the process holds
/// one copy of the engine: two loads and two compares) and everything else, the misuse line
/// that names the C function included, in `countedObjectSlowPath`.
@inline(__always)
private func countedObject(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind,
                           retaining: Bool) -> Unmanaged<AnyObject>? {
    guard let handle else { return nil }
    let found = UnsafeRawPointer(handle).load(fromByteOffset: handleTagOffset, as: UInt32.self)
    guard _fastPath(found == kind.rawValue && !vow_engine_other_copies()) else {
        return countedObjectSlowPath(handle, kind, retaining: retaining)
    }
    return Unmanaged<AnyObject>.fromOpaque(handle)
}

/// A handle of another kind, a released one or a stray pointer (a misuse line that names
/// `vow_promise_retain`, `vow_value_release`, ...), or another copy of the engine loaded:
/// the whole check of `unmanagedHandle`, with the C function's name.
@inline(never)
private func countedObjectSlowPath(_ handle: UnsafeMutableRawPointer, _ kind: vow_counted_kind,
                                   retaining: Bool) -> Unmanaged<AnyObject>? {
    let (tag, retain, release): (HandleTag, StaticString, StaticString) = switch kind {
    case VOW_COUNTED_VALUE: (.value, "vow_value_retain", "vow_value_release")
    case VOW_COUNTED_ERROR: (.error, "vow_error_retain", "vow_error_release")
    default: (.promise, "vow_promise_retain", "vow_promise_release")
    }
    return unmanagedHandle(OpaquePointer(handle), tag, as: AnyObject.self, in: retaining ? retain : release)
}
