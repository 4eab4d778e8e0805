import Testing
@testable import Vow

// Callback order, checked on the manual dispatcher: nothing runs until the test drains
// it, so each step of the engine's scheduling is visible.

@Suite("Engine: ordering on a deterministic dispatcher")
struct OrderingTests {
    @Test("handlers of one promise run in attach order (attach, then settle)")
    func attachThenSettle() {
        let manual = ManualDispatcher()
        let log = EventLog<Int>()
        let (promise, resolver) = Promise<Int>.pending()
        for index in 0..<8 { promise.done(on: manual) { _ in log.append(index) } }
        #expect(manual.pendingCount == 0)
        resolver.fulfill(0)
        #expect(manual.pendingCount == 8)
        manual.drain()
        #expect(log.all == Array(0..<8))
    }

    @Test("handlers of one promise run in attach order (settle, then attach)")
    func settleThenAttach() {
        let manual = ManualDispatcher()
        let log = EventLog<Int>()
        let promise = Promise.value(0)
        for index in 0..<8 {
            promise.done(on: manual) { _ in log.append(index) }
            // Each is queued by the `done` call itself.
            #expect(manual.pendingCount == index + 1)
        }
        manual.drain()
        #expect(log.all == Array(0..<8))
    }

    @Test("handlers attached before and after the settle keep their attach order")
    func acrossTheSettle() {
        let manual = ManualDispatcher()
        let log = EventLog<Int>()
        let (promise, resolver) = Promise<Int>.pending()
        for index in 0..<3 { promise.done(on: manual) { _ in log.append(index) } }
        resolver.fulfill(0)
        for index in 3..<6 { promise.done(on: manual) { _ in log.append(index) } }
        manual.drain()
        #expect(log.all == Array(0..<6))
    }

    @Test("a then attached inside a callback runs after the callbacks already queued")
    func nestedThenRunsAfter() {
        let manual = ManualDispatcher()
        let log = EventLog<String>()
        let promise = Promise.value(0)
        promise.done(on: manual) { _ in
            log.append("A")
            promise.done(on: manual) { _ in log.append("nested") }
            log.append("A end")
        }
        promise.done(on: manual) { _ in log.append("B") }
        manual.drain()
        #expect(log.all == ["A", "A end", "B", "nested"])
    }

    @Test("the next link of a chain is queued behind callbacks already waiting")
    func chainLinkQueuedBehind() {
        let manual = ManualDispatcher()
        let log = EventLog<String>()
        let (promise, resolver) = Promise<Int>.pending()
        promise.map(on: manual) { value -> Int in log.append("A"); return value }
            .done(on: manual) { _ in log.append("A2") }
        promise.done(on: manual) { _ in log.append("B") }
        resolver.fulfill(0)
        manual.drain()
        #expect(log.all == ["A", "B", "A2"])
    }

    @Test("a chain on a non-inline dispatcher advances one queued job per link")
    func chainOneJobPerLink() throws {
        let manual = ManualDispatcher()
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<5 { tail = tail.map(on: manual) { $0 + 1 } }
        resolver.fulfill(0)
        for step in 1...5 {
            #expect(manual.pendingCount == 1, "before link \(step)")
            #expect(tail.isPending)
            manual.runNext()
        }
        #expect(manual.pendingCount == 0)
        #expect(try value(of: tail) == 5)
    }

    @Test(".inline callbacks run at settle time, on the settling thread, before fulfil returns")
    func inlineRunsAtSettle() {
        let manual = ManualDispatcher()
        let log = EventLog<String>()
        let (promise, resolver) = Promise<Int>.pending()
        promise.done(on: manual) { _ in log.append("queued") }
        promise.done(on: .inline) { _ in log.append("inline") }
        resolver.fulfill(0)
        #expect(log.all == ["inline"])
        manual.drain()
        #expect(log.all == ["inline", "queued"])
    }

    @Test(".inline on a settled promise runs inside the call that registers it")
    func inlineRunsAtAttach() {
        let log = EventLog<Int>()
        Promise.value(4).done(on: .inline) { log.append($0) }
        #expect(log.all == [4])
    }

    @Test(".inline work submitted by an inline callback runs after it, not inside it (a trampoline)")
    func inlineTrampoline() {
        let log = EventLog<String>()
        let (first, resolveFirst) = Promise<Int>.pending()
        let (second, resolveSecond) = Promise<Int>.pending()
        second.done(on: .inline) { _ in log.append("second") }
        first.done(on: .inline) { _ in
            log.append("first start")
            resolveSecond.fulfill(0)
            log.append("first end")
        }
        resolveFirst.fulfill(0)
        #expect(log.all == ["first start", "first end", "second"])
    }

    @Test("non-inline callbacks never run inside fulfil, reject or then")
    func neverInsideCalls() {
        let manual = ManualDispatcher()
        let runs = Counter()
        let (a, resolveA) = Promise<Int>.pending()
        let (b, resolveB) = Promise<Int>.pending()
        a.done(on: manual) { _ in runs.increment() }
        b.catch(on: manual) { _ in runs.increment() }
        resolveA.fulfill(1)
        resolveB.reject(TestError())
        Promise.value(1).done(on: manual) { _ in runs.increment() }
        _ = Promise<Int>(error: TestError()).recover(on: manual) { _ in runs.increment() }
        _ = Promise.value(1).finally(on: manual) { runs.increment() }
        #expect(runs.value == 0)
        #expect(manual.pendingCount == 5)
        manual.drain()
        #expect(runs.value == 5)
    }

    @Test("a callback whose derived promise was cancelled never runs; finally still does")
    func cancelledCallbackDropped() throws {
        let manual = ManualDispatcher()
        let log = EventLog<String>()
        let (promise, resolver) = Promise<Int>.pending()
        let keep = promise.done(on: manual) { _ in log.append("kept") }
        let dropped = promise.done(on: manual) { _ in log.append("dropped") }
        let cleanup = promise.finally(on: manual) { log.append("finally") }
        dropped.cancel()
        cleanup.cancel()
        resolver.fulfill(0)
        manual.drain()
        #expect(log.all == ["kept", "finally"])
        #expect(keep.isFulfilled)
        #expect(try vowCode(of: dropped) == .cancelled)
        #expect(try vowCode(of: cleanup) == .cancelled)
    }

    @Test("a callback already queued when its derived promise is cancelled does not run")
    func cancelledAfterQueued() throws {
        let manual = ManualDispatcher()
        let ran = Counter()
        let promise = Promise.value(1)
        let thenDerived = promise.map(on: manual) { value -> Int in ran.increment(); return value }
        let recoverDerived = Promise<Int>(error: TestError()).recover(on: manual) { _ -> Int in ran.increment(); return 0 }
        let catchDerived = Promise<Int>(error: TestError()).catch(on: manual) { _ in ran.increment() }
        let tapDerived = promise.tap(on: manual) { _ in ran.increment() }
        #expect(manual.pendingCount == 4)
        thenDerived.cancel()
        recoverDerived.cancel()
        catchDerived.cancel()
        tapDerived.cancel()
        manual.drain()
        #expect(ran.value == 0)
        #expect(thenDerived.isCancelled && recoverDerived.isCancelled && catchDerived.isCancelled && tapDerived.isCancelled)
    }

    @Test("callbacks on different dispatchers each run on their own, in attach order per dispatcher")
    func perDispatcherOrder() {
        let first = ManualDispatcher()
        let second = ManualDispatcher()
        let log = EventLog<String>()
        let (promise, resolver) = Promise<Int>.pending()
        for index in 0..<3 {
            promise.done(on: first) { _ in log.append("1.\(index)") }
            promise.done(on: second) { _ in log.append("2.\(index)") }
        }
        resolver.fulfill(0)
        second.drain()
        first.drain()
        #expect(log.all == ["2.0", "2.1", "2.2", "1.0", "1.1", "1.2"])
    }
}
