import CVow
import Synchronization
import Testing
@testable import Vow

/// Namespace of the bridging tests (AnyPromise, value bridging, the C entry points called
/// from Swift). Every suite of this folder is nested here, so `swift test --filter
/// Bridging` selects them all and the helpers cannot clash with other folders' helpers.
///
/// None of these suites changes a process-wide setting (`VowRuntime.defaultDispatcher`,
/// `VowRuntime.unhandledErrorHandler`): other suites own those. The C setters are exercised by
/// the C test programs (Tests/C), which run in processes of their own.
enum BridgingTests {}

extension BridgingTests {
    // MARK: A C-style lifetime tracker

    /// What a C callback's `ctx` points at in these tests: counts calls and destroys, and
    /// remembers the last handle a callback saw (as an address, never dereferenced later).
    ///
    /// The ctx is +1 (`ctx`); `trackerDestroy` counts and drops that reference, so a
    /// missing destroy leaks one tracker and a double destroy over-releases it (both are
    /// also visible in the counts, which the tests assert).
    final class Tracker: @unchecked Sendable {
        // @unchecked: `handle` is an immutable C handle (thread-safe by the header's rules);
        // everything else is atomic or locked.
        private let callCount = Atomic<Int>(0)
        private let destroyCount = Atomic<Int>(0)
        private let seen = Atomic<UInt>(0)
        private let order = Locked<[Int]>([])
        /// A number the callbacks use (what to add, which tag to log).
        let number: Int
        /// A handle the callbacks use (an error to throw, a value to return); owned +1.
        let handle: OpaquePointer?
        /// Where `logNumber` logs (itself if nil), so several callbacks share one log.
        let sink: Tracker?

        init(number: Int = 0, handle: OpaquePointer? = nil, sink: Tracker? = nil) {
            self.number = number
            self.handle = handle
            self.sink = sink
        }

        /// A +1 context pointer for a C call that takes `trackerDestroy` as destroy.
        var ctx: UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

        static func from(_ ctx: UnsafeMutableRawPointer?) -> Tracker {
            Unmanaged<Tracker>.fromOpaque(ctx!).takeUnretainedValue()
        }

        func hit() { callCount.wrappingAdd(1, ordering: .sequentiallyConsistent) }
        func log(_ entry: Int) { order.withLock { $0.append(entry) } }
        func remember(_ pointer: OpaquePointer?) {
            seen.store(UInt(bitPattern: pointer.map { Int(bitPattern: UnsafeRawPointer($0)) } ?? 0),
                       ordering: .sequentiallyConsistent)
        }

        var calls: Int { callCount.load(ordering: .sequentiallyConsistent) }
        var destroys: Int { destroyCount.load(ordering: .sequentiallyConsistent) }
        var logged: [Int] { order.withLock { $0 } }
        /// The address of the last handle a callback remembered (0 if none).
        var lastSeen: UInt { seen.load(ordering: .sequentiallyConsistent) }

        fileprivate func destroyed() { destroyCount.wrappingAdd(1, ordering: .sequentiallyConsistent) }

        /// Waits (bounded) until destroy ran at least once, then a little for a second
        /// one that must not come; true if it ran exactly once.
        func destroyedOnce(within seconds: Double = Stress.waitSeconds) -> Bool {
            eventually(within: seconds) { destroys >= 1 } && destroys == 1
        }

        deinit {
            if let handle { releaseAny(handle) }
        }
    }

    /// The destroy of a `Tracker` context: counts, then drops the context's reference.
    static let trackerDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
        let tracker = Unmanaged<Tracker>.fromOpaque(ctx!)
        tracker.takeUnretainedValue().destroyed()
        tracker.release()
    }

    // MARK: C callbacks

    /// on_value: returns the INT value plus the tracker's number; counts and remembers the
    /// value handle.
    static let addNumber: vow_on_value = { ctx, value, out in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        tracker.remember(value)
        var integer: Int64 = 0
        _ = vow_value_get_int(value, &integer)
        let result = vow_value_int(integer + Int64(tracker.number))
        vow_result_return(out, result)
        vow_value_release(result)
    }

    /// on_value: returns the value it got (the same handle); counts and remembers it.
    static let returnSame: vow_on_value = { ctx, value, out in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        tracker.remember(value)
        vow_result_return(out, value)
    }

    /// on_value: logs the tracker's number (order checks); sets nothing.
    static let logNumber: vow_on_value = { ctx, _, _ in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        (tracker.sink ?? tracker).log(tracker.number)
    }

    /// on_error: counts and remembers the error; sets nothing (recovers with NULL).
    static let recover: vow_on_error = { ctx, error, _ in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        tracker.remember(error)
    }

    /// on_error: rethrows the error it got (the same handle); counts.
    static let rethrow: vow_on_error = { ctx, error, out in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        tracker.remember(error)
        vow_result_throw(out, error)
    }

    /// on_value: throws the tracker's handle (a vow_error).
    static let throwHandle: vow_on_value = { ctx, _, out in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        vow_result_throw(out, tracker.handle)
    }

    /// on_value: returns the tracker's handle (a vow_value, e.g. a PROMISE).
    static let returnHandle: vow_on_value = { ctx, _, out in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        vow_result_return(out, tracker.handle)
    }

    /// A plain fn(ctx): counts (finally, cancel handlers).
    static let plainHit: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
        Tracker.from(ctx).hit()
    }

    // MARK: Handles

    /// Releases a handle of any kind (by its tag), for cleanup in `Tracker.deinit`.
    static func releaseAny(_ handle: OpaquePointer) {
        let tag = UnsafeRawPointer(handle).load(fromByteOffset: handleTagOffset, as: UInt32.self)
        switch HandleTag(rawValue: tag) {
        case .value: vow_value_release(handle)
        case .error: vow_error_release(handle)
        case .promise: vow_promise_release(handle)
        case .resolver, .primaryResolver: vow_resolver_release(handle)
        case .dispatcher: vow_dispatcher_release(handle)
        default: break
        }
    }

    /// The address of a handle, to compare identities.
    static func address(_ handle: OpaquePointer?) -> UInt {
        UInt(bitPattern: handle.map { Int(bitPattern: UnsafeRawPointer($0)) } ?? 0)
    }

    /// The outcome of `vow_wait` with a bounded wait: the state and the +1 outs (the
    /// caller releases them).
    struct Waited {
        let state: vow_state
        let value: OpaquePointer?
        let error: OpaquePointer?

        func release() {
            vow_value_release(value)
            vow_error_release(error)
        }
    }

    static func waitC(_ promise: OpaquePointer?, within seconds: Double = Stress.waitSeconds) -> Waited {
        var value: OpaquePointer?
        var error: OpaquePointer?
        let state = vow_wait(promise, seconds, &value, &error)
        return Waited(state: state, value: value, error: error)
    }

    /// The INT a promise fulfils with (bounded wait), or nil.
    static func intValue(of promise: OpaquePointer?) -> Int64? {
        let waited = waitC(promise)
        defer { waited.release() }
        guard waited.state == VOW_FULFILLED else { return nil }
        var integer: Int64 = 0
        guard vow_value_get_int(waited.value, &integer) == VOW_OK.rawValue else { return nil }
        return integer
    }

    /// A C error's domain, code and message, as Swift values.
    static func describe(_ error: OpaquePointer?) -> (domain: String?, code: Int64, message: String?) {
        (vow_error_domain(error).map { String(cString: $0) }, vow_error_code(error),
         vow_error_message(error).map { String(cString: $0) })
    }

    /// The value of a C promise converted to `T` through AnyPromise (bounded wait).
    static func swiftValue<T: Sendable>(of handle: OpaquePointer?, as type: T.Type) throws -> T {
        let any = try #require(AnyPromise(unsafeHandle: handle))
        return try value(of: any.as(T.self))
    }

    /// The value of a C promise (bounded wait) converted to a type a `Promise` cannot carry
    /// (it is not `Sendable`: `Any`, raw pointers), through the same conversion
    /// `AnyPromise.as` uses, on this thread.
    static func convertedValue<T>(of handle: OpaquePointer?, as type: T.Type) throws -> T {
        let any = try #require(AnyPromise(unsafeHandle: handle))
        try #require(any.core.waitUntilSettled(timeout: Stress.waitSeconds))
        _ = try any.wait()
        return try Bridging.cast(any.core.anyValue as Any, to: T.self).get()
    }

    /// Runs `body` with a C value made by `make`, released afterwards.
    static func withValue<R>(_ make: @autoclosure () -> OpaquePointer?, _ body: (OpaquePointer?) throws -> R) rethrows -> R {
        let value = make()
        defer { vow_value_release(value) }
        return try body(value)
    }

    /// A C promise fulfilled with a C value made by `make` (+1; the value's own reference
    /// is dropped, the promise keeps it).
    static func fulfilledC(_ make: @autoclosure () -> OpaquePointer?) -> OpaquePointer? {
        let value = make()
        defer { vow_value_release(value) }
        return vow_promise_fulfilled(value)
    }

    // MARK: Errors only these tests make

    /// A Swift error with an integer raw value (its C code).
    enum CodedError: Int32, Error, Equatable {
        case first = 7
        case second = 42
    }

    /// A Swift error carrying a unique token.
    struct TokenError: Error, Equatable {
        let token: Int
    }

    /// A class error, to check identity (`===`) across C.
    final class ObjectError: Error, Sendable {
        let token: Int
        init(_ token: Int) { self.token = token }
    }

    /// A thenable that never calls back: whatever adopts it stays pending.
    struct NeverThenable<Value>: Thenable {
        func then(_ onSuccess: ((Value) throws -> ())?, _ onFailure: ((Any?) -> ())?) {}
    }

    /// A plain class no bridging knows: crosses into C as SWIFT.
    final class Opaque: Sendable {
        let id: Int
        init(_ id: Int) { self.id = id }
    }
}
