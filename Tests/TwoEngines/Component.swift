// Component.swift: a Swift component built the wrong way on purpose, with a copy of the
// engine of its own (through the SwiftPM product VowTesting), for a C program that links the
// installed libvow.so. scripts/check-two-engines.sh builds it and checks that the process is
// told at once (one line when the second copy loads) and that each copy refuses the
// other's handles (NULL or nil plus a misuse line), never misreading them.

import Vow

// C: vow_promise *twin_double(vow_promise *number);
// Given a promise of libvow.so: AnyPromise(unsafeHandle:) refuses it, so this returns NULL.
@_cdecl("twin_double")
public func twinDouble(_ number: OpaquePointer?) -> OpaquePointer? {
    guard let input = AnyPromise(unsafeHandle: number) else { return nil }
    return AnyPromise(Promise<Int>(input).map { $0 * 2 }).unsafeRetainedHandle()
}

// C: vow_promise *twin_made_here(int64_t n);
// A promise of this copy, for libvow.so's entry points to refuse.
@_cdecl("twin_made_here")
public func twinMadeHere(_ n: Int64) -> OpaquePointer? {
    AnyPromise(Promise<Int>.value(Int(n))).unsafeRetainedHandle()
}
