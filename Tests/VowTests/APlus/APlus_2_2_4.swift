import Testing
@testable import Vow

// Promises/A+ 1.1, 2.2.4: onFulfilled or onRejected must not be called until the
// execution context stack contains only platform code. Here: a callback never runs inside
// the call that registers it (`then`) or settles its promise (`fulfill`, `reject`),
// unless its dispatcher is `.inline`, chosen on purpose.
//
// 2.2.5 (callbacks called as functions, with no `this`) has no Swift counterpart.

@Suite("A+ 2.2.4 never inline")
struct APlus_2_2_4 {
    @Test("2.2.4 then on a fulfilled promise queues the callback instead of running it")
    func thenOnFulfilledQueues() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let derived = Promise.value(1).done(on: manual) { _ in calls.increment() }
        #expect(calls.value == 0)
        #expect(manual.pendingCount == 1)
        manual.drain()
        #expect(calls.value == 1)
        #expect(derived.isFulfilled)
    }

    @Test("2.2.4 then on a rejected promise queues the callback instead of running it")
    func thenOnRejectedQueues() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let derived = Promise<Int>(error: TestError()).recover(on: manual) { _ -> Int in
            calls.increment()
            return 0
        }
        #expect(calls.value == 0)
        #expect(manual.pendingCount == 1)
        manual.drain()
        #expect(calls.value == 1)
        #expect(try value(of: derived) == 0)
    }

    @Test("2.2.4 fulfilling queues the callbacks instead of running them")
    func fulfilQueues() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        for _ in 0..<3 { promise.done(on: manual) { _ in calls.increment() } }
        resolver.fulfill(1)
        #expect(calls.value == 0)
        #expect(manual.pendingCount == 3)
        manual.drain()
        #expect(calls.value == 3)
    }

    @Test("2.2.4 rejecting queues the callbacks instead of running them")
    func rejectQueues() throws {
        let manual = ManualDispatcher()
        let calls = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        for _ in 0..<3 { promise.catch(on: manual) { _ in calls.increment() } }
        resolver.reject(TestError())
        #expect(calls.value == 0)
        #expect(manual.pendingCount == 3)
        manual.drain()
        #expect(calls.value == 3)
    }

    @Test("2.2.4 on the default and background dispatchers, no callback runs inside then or fulfill", arguments: [false, true])
    func realDispatchersNeverInline(background: Bool) throws {
        let dispatcher: any Dispatcher = background ? .background : .default
        let detector = InlineDetector()
        let count = Stress.iterations(500)
        var tails: [Promise<Void>] = []
        for index in 0..<count {
            if index % 2 == 0 {
                // Attach to a settled promise.
                tails.append(detector.during { Promise.value(index).done(on: dispatcher) { _ in detector.check() } })
            } else {
                // Attach, then settle.
                let (promise, resolver) = Promise<Int>.pending()
                tails.append(promise.done(on: dispatcher) { _ in detector.check() })
                detector.during { resolver.fulfill(index) }
            }
        }
        for tail in tails { try value(of: tail) }
        #expect(detector.checkCount == count)
        #expect(detector.inlineCount == 0)
    }

    @Test("2.2.4 control: the detector does see .inline callbacks run inside then and fulfill")
    func inlineIsSeen() throws {
        let detector = InlineDetector()
        _ = detector.during { Promise.value(1).done(on: .inline) { _ in detector.check() } }
        let (promise, resolver) = Promise<Int>.pending()
        promise.done(on: .inline) { _ in detector.check() }
        detector.during { resolver.fulfill(1) }
        #expect(detector.checkCount == 2)
        #expect(detector.inlineCount == 2)
    }

    @Test("2.2.4 the seed then does not run its callback inside then")
    func seedNotInline() throws {
        let detector = InlineDetector()
        detector.during {
            Promise.value(1).then({ _ in detector.check() }, nil)
        }
        #expect(eventually { detector.checkCount == 1 })
        #expect(detector.inlineCount == 0)
    }
}
