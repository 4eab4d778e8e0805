import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// The bridging table of c-api.md, row by row, both ways: a Swift value put into an
    /// `AnyPromise` as C reads it (`vow_promise_value`), and a C value put into a
    /// `vow_promise` as Swift reads it (`AnyPromise(unsafeHandle:)` + `as(T.self)`).
    @Suite("Bridging: the value table") struct ValueTableTests {
        /// The C value Swift's `value` shows (+1 handle; released by the caller).
        private func cValue(of value: Any?) -> OpaquePointer? {
            let handle = AnyPromise.value(value).unsafeRetainedHandle()
            defer { vow_promise_release(handle) }
            return vow_promise_value(handle)
        }

        // MARK: Swift -> C

        @Test("nil, () and Optional.none are NULL")
        func nullsToC() {
            let none: Int? = nil
            for value in [nil, () as Any, none as Any] as [Any?] {
                let c = cValue(of: value)
                #expect(vow_value_kind(c) == VOW_KIND_NULL)
                vow_value_release(c)
            }
            // A Swift promise of Void reads as NULL too.
            let handle = AnyPromise(Promise<Void>.value(())).unsafeRetainedHandle()
            let c = vow_promise_value(handle)
            #expect(vow_value_kind(c) == VOW_KIND_NULL)
            vow_value_release(c)
            vow_promise_release(handle)
        }

        @Test("Bool is BOOL")
        func boolToC() {
            for flag in [true, false] {
                let c = cValue(of: flag)
                var out = !flag
                #expect(vow_value_kind(c) == VOW_KIND_BOOL)
                #expect(vow_value_get_bool(c, &out) == VOW_OK.rawValue)
                #expect(out == flag)
                vow_value_release(c)
            }
        }

        @Test("integers that fit int64 are INT; a UInt64 that does not is SWIFT")
        func integersToC() {
            let cases: [(Any, Int64)] = [(Int(-5), -5), (Int64.max, Int64.max), (Int32.min, Int64(Int32.min)),
                                         (Int16(300), 300), (Int8(-8), -8), (UInt8(255), 255),
                                         (UInt32.max, Int64(UInt32.max)), (UInt64(17), 17)]
            for (swift, expected) in cases {
                let c = cValue(of: swift)
                var out: Int64 = 0
                #expect(vow_value_kind(c) == VOW_KIND_INT, "\(type(of: swift))")
                #expect(vow_value_get_int(c, &out) == VOW_OK.rawValue)
                #expect(out == expected, "\(type(of: swift))")
                vow_value_release(c)
            }
            let big = cValue(of: UInt64.max)
            #expect(vow_value_kind(big) == VOW_KIND_SWIFT)
            vow_value_release(big)
        }

        @Test("Double and Float are DOUBLE")
        func realsToC() {
            for (swift, expected) in [(2.5 as Any, 2.5), (Float(0.25) as Any, 0.25)] {
                let c = cValue(of: swift)
                var out = 0.0
                #expect(vow_value_kind(c) == VOW_KIND_DOUBLE)
                #expect(vow_value_get_double(c, &out) == VOW_OK.rawValue)
                #expect(out == expected)
                var integer: Int64 = 0
                #expect(vow_value_get_int(c, &integer) == VOW_ETYPE.rawValue)
                vow_value_release(c)
            }
        }

        @Test("String is STRING (UTF-8)")
        func stringToC() {
            let c = cValue(of: "héllo, wörld")
            #expect(vow_value_kind(c) == VOW_KIND_STRING)
            #expect(vow_value_get_string(c).map { String(cString: $0) } == "héllo, wörld")
            vow_value_release(c)
        }

        @Test("[UInt8] is BYTES")
        func bytesToC() {
            let c = cValue(of: [UInt8]([1, 2, 3, 250]))
            #expect(vow_value_kind(c) == VOW_KIND_BYTES)
            var count = 0
            let bytes = vow_value_get_bytes(c, &count)
            #expect(count == 4)
            #expect(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } == [1, 2, 3, 250])
            vow_value_release(c)
        }

        @Test("arrays and tuples are LISTs, element by element")
        func listsToC() {
            let array = cValue(of: [10, 20, 30])
            #expect(vow_value_kind(array) == VOW_KIND_LIST)
            #expect(vow_value_count(array) == 3)
            var out: Int64 = 0
            #expect(vow_value_get_int(vow_value_at(array, 2), &out) == VOW_OK.rawValue && out == 30)
            #expect(vow_value_at(array, 3) == nil)
            vow_value_release(array)

            let tuple = cValue(of: (1, "two", 3.0, true))
            #expect(vow_value_kind(tuple) == VOW_KIND_LIST)
            #expect(vow_value_count(tuple) == 4)
            #expect(vow_value_kind(vow_value_at(tuple, 0)) == VOW_KIND_INT)
            #expect(vow_value_get_string(vow_value_at(tuple, 1)).map { String(cString: $0) } == "two")
            #expect(vow_value_kind(vow_value_at(tuple, 2)) == VOW_KIND_DOUBLE)
            #expect(vow_value_kind(vow_value_at(tuple, 3)) == VOW_KIND_BOOL)
            vow_value_release(tuple)

            // An [Any] of bytes is a LIST, not BYTES (only [UInt8] itself is BYTES).
            let anyBytes = cValue(of: [UInt8(1), UInt8(2)] as [Any])
            #expect(vow_value_kind(anyBytes) == VOW_KIND_LIST)
            vow_value_release(anyBytes)
        }

        @Test("AnyPromise and Promise<T> are PROMISE, the same promise")
        func promisesToC() {
            let typed = Promise.value(5)
            let c = cValue(of: typed)
            #expect(vow_value_kind(c) == VOW_KIND_PROMISE)
            let carried = vow_value_get_promise(c)
            #expect(carried == typed.core.borrowedHandle)
            vow_value_release(c)

            let any = AnyPromise(typed)
            let c2 = cValue(of: any)
            #expect(vow_value_get_promise(c2) == typed.core.borrowedHandle)
            vow_value_release(c2)
        }

        @Test("an Error is ERROR: domain is the type's name, code the integer raw value")
        func errorsToC() {
            let c = cValue(of: CodedError.second)
            #expect(vow_value_kind(c) == VOW_KIND_ERROR)
            let error = vow_value_get_error(c)
            let (domain, code, message) = describe(error)
            #expect(domain == "CodedError")
            #expect(code == 42)
            #expect(message == "second")
            vow_value_release(c)

            let plain = cValue(of: TokenError(token: 3))
            #expect(describe(vow_value_get_error(plain)).code == 0)
            #expect(describe(vow_value_get_error(plain)).domain == "TokenError")
            vow_value_release(plain)

            let vow = cValue(of: VowError(domain: "net", code: -3, message: "down", payload: 9))
            let vowError = vow_value_get_error(vow)
            #expect(describe(vowError).domain == "net")
            #expect(describe(vowError).code == -3)
            #expect(describe(vowError).message == "down")
            var payload: Int64 = 0
            #expect(vow_value_get_int(vow_error_payload(vowError), &payload) == VOW_OK.rawValue && payload == 9)
            vow_value_release(vow)
        }

        @Test("a Thenable that is not a promise is THENABLE, and comes back as itself")
        func thenableToC() throws {
            let c = cValue(of: SyncThenable(11))
            #expect(vow_value_kind(c) == VOW_KIND_THENABLE)
            var cls: UnsafePointer<vow_thenable_class>?
            #expect(vow_value_get_thenable(c, &cls) != nil)
            #expect(cls == swiftThenableClass)
            // Resolving a C promise with it assimilates it.
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)
            #expect(vow_resolver_resolve(resolver, c) == VOW_OK.rawValue)
            #expect(intValue(of: promise) == 11)
            vow_resolver_release(resolver)
            vow_promise_release(promise)
            // And Swift reads the value as the thenable itself.
            let back = try swiftValue(of: fulfilledC(vow_value_retain(c)), as: SyncThenable<Int>.self)
            #expect(back.value == 11)
            vow_value_release(c)
        }

        @Test("raw and typed pointers are POINTER")
        func pointersToC() {
            let storage = UnsafeMutablePointer<Int>.allocate(capacity: 1)
            defer { storage.deallocate() }
            for swift in [UnsafeMutableRawPointer(storage) as Any, UnsafeRawPointer(storage) as Any,
                          storage as Any, OpaquePointer(storage) as Any] {
                let c = cValue(of: swift)
                #expect(vow_value_kind(c) == VOW_KIND_POINTER)
                #expect(vow_value_get_pointer(c) == UnsafeMutableRawPointer(storage))
                vow_value_release(c)
            }
        }

        @Test("anything else is SWIFT, and comes back to Swift as the same value")
        func opaqueToC() throws {
            let object = Opaque(77)
            let c = cValue(of: object)
            #expect(vow_value_kind(c) == VOW_KIND_SWIFT)
            let back = try swiftValue(of: fulfilledC(vow_value_retain(c)), as: Opaque.self)
            #expect(back === object)
            vow_value_release(c)
            let dictionary = cValue(of: ["a": 1])
            #expect(vow_value_kind(dictionary) == VOW_KIND_SWIFT)
            vow_value_release(dictionary)
        }

        // MARK: C -> Swift

        @Test("NULL reads as Optional.none and as Void")
        func nullFromC() throws {
            let optional = try swiftValue(of: fulfilledC(vow_value_null()), as: Int?.self)
            #expect(optional == nil)
            try swiftValue(of: fulfilledC(vow_value_null()), as: Void.self)
            let untyped = try convertedValue(of: fulfilledC(vow_value_null()), as: Any?.self)
            #expect(untyped == nil)
            // NULL is not an Int.
            let any = try #require(AnyPromise(unsafeHandle: fulfilledC(vow_value_null())))
            #expect((try error(of: any.as(Int.self)) as? VowError)?.vowCode == .type)
        }

        @Test("BOOL reads as Bool")
        func boolFromC() throws {
            #expect(try swiftValue(of: fulfilledC(vow_value_bool(true)), as: Bool.self) == true)
            #expect(try swiftValue(of: fulfilledC(vow_value_bool(false)), as: Bool?.self) == false)
        }

        @Test("INT reads as every integer type, range-checked, and as Double")
        func intFromC() throws {
            #expect(try swiftValue(of: fulfilledC(vow_value_int(-42)), as: Int.self) == -42)
            #expect(try swiftValue(of: fulfilledC(vow_value_int(Int64.min)), as: Int64.self) == Int64.min)
            #expect(try swiftValue(of: fulfilledC(vow_value_int(-2_000_000_000)), as: Int32.self) == -2_000_000_000)
            #expect(try swiftValue(of: fulfilledC(vow_value_int(255)), as: UInt8.self) == 255)
            #expect(try swiftValue(of: fulfilledC(vow_value_int(7)), as: Double.self) == 7.0)
            #expect(try swiftValue(of: fulfilledC(vow_value_int(3)), as: Float.self) == 3.0)
            #expect(try swiftValue(of: fulfilledC(vow_value_int(9)), as: Int?.self) == 9)

            let tooBig = try #require(AnyPromise(unsafeHandle: fulfilledC(vow_value_int(300))))
            let rangeError = try #require(try error(of: tooBig.as(Int8.self)) as? VowError)
            #expect(rangeError.vowCode == .type)
            #expect(rangeError.message.contains("Int8"))
            #expect(rangeError.message.contains("300"))
            let negative = try #require(AnyPromise(unsafeHandle: fulfilledC(vow_value_int(-1))))
            #expect((try error(of: negative.as(UInt.self)) as? VowError)?.vowCode == .type)
        }

        @Test("DOUBLE reads as Double and Float, not as an integer")
        func doubleFromC() throws {
            #expect(try swiftValue(of: fulfilledC(vow_value_double(1.5)), as: Double.self) == 1.5)
            #expect(try swiftValue(of: fulfilledC(vow_value_double(0.5)), as: Float.self) == 0.5)
            let real = try #require(AnyPromise(unsafeHandle: fulfilledC(vow_value_double(2.0))))
            #expect((try error(of: real.as(Int.self)) as? VowError)?.vowCode == .type)
        }

        @Test("STRING reads as String, BYTES as [UInt8]")
        func textFromC() throws {
            #expect(try swiftValue(of: fulfilledC(vow_value_string("ünïcode")), as: String.self) == "ünïcode")
            #expect(try swiftValue(of: fulfilledC(vow_value_string("sub")), as: Substring.self) == "sub")
            let bytes: [UInt8] = [0, 1, 2, 255]
            let c = bytes.withUnsafeBytes { vow_value_bytes($0.baseAddress, $0.count) }
            #expect(try swiftValue(of: fulfilledC(c), as: [UInt8].self) == bytes)
            #expect(try swiftValue(of: fulfilledC(vow_value_bytes(nil, 0)), as: [UInt8].self) == [])
        }

        @Test("LIST reads as an array, element by element")
        func listFromC() throws {
            let items = [vow_value_int(1), vow_value_int(2), vow_value_int(3)]
            let list = items.withUnsafeBufferPointer { vow_value_list($0.baseAddress, $0.count) }
            items.forEach { vow_value_release($0) }
            #expect(try swiftValue(of: fulfilledC(vow_value_retain(list)), as: [Int].self) == [1, 2, 3])
            #expect(try swiftValue(of: fulfilledC(vow_value_retain(list)), as: [Double].self) == [1, 2, 3])
            let untyped = try convertedValue(of: fulfilledC(vow_value_retain(list)), as: [Any].self)
            #expect(untyped.compactMap { $0 as? Int } == [1, 2, 3])
            let wrong = try #require(AnyPromise(unsafeHandle: fulfilledC(vow_value_retain(list))))
            let message = (try error(of: wrong.as([String].self)) as? VowError)?.message ?? ""
            #expect(message.contains("item 0"))
            vow_value_release(list)
        }

        @Test("PROMISE reads as AnyPromise and as Promise<T>")
        func promiseFromC() throws {
            let inner = fulfilledC(vow_value_int(5))
            defer { vow_promise_release(inner) }
            let any = try swiftValue(of: fulfilledC(vow_value_promise(inner)), as: AnyPromise.self)
            #expect(any.core.borrowedHandle == inner)
            let typed = try swiftValue(of: fulfilledC(vow_value_promise(inner)), as: Promise<Int>.self)
            #expect(try value(of: typed) == 5)
        }

        @Test("ERROR reads as the error: a C error is a VowError")
        func errorFromC() throws {
            let cError = vow_error_new("db", 12, "locked")
            defer { vow_error_release(cError) }
            let read = try swiftValue(of: fulfilledC(vow_value_error(cError)), as: VowError.self)
            #expect(read.domain == "db" && read.code == 12 && read.message == "locked")
            let existential = try swiftValue(of: fulfilledC(vow_value_error(cError)), as: (any Error).self)
            #expect((existential as? VowError)?.code == 12)
        }

        @Test("POINTER reads as UnsafeMutableRawPointer; a NULL pointer as Optional.none")
        func pointerFromC() throws {
            let storage = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
            defer { storage.deallocate() }
            #expect(try convertedValue(of: fulfilledC(vow_value_pointer(storage, nil)), as: UnsafeMutableRawPointer.self) == storage)
            #expect(try convertedValue(of: fulfilledC(vow_value_pointer(storage, nil)), as: UnsafeRawPointer.self) == UnsafeRawPointer(storage))
            #expect(try convertedValue(of: fulfilledC(vow_value_pointer(nil, nil)), as: UnsafeMutableRawPointer?.self) == nil)
        }

        @Test("a typed promise of another type rejects with the type error naming expected and found")
        func typeErrorMessage() throws {
            let any = AnyPromise.value("text")
            let typeError = try #require(try error(of: any.as(Int.self)) as? VowError)
            #expect(typeError.vowCode == .type)
            #expect(typeError.domain == "vow")
            #expect(typeError.message == "expected Int, found String")
            // The same for a Swift value that has no C form.
            let opaque = AnyPromise.value(Opaque(1))
            let message = (try error(of: opaque.as(Int.self)) as? VowError)?.message
            #expect(message == "expected Int, found Opaque")
            // And C sees it with code VOW_ERROR_TYPE.
            let handle = AnyPromise(any.as(Int.self)).unsafeRetainedHandle()
            let waited = waitC(handle)
            #expect(waited.state == VOW_REJECTED)
            #expect(describe(waited.error).code == Int64(VOW_ERROR_TYPE.rawValue))
            waited.release()
            vow_promise_release(handle)
        }

        @Test("Swift values convert through their C form (Int as Int32, [Any] as [Int])")
        func swiftConversions() throws {
            #expect(try value(of: AnyPromise.value(12).as(Int32.self)) == 12)
            #expect(try value(of: AnyPromise.value(12).as(Double.self)) == 12)
            #expect(try value(of: AnyPromise.value([1, 2] as [Any]).as([Int].self)) == [1, 2])
            #expect(try value(of: AnyPromise.value(Int64(5)).as(Int?.self)) == 5)
            #expect((try error(of: AnyPromise.value(Int.max).as(Int16.self)) as? VowError)?.vowCode == .type)
        }
    }
}
