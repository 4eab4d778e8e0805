import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// Values and errors keep their identity across the boundary: the handle that goes in
    /// is the handle that comes out; a Swift error that crosses into C and back is the same
    /// error.
    @Suite("Bridging: identity") struct IdentityTests {
        @Test("a C value that fulfils a promise is the value every reader gets")
        func valueIdentityThroughPromise() throws {
            let same = vow_value_string("same")
            defer { vow_value_release(same) }
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)
            let tracker = Tracker()
            let derived = vow_then(promise, BridgingTests.returnSame, nil, tracker.ctx, BridgingTests.trackerDestroy)
            #expect(vow_resolver_fulfill(resolver, same) == VOW_OK.rawValue)
            let waited = waitC(derived)
            #expect(waited.state == VOW_FULFILLED)
            // The callback saw it, the derived promise holds it, vow_promise_value hands it out.
            #expect(tracker.lastSeen == address(same))
            #expect(waited.value == same)
            let direct = vow_promise_value(promise)
            #expect(direct == same)
            vow_value_release(direct)
            // A Swift chain in between hands it on unchanged too.
            let any = try #require(AnyPromise(unsafeHandle: promise))
            let throughSwift = any.as(VowValue.self).then { $0 }
            _ = try value(of: throughSwift)
            let back = vow_promise_value(AnyPromise(throughSwift).core.borrowedHandle)
            #expect(back == same)
            vow_value_release(back)
            waited.release()
            vow_promise_release(derived)
            vow_promise_release(promise)
            vow_resolver_release(resolver)
            #expect(tracker.destroyedOnce())
        }

        @Test("vow_when hands back the same item handles, and the first rejection's same error")
        func whenKeepsIdentity() {
            let a = vow_value_int(1), b = vow_value_string("b")
            defer { vow_value_release(a); vow_value_release(b) }
            let pa = vow_promise_fulfilled(a), pb = vow_promise_fulfilled(b)
            let inputs = [pa, pb]
            let all = inputs.withUnsafeBufferPointer { vow_when($0.baseAddress, $0.count) }
            let waited = waitC(all)
            #expect(waited.state == VOW_FULFILLED)
            #expect(vow_value_count(waited.value) == 2)
            #expect(vow_value_at(waited.value, 0) == a)
            #expect(vow_value_at(waited.value, 1) == b)
            waited.release()
            vow_promise_release(all)

            let cError = vow_error_new("test", 5, "first")
            let rejected = vow_promise_rejected(cError)
            let mixed = [pa, rejected].withUnsafeBufferPointer { vow_when($0.baseAddress, $0.count) }
            let failed = waitC(mixed)
            #expect(failed.state == VOW_REJECTED)
            #expect(failed.error == cError)
            failed.release()

            // vow_join: values and ERROR values around the same error.
            let joined = [pa, rejected].withUnsafeBufferPointer { vow_join($0.baseAddress, $0.count) }
            let settled = waitC(joined)
            #expect(settled.state == VOW_FULFILLED)
            #expect(vow_value_at(settled.value, 0) == a)
            #expect(vow_value_kind(vow_value_at(settled.value, 1)) == VOW_KIND_ERROR)
            #expect(vow_value_get_error(vow_value_at(settled.value, 1)) == cError)
            settled.release()
            [mixed, joined, rejected, pa, pb].forEach { vow_promise_release($0) }
            vow_error_release(cError)
        }

        @Test("a Swift error crossing into C and back is the same error")
        func swiftErrorRoundTrip() throws {
            let object = ObjectError(31)
            let (head, resolver) = Promise<Int>.pending()
            // Swift rejects; C rethrows what it got; Swift reads it back.
            let tracker = Tracker()
            let handle = AnyPromise(head).unsafeRetainedHandle()
            let derived = vow_then(handle, nil, BridgingTests.rethrow, tracker.ctx, BridgingTests.trackerDestroy)
            let back = try #require(AnyPromise(unsafeHandle: derived))
            resolver.reject(object)
            let seen = try error(of: back.as(Int.self))
            #expect((seen as? ObjectError) === object)
            #expect(tracker.calls == 1)

            // A value-type error comes back equal, with the C face the table describes.
            let (head2, resolver2) = Promise<Int>.pending()
            let handle2 = AnyPromise(head2).unsafeRetainedHandle()
            resolver2.reject(CodedError.first)
            let cError = vow_promise_error(handle2)
            #expect(describe(cError).domain == "CodedError")
            #expect(describe(cError).code == 7)
            // vow_promise_error does not handle the rejection; vow_wait does.
            #expect(vow_wait(handle2, 0, nil, nil) == VOW_REJECTED)
            let rethrown = vow_promise_rejected(cError)
            let again = try error(of: try #require(AnyPromise(unsafeHandle: rethrown)).as(Void.self))
            #expect(again as? CodedError == .first)
            [handle, derived, handle2, rethrown].forEach { vow_promise_release($0) }
            vow_error_release(cError)
            #expect(tracker.destroyedOnce())
        }

        @Test("a C error keeps its handle through Swift and back")
        func cErrorRoundTrip() throws {
            let cError = vow_error_new("app", 3, "bad")
            defer { vow_error_release(cError) }
            let rejected = vow_promise_rejected(cError)
            let any = try #require(AnyPromise(unsafeHandle: rejected))
            vow_promise_release(rejected)
            // Swift sees a VowError...
            let seen = try #require(try error(of: any.as(Int.self)) as? VowError)
            #expect(seen.domain == "app" && seen.code == 3 && seen.message == "bad")
            // ...and a Swift step that passes it on gives C back the same handle.
            let passed = any.then { $0 }
            let handle = passed.unsafeRetainedHandle()
            let waited = waitC(handle)
            #expect(waited.state == VOW_REJECTED)
            #expect(waited.error == cError)
            waited.release()
            vow_promise_release(handle)
            // Reading the error twice gives the same handle.
            let first = vow_promise_error(any.core.borrowedHandle)
            let second = vow_promise_error(any.core.borrowedHandle)
            #expect(first == cError && second == cError)
            vow_error_release(first)
            vow_error_release(second)
        }

        @Test("cancellation maps both ways")
        func cancellationBothWays() throws {
            // C's cancelled error is a CancellableError in Swift.
            let cancelled = vow_error_cancelled()
            let rejected = vow_promise_rejected(cancelled)
            let seen = try error(of: try #require(AnyPromise(unsafeHandle: rejected)).as(Int.self))
            #expect(isCancellation(seen))
            #expect((seen as? any CancellableError)?.isCancelled == true)
            vow_promise_release(rejected)
            vow_error_release(cancelled)

            // Swift's CancellationError is cancelled in C.
            let handle = AnyPromise(error: CancellationError()).unsafeRetainedHandle()
            let cError = vow_promise_error(handle)
            #expect(vow_error_is_cancelled(cError))
            vow_error_release(cError)
            vow_promise_release(handle)

            // A registered pair counts, also for errors made before the registration.
            let early = vow_error_new("bridging.tests.cancel", 99, "stop")
            #expect(!vow_error_is_cancelled(early))
            #expect(vow_register_cancellation("bridging.tests.cancel", 99) == VOW_OK.rawValue)
            #expect(vow_error_is_cancelled(early))
            vow_error_release(early)
        }
    }
}
