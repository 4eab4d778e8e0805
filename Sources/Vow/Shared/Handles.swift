import CVow

#if canImport(Glibc)
import Glibc
#endif

// Handles are the Swift objects themselves, passed to C with `Unmanaged`:
// `vow_promise *` is the engine's `Core`, `vow_value *` a `VowValue`, `vow_error *` a `VowErrorBox`,
// `vow_resolver *` a `CResolver` or a promise's own resolver (`CResolverRef`), `vow_dispatcher *` a `HostDispatcher` or a
// `DispatcherHandle`. A +1 handle is `passRetained`, a borrowed one `passUnretained`;
// `*_retain` / `*_release` are `Unmanaged.retain()` / `.release()`.

/// Checks that `pointer` is a live handle of the kind `tag` and returns its object
/// (borrowed: the caller's own reference keeps it alive for the call).
///
/// NULL returns nil silently. A handle of another kind, a released one or a stray pointer
/// returns nil after writing one line to standard error that names `function`, e.g.
/// `vow: vow_then: expected a vow_promise, got a vow_value`. The tag is read at its fixed
/// offset without retaining the object, so a wrong pointer is not touched further.
@inline(__always)
func handle<T: AnyObject>(_ pointer: OpaquePointer?, _ tag: HandleTag, as type: T.Type,
                          in function: StaticString) -> T? {
    unmanagedHandle(pointer, tag, as: T.self, in: function)?.takeUnretainedValue()
}

/// The same check, handing back the object unretained: `withHandle` runs code with it
/// borrowed (no retain and release per call on the hot entry points).
@inline(__always)
func unmanagedHandle<T: AnyObject>(_ pointer: OpaquePointer?, _ tag: HandleTag, as type: T.Type,
                                   in function: StaticString) -> Unmanaged<T>? {
    guard let pointer else { return nil }
    let raw = UnsafeRawPointer(pointer)
    let found = raw.load(fromByteOffset: handleTagOffset, as: UInt32.self)
    guard found == tag.rawValue else {
        reportWrongHandle(found: found, expected: tag, in: function)
        return nil
    }
    // The tag is what identifies the object: it is written only by the initialiser of the
    // class it names (and overwritten when the object is freed). A checked cast would add
    // nothing here: a stray pointer that got this far would crash it as well. The one
    // exception, another copy of the engine in the process writing the same tags, is
    // checked only while there is one.
    guard isThisEnginesObject(raw, tag, in: function) else { return nil }
    return Unmanaged<T>.fromOpaque(raw)
}

/// One engine per process (`vow_engine_copies.h`): whether the object at `object`, whose
/// tag said `kind`, is an object of this copy of the engine. While the process holds one
/// copy (always, in a correct build) this is one load of this copy's mark; once another
/// copy is loaded, the object's class is checked too, and an object of the other copy is
/// refused with a misuse line that names both files and the fix.
@inline(__always)
func isThisEnginesObject(_ object: UnsafeRawPointer, _ kind: HandleTag, in function: StaticString) -> Bool {
    _fastPath(!vowengine_other_copies()) || checkEngine(of: object, kind, in: function)
}

/// The class check behind `isThisEnginesObject` (two copies loaded): every handle's object
/// is a `HandleObject` or a `Continuation` of the copy that made it, and the other copy's
/// classes are other classes with the same names. The object is borrowed, not retained.
@inline(never)
func checkEngine(of object: UnsafeRawPointer, _ kind: HandleTag, in function: StaticString) -> Bool {
    let ours = Unmanaged<AnyObject>.fromOpaque(object)._withUnsafeGuaranteedRef {
        $0 is HandleObject || $0 is Continuation
    }
    if !ours {
        // The object's first word is its class's metadata, inside the image of its copy.
        let metadata = object.load(as: UnsafeRawPointer.self)
        let theirs = String(cString: vowengine_image_path(metadata))
        let mine = String(cString: vowengine_image_path(nil))
        writeDiagnostic("vow: \(function): the \(kind.typeName) belongs to another copy of the Vow engine "
            + "(in \(theirs)), not to this one (in \(mine)): the process loaded two; "
            + "link the Swift code that shares promises with C against libvow.so, not with a copy of its own")
    }
    return ours
}

/// Runs `body` with the object behind a handle, borrowed for the call (the caller's
/// reference keeps it alive); `fallback` for NULL or a handle of another kind.
@inline(__always)
func withHandle<T: AnyObject, R>(_ pointer: OpaquePointer?, _ tag: HandleTag, as type: T.Type,
                                 in function: StaticString, else fallback: @autoclosure () -> R,
                                 _ body: (T) -> R) -> R {
    guard let unmanaged = unmanagedHandle(pointer, tag, as: T.self, in: function) else { return fallback() }
    return unmanaged._withUnsafeGuaranteedRef(body)
}

/// A class whose objects C holds through one kind of handle: promises, values and errors,
/// each found by its type alone with `handle(_:as:in:)`. (Resolvers come in two forms:
/// `resolverHandle(_:in:)`.)
protocol TaggedHandle: AnyObject {
    /// The tag its handles carry.
    static var handleKind: HandleTag { get }
}

extension Core: TaggedHandle { static var handleKind: HandleTag { .promise } }
extension VowValue: TaggedHandle { static var handleKind: HandleTag { .value } }
extension VowErrorBox: TaggedHandle { static var handleKind: HandleTag { .error } }

/// The object behind a handle of `type`'s kind, e.g. the `Core` behind a `vow_promise *`
/// (see `handle(_:_:as:in:)`).
@inline(__always)
func handle<T: TaggedHandle>(_ pointer: OpaquePointer?, as type: T.Type, in function: StaticString) -> T? {
    handle(pointer, T.handleKind, as: T.self, in: function)
}

/// Writes the one-line diagnostic for a handle of the wrong kind.
@inline(never)
func reportWrongHandle(found: UInt32, expected: HandleTag, in function: StaticString) {
    let got: String
    if let tag = HandleTag(rawValue: found) {
        got = tag == .released ? "a released handle" : "a \(tag.typeName)"
    } else {
        got = "a pointer that is not a vow handle"
    }
    writeDiagnostic("vow: \(function): expected a \(expected.typeName), got \(got)")
}


// MARK: Handing objects to C

/// An object C holds through a handle: a `HandleObject` or a promise.
protocol CHandleConvertible: AnyObject {}

extension HandleObject: CHandleConvertible {}
extension Core: CHandleConvertible {}

extension CHandleConvertible {
    /// A +1 handle for C: the caller releases it.
    @inline(__always)
    var retainedHandle: OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(self).toOpaque())
    }

    /// A borrowed handle for C: valid while something else keeps the object alive.
    @inline(__always)
    var borrowedHandle: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }
}

/// Drops a reference to the handle's object (`vow_test_loop_release`,
/// `vow_trampoline_release`, a promise the C face made and lets go of; the retain and
/// release of promises, values and errors: `Vow/C/CCountedHandles.swift`).
@inline(__always)
func releaseHandle(_ pointer: OpaquePointer?, _ tag: HandleTag, in function: StaticString) {
    unmanagedHandle(pointer, tag, as: AnyObject.self, in: function)?.release()
}

