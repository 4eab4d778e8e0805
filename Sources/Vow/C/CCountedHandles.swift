import CVow

// The retain and release of the counted handles: promise, value and error. Their C entry
// points (vow_promise_retain, vow_value_release, ...) are made by the preprocessor from the
// table in Sources/CVow/counted_handles.c; each calls one of these two with its kind (see
// vow_counted_handles.h).

@c @implementation
func vow_counted_retain(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind) -> UnsafeMutableRawPointer? {
    let entry = CountedEntry(kind)
    return UnsafeMutableRawPointer(retainHandle(OpaquePointer(handle), entry.tag, in: entry.retain))
}

@c @implementation
func vow_counted_release(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind) {
    let entry = CountedEntry(kind)
    releaseHandle(OpaquePointer(handle), entry.tag, in: entry.release)
}

/// A counted handle's kind as the checks read it: its tag, and the names of its C retain
/// and release, which their misuse lines give.
private struct CountedEntry {
    let tag: HandleTag
    let retain: StaticString
    let release: StaticString

    @inline(__always)
    init(_ kind: vow_counted_kind) {
        switch kind {
        case VOW_COUNTED_VALUE: (tag, retain, release) = (.value, "vow_value_retain", "vow_value_release")
        case VOW_COUNTED_ERROR: (tag, retain, release) = (.error, "vow_error_retain", "vow_error_release")
        default: (tag, retain, release) = (.promise, "vow_promise_retain", "vow_promise_release")
        }
    }
}
