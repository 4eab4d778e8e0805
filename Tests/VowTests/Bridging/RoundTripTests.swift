import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// Round trips through a C callback: a typed Swift promise, seen by C (`vow_then` with a
    /// callback that returns the value it got), read back as the same Swift type; and a C
    /// value through a typed Swift step, read back by C.
    @Suite("Bridging: round trips") struct RoundTripTests {
        /// `value` -> Promise<T> -> AnyPromise -> C callback (returns its argument) -> AnyPromise -> T.
        private func throughC<T: Sendable>(_ value: T, as type: T.Type = T.self) throws -> T {
            let handle = AnyPromise(Promise.value(value)).unsafeRetainedHandle()
            let tracker = Tracker()
            let derived = vow_then(handle, BridgingTests.returnSame, nil, tracker.ctx, BridgingTests.trackerDestroy)
            vow_promise_release(handle)
            let any = try #require(AnyPromise(unsafeHandle: derived))
            vow_promise_release(derived)
            let result = try BridgingTests.valueOf(any.as(T.self))
            #expect(tracker.calls == 1)
            return result
        }

        @Test("scalars, text and bytes come back equal")
        func scalars() throws {
            #expect(try throughC(true) == true)
            #expect(try throughC(-7) == -7)
            #expect(try throughC(Int64.max) == Int64.max)
            #expect(try throughC(Int32.min) == Int32.min)
            #expect(try throughC(UInt8(200)) == 200)
            #expect(try throughC(UInt64(1) << 40) == UInt64(1) << 40)
            #expect(try throughC(1.25) == 1.25)
            #expect(try throughC(Float(0.5)) == 0.5)
            #expect(try throughC("text ✓") == "text ✓")
            #expect(try throughC([UInt8]([0, 255, 7])) == [0, 255, 7])
        }

        @Test("optionals, arrays and tuples come back equal")
        func containers() throws {
            #expect(try throughC(Int?.some(3)) == 3)
            #expect(try throughC(Int?.none) == nil)
            #expect(try throughC([1, 2, 3]) == [1, 2, 3])
            #expect(try throughC(["a", "b"]) == ["a", "b"])
            #expect(try throughC([[1], [2, 3]]) == [[1], [2, 3]])
            let pair = try throughC((4, "four"))
            #expect(pair.0 == 4 && pair.1 == "four")
            try throughC(())
        }

        @Test("promises, errors, pointers and opaque values come back as themselves")
        func references() throws {
            // A promise value returned from a callback is adopted (the resolution procedure
            // of vow_result_return), so what comes back is its value.
            let inner = Promise.value(5)
            #expect(try BridgingTests.adoptedThroughC(inner) == 5)
            #expect(try BridgingTests.adoptedThroughC(AnyPromise(inner)) == 5)
            #expect(try throughC(TokenError(token: 8)) == TokenError(token: 8))
            let object = ObjectError(9)
            #expect(try throughC(object) === object)
            let opaque = Opaque(10)
            #expect(try throughC(opaque) === opaque)
            // A raw pointer is not Sendable, so no Promise carries one: it crosses as an
            // untyped value.
            let storage = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
            defer { storage.deallocate() }
            let pointerHandle = AnyPromise.value(storage).unsafeRetainedHandle()
            let pointerTracker = Tracker()
            let derived = vow_then(pointerHandle, BridgingTests.returnSame, nil, pointerTracker.ctx, BridgingTests.trackerDestroy)
            vow_promise_release(pointerHandle)
            #expect(try BridgingTests.convertedValue(of: derived, as: UnsafeMutableRawPointer.self) == storage)
            #expect(pointerTracker.calls == 1)
        }

        @Test("a C value through a typed Swift step comes back to C with its kind and contents")
        func cThroughSwift() throws {
            let source = fulfilledC(vow_value_string("from C"))
            let any = try #require(AnyPromise(unsafeHandle: source))
            vow_promise_release(source)
            let upper = AnyPromise(any.as(String.self).map { $0.uppercased() })
            let handle = upper.unsafeRetainedHandle()
            let waited = waitC(handle)
            #expect(vow_value_kind(waited.value) == VOW_KIND_STRING)
            #expect(vow_value_get_string(waited.value).map { String(cString: $0) } == "FROM C")
            waited.release()
            vow_promise_release(handle)

            let number = fulfilledC(vow_value_int(20))
            let typed = try #require(AnyPromise(unsafeHandle: number)).as(Int32.self).map { $0 + 1 }
            vow_promise_release(number)
            #expect(intValue(of: AnyPromise(typed).core.borrowedHandle) == 21)
        }
    }

    /// A promise-valued promise through a C callback that returns its argument: adopted.
    static func adoptedThroughC<P: Sendable>(_ promise: P) throws -> Int {
        let handle = AnyPromise(Promise.value(promise)).unsafeRetainedHandle()
        let tracker = Tracker()
        let derived = vow_then(handle, BridgingTests.returnSame, nil, tracker.ctx, BridgingTests.trackerDestroy)
        vow_promise_release(handle)
        defer { vow_promise_release(derived) }
        return try #require(intValue(of: derived).map { Int($0) })
    }

    /// `value(of:)` under a name no local variable shadows.
    static func valueOf<T>(_ promise: Promise<T>) throws -> T { try value(of: promise) }
}
