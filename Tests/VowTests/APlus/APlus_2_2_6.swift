import Testing
@testable import Vow

// Promises/A+ 1.1, 2.2.6: then may be called multiple times on the same promise; the
// callbacks run in the order of their originating calls. Each test uses a dispatcher of
// its own (a `SerialDispatcher` or the manual one), so a test elsewhere that replaces
// the default dispatcher cannot interleave with it.

@Suite("A+ 2.2.6 multiple then calls")
struct APlus_2_2_6 {
    @Test("2.2.6.1 fulfilled: multiple onFulfilled run in order of their originating calls")
    func fulfilledOrder() throws {
        let queue = SerialDispatcher(label: "aplus.2.2.6.1")
        let log = EventLog<Int>()
        let (promise, resolver) = Promise<Int>.pending()
        let tails = (0..<20).map { index in promise.done(on: queue) { _ in log.append(index) } }
        resolver.fulfill(1)
        for tail in tails { try value(of: tail) }
        #expect(log.all == Array(0..<20))
    }

    @Test("2.2.6.1 fulfilled: handlers registered on a settled promise also run in order")
    func fulfilledOrderAfterSettle() throws {
        let queue = SerialDispatcher(label: "aplus.2.2.6.1b")
        let log = EventLog<Int>()
        let (promise, resolver) = Promise<Int>.pending()
        var tails = (0..<5).map { index in promise.done(on: queue) { _ in log.append(index) } }
        resolver.fulfill(1)
        tails += (5..<10).map { index in promise.done(on: queue) { _ in log.append(index) } }
        for tail in tails { try value(of: tail) }
        #expect(log.all == Array(0..<10))
    }

    @Test("2.2.6.1 fulfilled: every onFulfilled runs, in order, even if one throws")
    func fulfilledOrderWithThrow() throws {
        let manual = ManualDispatcher()
        let log = EventLog<Int>()
        let (promise, resolver) = Promise<Int>.pending()
        let first = promise.done(on: manual) { _ in log.append(0) }
        let second = promise.done(on: manual) { _ in
            log.append(1)
            throw TestError(1)
        }
        let third = promise.done(on: manual) { _ in log.append(2) }
        resolver.fulfill(0)
        manual.drain()
        #expect(log.all == [0, 1, 2])
        #expect(first.isFulfilled && third.isFulfilled)
        #expect(try error(of: second) as? TestError == TestError(1))
    }

    @Test("2.2.6.1 fulfilled: each derived promise gets its own callback's result")
    func fulfilledSeparateResults() throws {
        let promise = Promise.value(10)
        let derived = (0..<5).map { index in promise.then { $0 + index } }
        #expect(try derived.map { try value(of: $0) } == [10, 11, 12, 13, 14])
    }

    @Test("2.2.6.2 rejected: multiple onRejected run in order of their originating calls")
    func rejectedOrder() throws {
        let queue = SerialDispatcher(label: "aplus.2.2.6.2")
        let log = EventLog<Int>()
        let (promise, resolver) = Promise<Int>.pending()
        let tails = (0..<20).map { index in
            promise.recover(on: queue) { _ -> Int in
                log.append(index)
                return index
            }
        }
        resolver.reject(TestError())
        #expect(try tails.map { try value(of: $0) } == Array(0..<20))
        #expect(log.all == Array(0..<20))
    }

    @Test("2.2.6.2 rejected: recover, catch, seed then and finally run in registration order")
    func rejectedMixedOrder() throws {
        let manual = ManualDispatcher()
        let log = EventLog<String>()
        let (promise, resolver) = Promise<Int>.pending()
        _ = promise.recover(on: manual) { _ -> Int in log.append("recover"); return 0 }
        promise.catch(on: manual) { _ in log.append("catch") }
        promise.finally(on: manual) { log.append("finally") }.catch(on: manual) { _ in log.append("after finally") }
        _ = promise.tap(on: manual) { _ in log.append("tap") }.recover(on: manual) { _ in 0 }
        resolver.reject(TestError())
        manual.drain()
        #expect(log.all == ["recover", "catch", "finally", "tap", "after finally"])
    }
}
