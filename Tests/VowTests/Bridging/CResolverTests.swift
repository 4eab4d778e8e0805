import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// `vow_resolver`: first settle wins (`VOW_EALREADY` after), broken promises, cycles,
    /// and the resolution procedure.
    @Suite("Bridging: C resolvers") struct CResolverTests {
        @Test("the first settle wins; later ones answer VOW_EALREADY and change nothing")
        func already() {
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)
            let one = vow_value_int(1), two = vow_value_int(2)
            let cError = vow_error_new("e", 1, "m")
            #expect(!vow_resolver_is_used(resolver))
            #expect(vow_resolver_fulfill(resolver, one) == VOW_OK.rawValue)
            // The state changed before the call returned.
            #expect(vow_promise_state(promise) == VOW_FULFILLED)
            #expect(vow_resolver_is_used(resolver))
            #expect(vow_resolver_fulfill(resolver, two) == VOW_EALREADY.rawValue)
            #expect(vow_resolver_reject(resolver, cError) == VOW_EALREADY.rawValue)
            #expect(vow_resolver_resolve(resolver, two) == VOW_EALREADY.rawValue)
            let value = vow_promise_value(promise)
            #expect(value == one)
            vow_value_release(value)
            vow_value_release(one)
            vow_value_release(two)
            vow_error_release(cError)
            vow_resolver_release(resolver)
            vow_promise_release(promise)
        }

        @Test("releasing the last reference to an unused resolver rejects with VOW_ERROR_BROKEN")
        func broken() {
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)
            let extra = vow_resolver_retain(resolver)
            #expect(extra == resolver)
            vow_resolver_release(resolver)
            // One reference left: still pending.
            #expect(vow_promise_state(promise) == VOW_PENDING)
            vow_resolver_release(extra)
            let waited = waitC(promise)
            #expect(waited.state == VOW_REJECTED)
            #expect(describe(waited.error).domain == "vow")
            #expect(describe(waited.error).code == Int64(VOW_ERROR_BROKEN.rawValue))
            waited.release()
            vow_promise_release(promise)
        }

        @Test("a resolver that adopted a pending promise may be released freely")
        func adoptedThenReleased() {
            var inner: OpaquePointer?
            let innerPromise = vow_promise_pending(&inner)
            var outer: OpaquePointer?
            let outerPromise = vow_promise_pending(&outer)
            let carried = vow_value_promise(innerPromise)
            #expect(vow_resolver_resolve(outer, carried) == VOW_OK.rawValue)
            // Used up though still pending.
            #expect(vow_promise_state(outerPromise) == VOW_PENDING)
            #expect(vow_resolver_is_used(outer))
            let other = vow_value_int(0)
            #expect(vow_resolver_fulfill(outer, other) == VOW_EALREADY.rawValue)
            vow_resolver_release(outer)
            #expect(vow_promise_state(outerPromise) == VOW_PENDING)
            let value = vow_value_int(17)
            #expect(vow_resolver_fulfill(inner, value) == VOW_OK.rawValue)
            let waited = waitC(outerPromise)
            #expect(waited.state == VOW_FULFILLED)
            #expect(waited.value == value)
            waited.release()
            [carried, other, value].forEach { vow_value_release($0) }
            vow_resolver_release(inner)
            [innerPromise, outerPromise].forEach { vow_promise_release($0) }
        }

        @Test("fulfil keeps a PROMISE value as it is; resolve adopts it")
        func fulfilVersusResolve() {
            let inner = fulfilledC(vow_value_int(3))
            let carried = vow_value_promise(inner)
            var r1: OpaquePointer?
            let p1 = vow_promise_pending(&r1)
            #expect(vow_resolver_fulfill(r1, carried) == VOW_OK.rawValue)
            let kept = vow_promise_value(p1)
            #expect(kept == carried)
            #expect(vow_value_kind(kept) == VOW_KIND_PROMISE)
            vow_value_release(kept)
            var r2: OpaquePointer?
            let p2 = vow_promise_pending(&r2)
            #expect(vow_resolver_resolve(r2, carried) == VOW_OK.rawValue)
            #expect(intValue(of: p2) == 3)
            vow_value_release(carried)
            [r1, r2].forEach { vow_resolver_release($0) }
            [inner, p1, p2].forEach { vow_promise_release($0) }
        }

        @Test("resolving a promise with itself, or a chain leading back to it, rejects with VOW_ERROR_CYCLE")
        func cycles() {
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)
            let itself = vow_value_promise(promise)
            #expect(vow_resolver_resolve(resolver, itself) == VOW_OK.rawValue)
            let waited = waitC(promise)
            #expect(waited.state == VOW_REJECTED)
            #expect(describe(waited.error).code == Int64(VOW_ERROR_CYCLE.rawValue))
            waited.release()
            vow_value_release(itself)
            vow_resolver_release(resolver)
            vow_promise_release(promise)

            // Through a chain: head -> then -> then, and head resolved with the tail.
            var headResolver: OpaquePointer?
            let head = vow_promise_pending(&headResolver)
            let middle = vow_then(head, nil, nil, nil, nil)
            let tail = vow_then(middle, nil, nil, nil, nil)
            let tailValue = vow_value_promise(tail)
            #expect(vow_resolver_resolve(headResolver, tailValue) == VOW_OK.rawValue)
            let chained = waitC(head)
            #expect(chained.state == VOW_REJECTED)
            #expect(describe(chained.error).code == Int64(VOW_ERROR_CYCLE.rawValue))
            chained.release()
            // The rejection travels down the chain.
            #expect(waitC(tail).state == VOW_REJECTED)
            vow_value_release(tailValue)
            vow_resolver_release(headResolver)
            [head, middle, tail].forEach { vow_promise_release($0) }
        }

        @Test("a callback returning a PROMISE value makes the derived promise adopt it")
        func callbackReturnsPromise() {
            var resolver: OpaquePointer?
            let later = vow_promise_pending(&resolver)
            let carried = vow_value_promise(later)
            let tracker = Tracker(handle: carried)
            let source = fulfilledC(vow_value_int(0))
            let derived = vow_then(source, BridgingTests.returnHandle, nil, tracker.ctx, BridgingTests.trackerDestroy)
            #expect(tracker.destroyedOnce())
            #expect(vow_promise_state(derived) == VOW_PENDING)
            let value = vow_value_int(99)
            _ = vow_resolver_fulfill(resolver, value)
            vow_value_release(value)
            #expect(intValue(of: derived) == 99)
            vow_resolver_release(resolver)
            [later, source, derived].forEach { vow_promise_release($0) }
        }

        @Test("an AnyResolver settles once and breaks when dropped unused")
        func anyResolver() throws {
            let (promise, resolver) = AnyPromise.pending()
            resolver.fulfill("first")
            resolver.fulfill("second")
            #expect(try value(of: promise.as(String.self)) == "first")
            #expect(!resolver.isPending)
            var dropped: AnyPromise?
            do {
                let (other, _) = AnyPromise.pending()
                dropped = other
            }
            let broken = try error(of: try #require(dropped).as(Int.self))
            #expect((broken as? VowError)?.vowCode == .broken)
        }
    }
}
