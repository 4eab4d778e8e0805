import CVow

// The retain and release of the counted handles: promise, value and error. Their C entry
// points (vow_promise_retain, vow_value_release, ...) are made by the preprocessor from the
// table in Sources/CVow/counted_handles.c; each calls one of these two with its kind, the
// tag its objects carry (see vow_counted_handles.h).

@c @implementation
func vowface_counted_retain(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind) -> UnsafeMutableRawPointer? {
    guard let object = countedObject(handle, kind, retaining: true) else { return nil }
    _ = object.retain()
    return handle
}

@c @implementation
func vowface_counted_release(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind) {
    countedObject(handle, kind, retaining: false)?.release()
}

/// The object behind a counted handle, unretained: the check of `unmanagedHandle` (NULL:
/// nil, silently), with its common case inline (the tag is `kind`'s and the process holds
/// one copy of the engine: two loads and two compares) and the rest, each with the C
/// function's name, out of line: a wrong handle (`countedMisuse`) or another copy of the
/// engine loaded (`countedIsThisEnginesObject`).
@inline(__always)
private func countedObject(_ handle: UnsafeMutableRawPointer?, _ kind: vow_counted_kind,
                           retaining: Bool) -> Unmanaged<AnyObject>? {
    guard let handle else { return nil }
    let found = UnsafeRawPointer(handle).load(fromByteOffset: handleTagOffset, as: UInt32.self)
    guard _fastPath(found == kind.rawValue) else {
        countedMisuse(found: found, kind, retaining: retaining)
        return nil
    }
    guard _fastPath(!vowengine_other_copies())
            || countedIsThisEnginesObject(handle, kind, retaining: retaining) else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(handle)
}

/// The misuse line of a counted handle's retain or release given a handle of another
/// kind, a released one or a stray pointer.
@inline(never)
private func countedMisuse(found: UInt32, _ kind: vow_counted_kind, retaining: Bool) {
    let entry = CountedEntry(kind)
    reportWrongHandle(found: found, expected: entry.tag, in: retaining ? entry.retain : entry.release)
}

/// `isThisEnginesObject` for a counted handle, once another copy of the engine is loaded.
@inline(never)
private func countedIsThisEnginesObject(_ handle: UnsafeMutableRawPointer, _ kind: vow_counted_kind,
                                        retaining: Bool) -> Bool {
    let entry = CountedEntry(kind)
    return checkEngine(of: UnsafeRawPointer(handle), entry.tag, in: retaining ? entry.retain : entry.release)
}

/// A counted handle's kind as the checks name it: its tag, and its C retain and release.
private struct CountedEntry {
    let tag: HandleTag
    let retain: StaticString
    let release: StaticString

    init(_ kind: vow_counted_kind) {
        switch kind {
        case VOW_COUNTED_VALUE: (tag, retain, release) = (.value, "vow_value_retain", "vow_value_release")
        case VOW_COUNTED_ERROR: (tag, retain, release) = (.error, "vow_error_retain", "vow_error_release")
        default: (tag, retain, release) = (.promise, "vow_promise_retain", "vow_promise_release")
        }
    }
}
