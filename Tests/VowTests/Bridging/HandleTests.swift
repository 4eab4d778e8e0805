import CVow
import Testing
@testable import Vow
@testable import VowEngine

extension BridgingTests {
    /// C handles: where the type tag lives, what a wrong or NULL handle does, and the
    /// reference counts of `AnyPromise(unsafeHandle:)` / `unsafeRetainedHandle()`.
    @Suite("Bridging: handles") struct HandleTests {
        @Test("the tag sits right after the 16-byte object header, as the validation reads it")
        func tagOffset() {
            #expect(handleTagOffset == 16)
            let objects: [(AnyObject, HandleTag)] = [
                (VowValue(.int(1)), .value), (Core(), .promise),
                (VowErrorBox.boxing(TokenError(token: 1)), .error),
                (PrimaryResolver(Core(fulfilled: 1)), .resolver),
                (DispatcherHandle(SerialDispatcher()), .dispatcher),
            ]
            for (object, tag) in objects {
                let raw = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
                #expect(raw.load(fromByteOffset: 16, as: UInt32.self) == tag.rawValue)
                if let handleObject = object as? HandleObject { #expect(handleObject.handleTag == tag) }
            }
        }

        @Test("the resolver of vow_promise_pending lives inside its promise, its tag where every handle's is")
        func resolverInsidePromise() {
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)!
            let promiseStart = UnsafeRawPointer(promise)
            let handle = UnsafeRawPointer(resolver!)
            #expect(handle == promiseStart + ResolvableCore.resolverTagOffset - handleTagOffset)
            #expect(handle.load(fromByteOffset: handleTagOffset, as: UInt32.self) == HandleTag.primaryResolver.rawValue)
            #expect(promiseStart.load(fromByteOffset: handleTagOffset, as: UInt32.self) == HandleTag.promise.rawValue)
            let value = vow_value_int(4)
            #expect(vow_resolver_fulfill(resolver, value) == VOW_OK.rawValue)
            vow_resolver_release(resolver)
            // Released: the tag says so while the promise lives on.
            #expect(handle.load(fromByteOffset: handleTagOffset, as: UInt32.self) == HandleTag.released.rawValue)
            #expect(vow_promise_state(promise) == VOW_FULFILLED)
            vow_value_release(value)
            vow_promise_release(promise)
        }

        @Test("a handle of the wrong type is refused with VOW_EINVAL / NULL / INVALID, and destroy still runs")
        func wrongTag() {
            let value = vow_value_int(3)
            let promise = vow_promise_fulfilled(value)
            let cError = vow_error_new("d", 1, "m")
            defer {
                vow_value_release(value)
                vow_promise_release(promise)
                vow_error_release(cError)
            }
            // A value where a promise is expected.
            let tracker = Tracker()
            #expect(vow_then(value, BridgingTests.returnSame, nil, tracker.ctx, BridgingTests.trackerDestroy) == nil)
            #expect(tracker.destroys == 1)
            #expect(tracker.calls == 0)
            #expect(vow_promise_state(value) == VOW_STATE_INVALID)
            #expect(vow_promise_value(cError) == nil)
            // A promise where a value or an error is expected.
            var resolver: OpaquePointer?
            let pending = vow_promise_pending(&resolver)
            #expect(vow_resolver_fulfill(resolver, promise) == VOW_EINVAL.rawValue)
            #expect(vow_resolver_reject(resolver, value) == VOW_EINVAL.rawValue)
            #expect(vow_resolver_fulfill(pending, value) == VOW_EINVAL.rawValue)
            #expect(vow_value_kind(promise) == VOW_KIND_INVALID)
            #expect(vow_error_code(value) == 0)
            #expect(vow_error_domain(promise) == nil)
            #expect(!vow_error_is_cancelled(value))
            #expect(vow_promise_state(pending) == VOW_PENDING)
            // Retain/release of the wrong kind do nothing.
            #expect(vow_value_retain(promise) == nil)
            vow_value_release(promise)
            #expect(vow_promise_state(promise) == VOW_FULFILLED)
            // A pointer that is no handle at all.
            let junk = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
            junk.initializeMemory(as: UInt8.self, repeating: 0xAB, count: 64)
            defer { junk.deallocate() }
            #expect(vow_value_kind(OpaquePointer(junk)) == VOW_KIND_INVALID)
            let second = Tracker()
            #expect(vow_catch(OpaquePointer(junk), BridgingTests.recover, second.ctx, BridgingTests.trackerDestroy) == nil)
            #expect(second.destroys == 1)
            // Settle it before letting go (a broken, unhandled rejection would be reported).
            #expect(vow_resolver_fulfill(resolver, value) == VOW_OK.rawValue)
            vow_resolver_release(resolver)
            vow_promise_release(pending)
        }

        @Test("NULL never crashes: NULL handles, NULL outs, NULL arguments")
        func nulls() {
            #expect(vow_promise_state(nil) == VOW_STATE_INVALID)
            #expect(vow_value_kind(nil) == VOW_KIND_INVALID)
            #expect(vow_value_get_int(nil, nil) == VOW_EINVAL.rawValue)
            let value = vow_value_int(1)
            #expect(vow_value_get_int(value, nil) == VOW_EINVAL.rawValue)
            vow_value_release(value)
            #expect(vow_value_string(nil) == nil)
            #expect(vow_value_bytes(nil, 3) == nil)
            #expect(vow_value_promise(nil) == nil)
            #expect(vow_value_error(nil) == nil)
            #expect(vow_error_new(nil, 1, "m") == nil)
            #expect(vow_promise_pending(nil) == nil)
            #expect(vow_promise_fulfilled(nil) == nil)
            #expect(vow_promise_rejected(nil) == nil)
            #expect(vow_resolver_resolve(nil, nil) == VOW_EINVAL.rawValue)
            #expect(!vow_resolver_is_used(nil))
            #expect(!vow_resolver_is_settled(nil))
            #expect(vow_wait(nil, 0, nil, nil) == VOW_STATE_INVALID)
            #expect(vow_timeout(nil, 1) == nil)
            #expect(vow_when(nil, 0) != nil)
            #expect(vow_when(nil, 2) == nil)
            let items: [OpaquePointer?] = [nil]
            #expect(items.withUnsafeBufferPointer { vow_race($0.baseAddress, 1) } == nil)
            #expect(vow_value_list(nil, 1) == nil)
            vow_promise_release(nil)
            vow_value_release(nil)
            vow_error_release(nil)
            vow_resolver_release(nil)
            vow_dispatcher_release(nil)
            vow_cancel(nil)
            vow_result_return(nil, nil)
            vow_result_throw(nil, nil)
            #expect(AnyPromise(unsafeHandle: nil) == nil)
            #expect(VowRuntime.dispatcher(unsafeHandle: nil) == nil)
        }

        @Test("unsafeRetainedHandle gives C +1; C's release frees the promise once Swift lets go")
        func retainedHandleRefcounts() {
            weak var weakCore: Core?
            var handles: [OpaquePointer] = []
            do {
                let any = AnyPromise.value(1)
                weakCore = any.core
                for _ in 0..<3 { handles.append(any.unsafeRetainedHandle()) }
            }
            // Swift let go; C's three references keep it.
            #expect(weakCore != nil)
            vow_promise_release(handles[0])
            vow_promise_release(handles[1])
            #expect(weakCore != nil)
            #expect(vow_promise_state(handles[2]) == VOW_FULFILLED)
            vow_promise_release(handles[2])
            #expect(weakCore == nil)
        }

        @Test("AnyPromise(unsafeHandle:) retains: the handle may be released at once")
        func unsafeHandleRetains() throws {
            weak var weakCore: Core?
            do {
                let nine = vow_value_int(9)
                let handle = try #require(vow_promise_fulfilled(nine))
                vow_value_release(nine)
                var any = AnyPromise(unsafeHandle: handle)
                weakCore = any?.core
                vow_promise_release(handle)
                #expect(weakCore != nil)
                #expect(try value(of: try #require(any).as(Int.self)) == 9)
                any = nil
            }
            #expect(weakCore == nil)
        }

        @Test("a POINTER's destroy runs once, when the last reference goes, even through a promise")
        func pointerDestroy() {
            let tracker = Tracker()
            let pointer = vow_value_pointer(tracker.ctx, BridgingTests.trackerDestroy)
            let kept = vow_value_retain(pointer)
            let promise = vow_promise_fulfilled(pointer)
            vow_value_release(pointer)
            vow_value_release(kept)
            #expect(tracker.destroys == 0)
            let read = vow_promise_value(promise)
            #expect(vow_value_get_pointer(read) != nil)
            vow_promise_release(promise)
            #expect(tracker.destroys == 0)
            vow_value_release(read)
            #expect(tracker.destroys == 1)
        }

        @Test("borrowed strings, bytes, items and payloads stay the same while their owner lives")
        func borrowedPointersAreStable() {
            let text = vow_value_string("stable")
            #expect(vow_value_get_string(text) == vow_value_get_string(text))
            let payload = vow_value_int(5)
            let cError = vow_error_with_payload("d", 1, nil, payload)
            #expect(vow_error_payload(cError) == payload)
            #expect(vow_error_message(cError).map { String(cString: $0) } == "")
            #expect(vow_error_domain(cError) == vow_error_domain(cError))
            let wrapped = vow_value_error(cError)
            #expect(vow_value_get_error(wrapped) == cError)
            let promise = vow_promise_fulfilled(text)
            let carried = vow_value_promise(promise)
            #expect(vow_value_get_promise(carried) == promise)
            vow_value_release(text)
            vow_value_release(payload)
            vow_error_release(cError)
            vow_promise_release(promise)
            // The promise and the error are still borrowed from the values that keep them.
            #expect(vow_promise_state(vow_value_get_promise(carried)) == VOW_FULFILLED)
            #expect(describe(vow_value_get_error(wrapped)).domain == "d")
            vow_value_release(carried)
            vow_value_release(wrapped)
        }

        @Test("version and status strings")
        func versionAndStatus() {
            #expect(vow_version_number() == Int32(VOW_VERSION_NUMBER))
            #expect(vow_version().map { String(cString: $0) } == "\(VOW_VERSION_MAJOR).\(VOW_VERSION_MINOR).\(VOW_VERSION_PATCH)")
            #expect(vow_status_string(VOW_EALREADY.rawValue).map { String(cString: $0) } == "the resolver was already used")
            #expect(vow_status_string(12345).map { String(cString: $0) } == "unknown status")
        }

        @Test("a Swift library exports a promise to C and consumes one from C")
        func exportAndConsume() throws {
            // Export: a promise-returning Swift function handing C a +1 handle.
            func exported() -> OpaquePointer { AnyPromise(Promise.value(20).map { $0 + 1 }).unsafeRetainedHandle() }
            let handle = exported()
            #expect(intValue(of: handle) == 21)
            // Consume: the incoming C handle wrapped and unboxed.
            let typed = try #require(AnyPromise(unsafeHandle: handle)).as(Int.self)
            vow_promise_release(handle)
            #expect(try value(of: typed.map { $0 * 2 }) == 42)
        }
    }
}
