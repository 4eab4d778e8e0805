import Testing
@testable import Vow

// Promises/A+ 1.1, 2.2.2: if onFulfilled is a function...

@Suite("A+ 2.2.2 onFulfilled")
struct APlus_2_2_2 {
    @Test("2.2.2.1 it must be called after promise is fulfilled, with promise's value as its first argument")
    func calledWithValue() throws {
        let token = Token(1)
        let (promise, resolver) = Promise<Token>.pending()
        let seen = promise.then { $0 }
        resolver.fulfill(token)
        #expect(try value(of: seen) === token)
        // And on a promise fulfilled before `then`.
        let direct: Promise<Token> = Promise.value(token).then { $0 }
        #expect(try value(of: direct) === token)
    }

    @Test("2.2.2.2 it must not be called before promise is fulfilled")
    func notBeforeFulfilled() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        let derived = promise.then(on: manual) { value -> Int in
            calls.increment()
            return value
        }
        #expect(manual.drain() == 0)
        #expect(calls.value == 0)
        #expect(derived.isPending)
        resolver.fulfill(2)
        #expect(manual.drain() == 1)
        #expect(calls.value == 1)
        #expect(try value(of: derived) == 2)
    }

    @Test("2.2.2.2 it must not be called before a promise fulfilled later from another thread")
    func notBeforeFulfilledAsync() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let fulfilled = Counter()
        let early = Counter()
        let derived = promise.then { value -> Int in
            if fulfilled.value == 0 { early.increment() }
            return value
        }
        _ = try onNewThread {
            fulfilled.increment()
            resolver.fulfill(3)
        }
        #expect(try value(of: derived) == 3)
        #expect(early.value == 0)
    }

    @Test("2.2.2.3 it must not be called more than once (fulfil twice, fulfil then reject)")
    func calledOnce() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        promise.done(on: manual) { _ in calls.increment() }
        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.reject(TestError())
        promise.core.settle(.fulfilled(3))
        promise.cancel()
        #expect(manual.drain() == 1)
        #expect(calls.value == 1)
    }

    @Test("2.2.2.3 it must not be called more than once when settle attempts race")
    func calledOnceUnderRace() throws {
        let rounds = Stress.iterations(200)
        let runs = SlotCounts(rounds)
        let fulfilments = Counter()
        let barrier = SpinBarrier(parties: 4)
        for round in 0..<rounds {
            let (promise, resolver) = Promise<Int>.pending()
            promise.done(on: .inline) { _ in
                runs.bump(round)
                fulfilments.increment()
            }.catch(on: .inline) { _ in }
            promise.catch(on: .inline) { _ in runs.bump(round) }
            try concurrently(4) { index in
                barrier.arriveAndWait()
                if index % 2 == 0 { resolver.fulfill(index) } else { resolver.reject(TestError(index)) }
            }
        }
        // Exactly one callback per round: onFulfilled when a fulfil won, else onRejected.
        #expect(runs.all == Array(repeating: 1, count: rounds))
        #expect(fulfilments.value <= rounds)
    }
}
