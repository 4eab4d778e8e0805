import Testing
@testable import Vow

// Promises/A+ 1.1, 2.2.7: then must return a promise: promise2 = promise1.then(onFulfilled,
// onRejected). In the typed API `then`/`map`/`flatMap` carry onFulfilled, `recover`
// carries onRejected.

@Suite("A+ 2.2.7 then returns a promise")
struct APlus_2_2_7 {
    @Test("2.2.7 then returns a new promise, distinct from the one it was called on")
    func returnsNewPromise() throws {
        let (promise1, resolver) = Promise<Int>.pending()
        let promise2 = promise1.then { $0 }
        let promise3 = promise1.recover { _ in 0 }
        #expect(promise2.core !== promise1.core)
        #expect(promise3.core !== promise1.core)
        #expect(promise2.isPending && promise3.isPending)
        resolver.fulfill(1)
        #expect(try value(of: promise2) == 1)
    }

    @Test("2.2.7.1 onFulfilled returns a value x: promise2 is fulfilled with x")
    func onFulfilledValue() throws {
        let token = Token()
        #expect(try value(of: Promise.value(1).then { _ in token }) === token)
        let (pending, resolver) = Promise<Int>.pending()
        let derived = pending.map { $0 * 2 }
        resolver.fulfill(21)
        #expect(try value(of: derived) == 42)
    }

    @Test("2.2.7.1 onFulfilled returns a promise x: promise2 adopts it")
    func onFulfilledPromise() throws {
        let manual = ManualDispatcher()
        let (inner, innerResolver) = Promise<String>.pending()
        let derived = Promise.value(1).then(on: manual) { _ in inner }
        #expect(manual.drain() == 1)
        // The callback ran and returned a pending promise: promise2 waits for it.
        #expect(derived.isPending)
        innerResolver.fulfill("adopted")
        #expect(try value(of: derived) == "adopted")
        #expect(try value(of: Promise.value(1).flatMap { _ in Promise<Int>(error: TestError(2)) }.recover { ($0 as? TestError)?.tag ?? -1 }) == 2)
    }

    @Test("2.2.7.1 onFulfilled returns a thenable x: promise2 assimilates it")
    func onFulfilledThenable() throws {
        #expect(try value(of: Promise.value(1).then { SyncThenable($0 + 1) }) == 2)
        #expect(try value(of: Promise.value(1).then { AsyncThenable($0 + 2) }) == 3)
    }

    @Test("2.2.7.1 onRejected returns a value or a promise: promise2 is resolved with it")
    func onRejectedValue() throws {
        #expect(try value(of: Promise<Int>(error: TestError()).recover { _ in 5 }) == 5)
        #expect(try value(of: Promise<Int>(error: TestError()).recover { _ in Promise.value(6) }) == 6)
        #expect(try error(of: Promise<Int>(error: TestError(1)).recover { _ in Promise<Int>(error: TestError(2)) }) as? TestError == TestError(2))
    }

    @Test("2.2.7.2 onFulfilled throws e: promise2 is rejected with e as the reason")
    func onFulfilledThrows() throws {
        let derived = Promise.value(1).then { _ -> Int in throw TestError(3) }
        #expect(try error(of: derived) as? TestError == TestError(3))
        let promiseReturning = Promise.value(1).then { _ -> Promise<Int> in throw TestError(4) }
        #expect(try error(of: promiseReturning) as? TestError == TestError(4))
        let thenableReturning = Promise.value(1).then { _ -> SyncThenable<Int> in throw TestError(5) }
        #expect(try error(of: thenableReturning) as? TestError == TestError(5))
    }

    @Test("2.2.7.2 onRejected throws e: promise2 is rejected with e as the reason")
    func onRejectedThrows() throws {
        let derived = Promise<Int>(error: TestError(1)).recover { _ -> Int in throw TestError(6) }
        #expect(try error(of: derived) as? TestError == TestError(6))
        let promiseForm = Promise<Int>(error: TestError(1)).recover { _ -> Promise<Int> in throw TestError(7) }
        #expect(try error(of: promiseForm) as? TestError == TestError(7))
    }

    @Test("2.2.7.2 seed then: a throwing onSuccess hands its error to onFailure")
    func seedThrowGoesToOnFailure() throws {
        let reasons = EventLog<Int>()
        Promise.value(1).then({ _ in throw TestError(8) }, { reason in
            reasons.append((reason as? TestError)?.tag ?? -1)
        })
        #expect(eventually { reasons.count == 1 })
        #expect(reasons.all == [8])
    }

    @Test("2.2.7.3 onFulfilled absent and promise1 fulfilled: promise2 is fulfilled with the same value")
    func passThroughValue() throws {
        let token = Token()
        #expect(try value(of: Promise.value(token).recover { _ in Token() }) === token)
        let (pending, resolver) = Promise<Token>.pending()
        let derived = pending.recover { _ in Token() }
        resolver.fulfill(token)
        #expect(try value(of: derived) === token)
    }

    @Test("2.2.7.4 onRejected absent and promise1 rejected: promise2 is rejected with the same reason")
    func passThroughReason() throws {
        #expect(try error(of: Promise<Int>(error: TestError(9)).then { $0 + 1 }) as? TestError == TestError(9))
        let (pending, resolver) = Promise<Int>.pending()
        let derived = pending.then { $0 + 1 }.map { $0 * 2 }.then { Promise.value($0) }
        resolver.reject(TestError(10))
        #expect(try error(of: derived) as? TestError == TestError(10))
    }
}
