import Vow

// C: vow_promise *square_later(vow_promise *number);
@_cdecl("square_later")
public func squareLater(_ number: OpaquePointer?) -> OpaquePointer? {
    guard let input = AnyPromise(unsafeHandle: number) else { return nil }  // retains C's promise
    let squared = Promise<Int>(input).map(on: .background) { $0 * $0 }      // a typed Swift step
    return AnyPromise(squared).unsafeRetainedHandle()                        // +1 for C
}
