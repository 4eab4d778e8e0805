import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// The untyped Swift face: AnyPromise's own chain, observers and conversions.
    @Suite("Bridging: AnyPromise") struct AnyPromiseTests {
        @Test("AnyPromise(promise) and Promise<T>(anyPromise) are views of one promise")
        func views() throws {
            let (typed, resolver) = Promise<Int>.pending()
            let any = AnyPromise(typed)
            #expect(any.core === typed.core)
            #expect(any.isPending)
            let back = Promise<Int>(any)
            resolver.fulfill(3)
            #expect(try value(of: back) == 3)
            #expect(any.isFulfilled && !any.isRejected)
            #expect(try any.result?.get() as? Int == 3)
            // Cancelling the typed view cancels the source (nothing else waits on it).
            let (source, keep) = Promise<Int>.pending()
            let view = AnyPromise(source).as(Int.self)
            view.cancel()
            #expect(source.isCancelled)
            _ = keep
        }

        @Test("untyped then: values as Any?, returns run the resolution procedure")
        func untypedThen() throws {
            let any = AnyPromise.value(2)
            let doubled = any.then { value in (value as! Int) * 2 }
            #expect(try value(of: doubled.as(Int.self)) == 4)
            // Returning a promise adopts it; returning a thenable assimilates it.
            let adopted = any.then { _ in Promise.value("adopted") }
            #expect(try value(of: adopted.as(String.self)) == "adopted")
            let assimilated = any.then { _ in SyncThenable(9) }
            #expect(try value(of: assimilated.as(Int.self)) == 9)
            // nil is C's NULL value.
            let none = any.then { _ in nil }
            #expect(try value(of: none.as(Int?.self)) == nil)
            let handle = none.unsafeRetainedHandle()
            let c = vow_promise_value(handle)
            #expect(vow_value_kind(c) == VOW_KIND_NULL)
            vow_value_release(c)
            vow_promise_release(handle)
            // A throw rejects; a rejection skips the body.
            let thrown = any.then { _ in throw TokenError(token: 1) }
            #expect(try error(of: thrown.as(Int.self)) as? TokenError == TokenError(token: 1))
            let skipped = Tracker()
            let passed = thrown.then { _ in skipped.hit(); return 0 }
            #expect(try error(of: passed.as(Int.self)) as? TokenError == TokenError(token: 1))
            #expect(skipped.calls == 0)
        }

        @Test("untyped then sees C values in their Swift form")
        func thenSeesSwiftForms() throws {
            let items = [vow_value_int(1), vow_value_string("s"), vow_value_null()]
            let list = items.withUnsafeBufferPointer { vow_value_list($0.baseAddress, $0.count) }
            items.forEach { vow_value_release($0) }
            let handle = fulfilledC(list)
            let any = try #require(AnyPromise(unsafeHandle: handle))
            vow_promise_release(handle)
            let described = any.then { value -> String in
                let array = value as! [Any]
                return "\(array[0] as! Int) \(array[1] as! String) \((array[2] as Any?) == nil || "\(array[2])" == "nil")"
            }
            #expect(try value(of: described.as(String.self)) == "1 s true")
            #expect(try any.wait() is [Any])
        }

        @Test("catch is C's vow_catch: passes values, recovers errors, skips cancellation by default")
        func untypedCatch() throws {
            let recovered = AnyPromise(error: TokenError(token: 2)).catch { error in (error as! TokenError).token * 10 }
            #expect(try value(of: recovered.as(Int.self)) == 20)
            let kept = AnyPromise.value("kept").catch { _ in "replaced" }
            #expect(try value(of: kept.as(String.self)) == "kept")
            let cancelled = AnyPromise(error: VowError.cancelledError)
            let ran = Tracker()
            let skipped = cancelled.catch { _ in ran.hit(); return 1 }
            #expect(isCancellation(try error(of: skipped.as(Int.self))))
            let received = cancelled.catch(policy: .allErrors) { _ in ran.hit(); return 1 }
            #expect(try value(of: received.as(Int.self)) == 1)
            #expect(ran.calls == 1)
        }

        @Test("finally runs whatever happened and settles like its source")
        func untypedFinally() throws {
            let ran = Tracker()
            let fulfilled = AnyPromise.value(5).finally { ran.hit() }
            #expect(try value(of: fulfilled.as(Int.self)) == 5)
            let rejected = AnyPromise(error: TokenError(token: 3)).finally { ran.hit() }
            #expect(try error(of: rejected.as(Int.self)) as? TokenError == TokenError(token: 3))
            #expect(ran.calls == 2)
        }

        @Test("wait returns the value or throws the error")
        func waitObserver() throws {
            #expect(try AnyPromise.value(8).wait() as? Int == 8)
            #expect(throws: TokenError.self) { try AnyPromise(error: TokenError(token: 4)).wait() }
        }

        @Test("observers: result, error, the async value")
        func observers() async throws {
            let any = AnyPromise.value(8)
            #expect(try await any.value as? Int == 8)
            let failed = AnyPromise(error: TokenError(token: 4))
            #expect(failed.error as? TokenError == TokenError(token: 4))
            #expect(throws: TokenError.self) { try failed.wait() }
            await #expect(throws: TokenError.self) { try await failed.value }
            let nothing = try #require(AnyPromise.value(nil).result)
            #expect(try nothing.get() == nil)
        }

        @Test("the seed Thenable: a Swift then returning an AnyPromise adopts it")
        func thenableConformance() throws {
            let (later, resolver) = AnyPromise.pending()
            let chained = Promise.value(1).then { _ in later }
            resolver.fulfill(6)
            #expect(try chained.wait() as? Int == 6)
            // The two-callback seed then on an AnyPromise.
            let seen = Tracker()
            AnyPromise.value(3).then({ value in seen.log(value as! Int) }, nil)
            #expect(eventually { seen.logged == [3] })
        }

        @Test("an AnyResolver resolves by the procedure: an AnyPromise is adopted")
        func resolverProcedure() throws {
            let (promise, resolver) = AnyPromise.pending()
            let (inner, innerResolver) = AnyPromise.pending()
            resolver.resolve(inner)
            #expect(!resolver.isPending)
            innerResolver.fulfill("inner")
            #expect(try value(of: promise.as(String.self)) == "inner")
            let (cyclic, cyclicResolver) = AnyPromise.pending()
            cyclicResolver.resolve(cyclic)
            #expect((try error(of: cyclic.as(Int.self)) as? VowError)?.vowCode == .cycle)
        }
    }
}
