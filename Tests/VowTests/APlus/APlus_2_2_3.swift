import Testing
@testable import Vow

// Promises/A+ 1.1, 2.2.3: if onRejected is a function... (`recover` is the typed
// onRejected; the seed `then(_:_:)` takes one too.)

@Suite("A+ 2.2.3 onRejected")
struct APlus_2_2_3 {
    @Test("2.2.3.1 it must be called after promise is rejected, with promise's reason as its first argument")
    func calledWithReason() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let seen = promise.recover { error -> Int in (error as? TestError)?.tag ?? -1 }
        resolver.reject(TestError(7))
        #expect(try value(of: seen) == 7)
        #expect(try value(of: Promise<Int>(error: TestError(8)).recover { ($0 as? TestError)?.tag ?? -1 }) == 8)
    }

    @Test("2.2.3.1 the seed then hands onFailure the original reason")
    func seedReason() throws {
        let reasons = EventLog<Int>()
        let reached = Counter()
        Promise<Int>(error: TestError(9)).then({ _ in }, { reason in
            reasons.append((reason as? TestError)?.tag ?? -1)
            reached.increment()
        })
        #expect(eventually { reached.value == 1 })
        #expect(reasons.all == [9])
    }

    @Test("2.2.3.2 it must not be called before promise is rejected")
    func notBeforeRejected() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        let derived = promise.recover(on: manual) { _ -> Int in
            calls.increment()
            return 0
        }
        #expect(manual.drain() == 0)
        #expect(calls.value == 0)
        #expect(derived.isPending)
        resolver.reject(TestError())
        #expect(manual.drain() == 1)
        #expect(calls.value == 1)
        #expect(try value(of: derived) == 0)
    }

    @Test("2.2.3.3 it must not be called more than once (reject twice, reject then fulfil)")
    func calledOnce() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        let derived = promise.recover(on: manual) { _ -> Int in
            calls.increment()
            return 0
        }
        resolver.reject(TestError(1))
        resolver.reject(TestError(2))
        resolver.fulfill(1)
        promise.core.settle(.rejected(TestError(3)))
        promise.cancel()
        #expect(manual.drain() == 1)
        #expect(calls.value == 1)
        #expect(try value(of: derived) == 0)
    }
}
