import CVow

// Swift thenables shown to C: a Swift `Thenable` that is no promise of this library
// becomes a THENABLE value of the built-in class `swiftThenableClass` (both faces make
// such values: `VowValue.bridging`). Its `call_then` is written against vow.h's public
// resolver functions, as a host's class would be, so it needs nothing of the C face's
// insides. The engine never calls it: its resolution procedure recognizes the class and
// calls the Swift `then` directly (`SwiftThenableSource`); a C program that calls the
// class's functions itself does.

/// A Swift `Thenable` (not a promise of this library) inside a THENABLE value: the object
/// pointer of `swiftThenableClass`.
final class SwiftThenableBox: @unchecked Sendable {
    // @unchecked: immutable; the thenable is only handed on.
    let thenable: any Thenable

    init(_ thenable: any Thenable) { self.thenable = thenable }

    static func from(_ object: UnsafeMutableRawPointer) -> SwiftThenableBox {
        Unmanaged<SwiftThenableBox>.fromOpaque(object).takeUnretainedValue()
    }
}

/// The destroy of a Swift thenable's THENABLE value: drops the box.
let releaseSwiftThenableBox: CDestroy = { object in
    if let object { Unmanaged<SwiftThenableBox>.fromOpaque(object).release() }
}

/// The class of Swift thenables in C: `get_then` finds the Swift `then` (the method
/// pointer is the object itself), `call_then` calls it with callbacks that settle the
/// resolver (a value bridged to C, an error boxed). Lives as long as the process;
/// `nonisolated(unsafe)` because it is written once, here, and only read afterwards.
nonisolated(unsafe) let swiftThenableClass: UnsafePointer<vow_thenable_class> = {
    let cls = UnsafeMutablePointer<vow_thenable_class>.allocate(capacity: 1)
    cls.initialize(to: vow_thenable_class(
        get_then: { object, method, _ in
            method?.pointee = object
            return Int32(VOW_THEN_FOUND.rawValue)
        },
        call_then: { object, _, resolver, _ in
            // The resolver is borrowed for the call: the callbacks keep a reference of
            // their own (NULL, a line on standard error: not a resolver).
            guard let object, let held = HeldResolver(resolver) else { return Int32(VOW_OK.rawValue) }
            callSwiftThen(SwiftThenableBox.from(object).thenable, held)
            return Int32(VOW_OK.rawValue)
        },
        release_method: nil))
    return UnsafePointer(cls)
}()

private func callSwiftThen<T: Thenable>(_ thenable: T, _ resolver: HeldResolver) {
    thenable.then({ value in
        let bridged = VowValue.bridging(value)
        withExtendedLifetime(bridged) { _ = vowface_resolver_resolve(resolver.handle, bridged.borrowedHandle) }
    }, { reason in
        let box = VowErrorBox.boxing(ThenableReason.error(for: reason))
        withExtendedLifetime(box) { _ = vowface_resolver_reject(resolver.handle, box.borrowedHandle) }
    })
}

/// A reference to a `vow_resolver *` (`vow_resolver_retain`), released when the callbacks
/// that hold it go (an unused resolver then rejects its promise as broken).
private final class HeldResolver: @unchecked Sendable {
    // @unchecked: a resolver handle may be used from any thread (vow.h, "Threads").
    let handle: OpaquePointer

    init?(_ borrowed: OpaquePointer?) {
        guard let borrowed, let handle = vowface_resolver_retain(borrowed) else { return nil }
        self.handle = handle
    }

    deinit { vowface_resolver_release(handle) }
}
