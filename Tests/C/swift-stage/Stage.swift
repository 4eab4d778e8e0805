// Stage.swift: a tiny Swift library for Tests/C/test_swift_bridge.c.
//
// It shows the bridging pattern of swift-api.md ("Bridging from C in Swift")
// from the Swift side: functions exported to C with @_cdecl that take
// `vow_promise *` handles (OpaquePointer), unbox them with
// `AnyPromise(unsafeHandle:)` + `Promise<T>(_:)`, chain in Swift, and hand
// a +1 handle back with `unsafeRetainedHandle()`.
//
// Ownership: every `vow_promise *` argument is borrowed (AnyPromise retains
// what it keeps); every `vow_promise *` result is +1 for the C caller.
// Threads: any; Swift closures run on the dispatcher each function names.
//
// Built by Tests/C/run-c-tests.sh against the same libvow.so as the C tests
// (never a second copy of the engine).
import Vow

/// A Swift error with an integer raw value: C sees domain "StageError", code 7.
enum StageError: Int, Error {
    case unlucky = 7
}

/// Unboxes a borrowed C handle as a `Promise<T>`; nil for NULL or a bad handle.
private func typed<T>(_ handle: OpaquePointer?, as: T.Type) -> Promise<T>? {
    guard let any = AnyPromise(unsafeHandle: handle) else { return nil }
    return Promise<T>(any)
}

/// C: `vow_promise *vow_stage_double_later(vow_promise *p)`: p's Int doubled, on the
/// background dispatcher. A non-Int value rejects with the type error.
@_cdecl("vow_stage_double_later")
public func vow_stage_double_later(_ handle: OpaquePointer?) -> OpaquePointer? {
    guard let promise = typed(handle, as: Int.self) else { return nil }
    let doubled = promise.map(on: .background) { $0 * 2 }
    return AnyPromise(doubled).unsafeRetainedHandle()
}

/// C: `vow_promise *vow_stage_start(int64_t x)`: a Swift chain (x + 1, computed on the
/// background dispatcher, then turned into a String on the default one) for C to continue.
@_cdecl("vow_stage_start")
public func vow_stage_start(_ x: Int64) -> OpaquePointer {
    let chain = Promise<Int64>(on: .background) { x + 1 }
        .map { "n=\($0)" }
    return AnyPromise(chain).unsafeRetainedHandle()
}

/// C: `int64_t vow_stage_finish(vow_promise *p)`: waits in Swift for p (an Int made in C)
/// and returns it; -1 if p rejected or is not an Int, -2 for a NULL handle.
@_cdecl("vow_stage_finish")
public func vow_stage_finish(_ handle: OpaquePointer?) -> Int64 {
    guard let promise = typed(handle, as: Int.self) else { return -2 }
    do {
        return Int64(try promise.wait())
    } catch {
        return -1
    }
}

/// C: `vow_promise *vow_stage_map_on_default(vow_promise *p)`: p's Int plus one, on Swift's
/// `.default` dispatcher (which C's vow_set_default_dispatcher also sets).
@_cdecl("vow_stage_map_on_default")
public func vow_stage_map_on_default(_ handle: OpaquePointer?) -> OpaquePointer? {
    guard let promise = typed(handle, as: Int.self) else { return nil }
    return AnyPromise(promise.map { $0 + 1 }).unsafeRetainedHandle()
}

/// C: `vow_promise *vow_stage_reject_swift_error(void)`: rejected with StageError.unlucky.
@_cdecl("vow_stage_reject_swift_error")
public func vow_stage_reject_swift_error() -> OpaquePointer {
    AnyPromise(Promise<Int>(error: StageError.unlucky)).unsafeRetainedHandle()
}

/// C: `int vow_stage_is_unlucky(vow_promise *p)`: 1 if p rejected with StageError.unlucky
/// (the same Swift error after a trip through C), 0 otherwise.
@_cdecl("vow_stage_is_unlucky")
public func vow_stage_is_unlucky(_ handle: OpaquePointer?) -> Int32 {
    guard let any = AnyPromise(unsafeHandle: handle) else { return 0 }
    do {
        _ = try any.wait()
        return 0
    } catch let error as StageError {
        return error == .unlucky ? 1 : 0
    } catch {
        return 0
    }
}

/// C: `vow_promise *vow_stage_reject_cancellation(void)`: rejected with Swift's
/// CancellationError (C must see a cancellation).
@_cdecl("vow_stage_reject_cancellation")
public func vow_stage_reject_cancellation() -> OpaquePointer {
    AnyPromise(Promise<Int>(error: CancellationError())).unsafeRetainedHandle()
}

/// C: `int vow_stage_is_cancellation(vow_promise *p)`: 1 if p rejected with an error that
/// Swift counts as cancellation (a C cancellation must), 0 otherwise.
@_cdecl("vow_stage_is_cancellation")
public func vow_stage_is_cancellation(_ handle: OpaquePointer?) -> Int32 {
    guard let any = AnyPromise(unsafeHandle: handle) else { return 0 }
    do {
        _ = try any.wait()
        return 0
    } catch {
        return isCancellation(error) ? 1 : 0
    }
}

/// C: `vow_promise *vow_stage_tuple(void)`: fulfilled with the Swift tuple (1, "two", 3.5)
/// (a LIST in C).
@_cdecl("vow_stage_tuple")
public func vow_stage_tuple() -> OpaquePointer {
    AnyPromise(Promise<(Int, String, Double)>.value((1, "two", 3.5))).unsafeRetainedHandle()
}

/// C: `int64_t vow_stage_sum_pair(vow_promise *p)`: waits for p (a LIST of two INTs from C,
/// a manifold) as a Swift tuple (Int, Int) and returns the sum; -1 on error.
@_cdecl("vow_stage_sum_pair")
public func vow_stage_sum_pair(_ handle: OpaquePointer?) -> Int64 {
    guard let any = AnyPromise(unsafeHandle: handle) else { return -2 }
    do {
        let (a, b) = try Promise<(Int, Int)>(any).wait()
        return Int64(a + b)
    } catch {
        return -1
    }
}

/// C: `vow_promise *vow_stage_rethrow(vow_promise *p)`: p (an Int promise) with every error
/// caught in Swift and thrown again as it was caught (issue 16, item 6: a C error that
/// crosses Swift this way must reach C's next callback as the same `vow_error` handle).
@_cdecl("vow_stage_rethrow")
public func vow_stage_rethrow(_ handle: OpaquePointer?) -> OpaquePointer? {
    guard let promise = typed(handle, as: Int.self) else { return nil }
    let rethrown: Promise<Int> = promise.recover(on: .background) { (error: any Error) throws -> Int in throw error }
    return AnyPromise(rethrown).unsafeRetainedHandle()
}

/// C: `vow_promise *vow_stage_swift_string(void)`: fulfilled from Swift with a String (no C
/// form until C reads it).
@_cdecl("vow_stage_swift_string")
public func vow_stage_swift_string() -> OpaquePointer {
    AnyPromise(Promise<String>.value("made in Swift")).unsafeRetainedHandle()
}
