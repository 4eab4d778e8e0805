import Dispatch
import Testing
@testable import Vow

// Making promises: the resolver-body initialiser, pending(), value, init(error:), firstly,
// Promise(on:work:).

@Suite("API: making promises")
struct MakeTests {
    @Test("Promise { seal in } runs the body at once, on the calling thread, and the resolver settles it")
    func bodyRunsAtOnce() throws {
        let ran = Counter()
        let promise = Promise<Int> { seal in
            ran.increment()
            seal.fulfill(1)
        }
        #expect(ran.value == 1)
        #expect(promise.isFulfilled)
        #expect(try value(of: promise) == 1)
    }

    @Test("Promise { seal in } : a throw from the body rejects the promise")
    func bodyThrowRejects() throws {
        let promise = Promise<Int> { _ in throw TestError(1) }
        #expect(try error(of: promise) as? TestError == TestError(1))
    }

    @Test("Promise { seal in } : a throw after the body settled is ignored")
    func bodyThrowAfterSettle() throws {
        let promise = Promise<Int> { seal in
            seal.fulfill(2)
            throw TestError(2)
        }
        #expect(try value(of: promise) == 2)
    }

    @Test("Promise { seal in } : the resolver may be kept and used later, from another thread")
    func bodyKeepsResolver() throws {
        let kept = Locked<Resolver<Int>?>(nil)
        let promise = Promise<Int> { seal in kept.withLock { $0 = seal } }
        #expect(promise.isPending)
        try onNewThread { kept.withLock { $0 }!.fulfill(3) }
        kept.withLock { $0 = nil }
        #expect(try value(of: promise) == 3)
    }

    @Test("pending() returns a pending promise and the resolver that settles it")
    func pending() throws {
        let (promise, resolver) = Promise<String>.pending()
        #expect(promise.isPending)
        #expect(resolver.isPending)
        resolver.fulfill("done")
        #expect(try value(of: promise) == "done")
        #expect(!resolver.isPending)
    }

    @Test("value(_:) is fulfilled at once with that very value")
    func valueFactory() throws {
        let token = Token()
        let promise = Promise.value(token)
        #expect(promise.isFulfilled)
        #expect(try value(of: promise) === token)
        #expect(Promise.value(()).isFulfilled)
    }

    @Test("init(error:) is rejected at once with that error")
    func errorFactory() throws {
        let promise = Promise<Int>(error: TestError(4))
        #expect(promise.isRejected)
        #expect(try error(of: promise) as? TestError == TestError(4))
    }

    @Test("firstly { promise } returns the body's promise; a throw becomes a rejected promise")
    func firstlyPromise() throws {
        let (inner, resolver) = Promise<Int>.pending()
        let same = firstly { inner }
        #expect(same.core === inner.core)
        resolver.fulfill(5)
        #expect(try value(of: same) == 5)
        let failed: Promise<Int> = firstly { throw TestError(5) }
        #expect(try error(of: failed) as? TestError == TestError(5))
    }

    @Test("firstly(on:) runs the body on the dispatcher, later; a throw rejects")
    func firstlyOnDispatcher() throws {
        let manual = ManualDispatcher()
        let ran = Counter()
        let promise = firstly(on: manual) { () -> Int in
            ran.increment()
            return 6
        }
        #expect(ran.value == 0)
        manual.drain()
        #expect(ran.value == 1)
        #expect(try value(of: promise) == 6)
        let failed = firstly(on: .background) { () throws -> Int in throw TestError(6) }
        #expect(try error(of: failed) as? TestError == TestError(6))
    }

    @Test("Promise(work:) runs the work on the background pool, not in the initialiser")
    func workOnBackground() throws {
        let gate = DispatchSemaphore(value: 0)
        // Inline work would wait for a signal that comes only after the initialiser returns.
        let promise = Promise<Bool>(work: { wait(gate, within: 5) })
        gate.signal()
        #expect(try value(of: promise) == true)
        let typed = Promise(work: { 7 })
        #expect(try value(of: typed) == 7)
    }

    @Test("Promise(work:) uses a concurrent pool: two pieces of work that wait for each other both finish")
    func workIsConcurrent() throws {
        let a = DispatchSemaphore(value: 0)
        let b = DispatchSemaphore(value: 0)
        let first = Promise<Bool>(work: {
            a.signal()
            return wait(b, within: 5)
        })
        let second = Promise<Bool>(work: {
            b.signal()
            return wait(a, within: 5)
        })
        #expect(try value(of: first))
        #expect(try value(of: second))
    }

    @Test("Promise(work:) : a throw rejects")
    func workThrows() throws {
        let promise = Promise<Int>(work: { throw TestError(7) })
        #expect(try error(of: promise) as? TestError == TestError(7))
    }

    @Test("Promise(on:work:) runs on the given dispatcher; cancelled before it starts, the work never runs")
    func workOnDispatcher() throws {
        let manual = ManualDispatcher()
        let ran = Counter()
        let promise = Promise(on: manual, work: { () -> Int in
            ran.increment()
            return 8
        })
        #expect(manual.pendingCount == 1)
        manual.drain()
        #expect(try value(of: promise) == 8)

        let cancelled = Promise(on: manual, work: { () -> Int in
            ran.increment()
            return 9
        })
        cancelled.cancel()
        manual.drain()
        #expect(ran.value == 1)
        #expect(try vowCode(of: cancelled) == .cancelled)
    }
}
