import Testing
@testable import Vow
@testable import VowEngine

#if canImport(Glibc)
import Glibc
#endif

// when(fulfilled: iterator, concurrently:) and when(resolved: iterator, concurrently:):
// lazily made promises, at most n pending, first rejection and cancellation, input order.
// Most tests run the iterator on a ManualDispatcher, so what was made at each step is exact.

/// An iterator's shared state: the promises it made (with their resolvers), how often
/// `next()` was called, on which thread, and whether the iterator is still alive.
final class MadePromises: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = VowLock()
    private var made: [(promise: Promise<Int>, resolver: Resolver<Int>)] = []
    private var calls = 0
    private var offThread = 0
    private var nexts = 0
    let total: Int
    let caller = pthread_self()

    init(total: Int) { self.total = total }

    /// The iterator: makes a pending promise per call, `total` of them, then nil. It holds
    /// `alive`, so a test can see when the library let the iterator go.
    func iterator(alive: Token? = nil) -> AnyIterator<Promise<Int>> {
        AnyIterator { [self] in
            withExtendedLifetime(alive) {}
            return lock.withLock {
                calls += 1
                if pthread_equal(pthread_self(), caller) == 0 { offThread += 1 }
                guard made.count < total else { return nil }
                let pair = Promise<Int>.pending()
                made.append(pair)
                return pair.promise
            }
        }
    }

    var count: Int { lock.withLock { made.count } }
    var nextCalls: Int { lock.withLock { calls } }
    var callsOffThread: Int { lock.withLock { offThread } }
    subscript(index: Int) -> (promise: Promise<Int>, resolver: Resolver<Int>) { lock.withLock { made[index] } }
}

@Suite("API: when(fulfilled:concurrently:) and when(resolved:concurrently:)")
struct BoundedWhenTests {
    @Test("at most n pending at every step; values in the iterator's order; next() only on the dispatcher")
    func orderAndBound() throws {
        let queue = ManualDispatcher()
        let made = MadePromises(total: 6)
        let all = when(fulfilled: made.iterator(), concurrently: 2, on: queue)
        #expect(made.nextCalls == 0)
        queue.drain()
        #expect(made.count == 2)
        var settled = 0
        for index in [1, 0, 3, 2, 5, 4] {
            #expect(all.isPending)
            made[index].resolver.fulfill(index * 10)
            settled += 1
            queue.drain()
            #expect(made.count == min(settled + 2, 6))
        }
        #expect(try value(of: all) == [0, 10, 20, 30, 40, 50])
        #expect(made.nextCalls == 7) // six promises, then the nil that ended the iterator
        #expect(made.callsOffThread == 0)
    }

    @Test("the first rejection settles the result, stops the iterator and cancels the pending promises")
    func firstRejection() throws {
        let queue = ManualDispatcher()
        let made = MadePromises(total: 5)
        weak var alive: Token?
        let all: Promise<[Int]>
        do {
            let token = Token()
            alive = token
            all = when(fulfilled: made.iterator(alive: token), concurrently: 2, on: queue)
        }
        queue.drain()
        #expect(all.rejectedInputIndex == nil)
        made[1].resolver.reject(TestError(1))
        #expect(try error(of: all) as? TestError == TestError(1)) // that same error
        #expect(all.rejectedInputIndex == 1) // which promise it was
        #expect(made[0].promise.isCancelled)
        queue.drain()
        #expect(made.nextCalls == 2)
        #expect(alive == nil) // the iterator was let go
    }

    @Test("rejectedInputIndex: the iterator's index of the rejecting promise, also a cancelled one; nil for other promises")
    func rejectedInputIndex() throws {
        let queue = ManualDispatcher()
        let made = MadePromises(total: 6)
        let all = when(fulfilled: made.iterator(), concurrently: 6, on: queue)
        queue.drain()
        made[0].resolver.fulfill(0)
        made[4].promise.cancel()
        #expect(isCancellation(try error(of: all)))
        #expect(all.rejectedInputIndex == 4)
        // Not a bounded when's rejection: nil.
        let pair = Promise<Int>.pending()
        let array = when(fulfilled: [pair.promise, Promise<Int>(error: TestError(2))])
        #expect(try error(of: array) as? TestError == TestError(2))
        #expect(array.rejectedInputIndex == nil)
        #expect(Promise<Int>(error: TestError(3)).rejectedInputIndex == nil)
        let resolved = when(resolved: MadePromises(total: 1).iterator(), concurrently: 1, on: queue)
        #expect(resolved.rejectedInputIndex == nil)
        resolved.cancel()
        queue.drain()
        pair.resolver.fulfill(1)
    }

    @Test("cancelling the result cancels the pending promises at once (not one another chain needs) and stops")
    func cancelResult() throws {
        let queue = ManualDispatcher()
        let made = MadePromises(total: 5)
        let all = when(fulfilled: made.iterator(), concurrently: 3, on: queue)
        queue.drain()
        let other = made[0].promise.map { $0 + 1 }
        all.cancel()
        #expect(all.isCancelled)
        #expect(all.rejectedInputIndex == nil) // cancelled by its caller, not by an input
        #expect(!made[0].promise.isCancelled && made[0].promise.isPending)
        #expect(made[1].promise.isCancelled && made[2].promise.isCancelled)
        queue.drain()
        #expect(made.nextCalls == 3)
        made[0].resolver.fulfill(1)
        #expect(try value(of: other) == 2)
    }

    @Test("cancelling the result inside next(), which then returns nil, ends the run cleanly")
    func cancelInsideNextThatEnds() throws {
        let queue = ManualDispatcher()
        let holder = Locked<Promise<[Int]>?>(nil)
        let calls = Counter()
        let iterator = AnyIterator<Promise<Int>> {
            guard calls.increment() < 3 else {
                holder.withLock { $0 }?.cancel()
                return nil
            }
            return Promise.value(1)
        }
        let all = when(fulfilled: iterator, concurrently: 5, on: queue)
        holder.withLock { $0 = all }
        queue.drain()
        #expect(all.isCancelled)
        #expect(calls.value == 3)
        #expect(queue.drain() == 0)
    }

    @Test("when(resolved:concurrently:) never rejects and keeps every outcome in order")
    func resolved() throws {
        let queue = ManualDispatcher()
        let made = MadePromises(total: 4)
        let all = when(resolved: made.iterator(), concurrently: 2, on: queue)
        queue.drain()
        made[0].resolver.reject(TestError(0)) // stops nothing
        queue.drain()
        #expect(made.count == 3)
        made[2].resolver.fulfill(2)
        made[1].resolver.fulfill(1)
        queue.drain()
        made[3].resolver.reject(TestError(3))
        let results = try value(of: all)
        #expect(results.count == 4)
        #expect(throws: TestError(0)) { try results[0].get() }
        #expect(try results[1].get() == 1)
        #expect(try results[2].get() == 2)
        #expect(throws: TestError(3)) { try results[3].get() }
    }

    @Test("when(resolved:concurrently:): cancelling the result cancels the pending promises")
    func resolvedCancel() throws {
        let queue = ManualDispatcher()
        let made = MadePromises(total: 4)
        let all = when(resolved: made.iterator(), concurrently: 2, on: queue)
        queue.drain()
        all.cancel()
        #expect(made[0].promise.isCancelled && made[1].promise.isCancelled)
        queue.drain()
        #expect(made.nextCalls == 2)
    }

    @Test("an iterator that yields a promise following the result: that input fails with the cycle error")
    func iteratorYieldsAFollowerOfTheResult() throws {
        let queue = ManualDispatcher()
        let result = Locked<Promise<[Int]>?>(nil)
        var calls = 0
        let all = when(fulfilled: AnyIterator<Promise<Int>> {
            calls += 1
            return calls == 1 ? result.withLock { $0 }!.map { $0.count } : nil
        }, concurrently: 2, on: queue)
        result.withLock { $0 = all }
        queue.drain()
        #expect(try vowCode(of: all) == .cycle)
        result.withLock { $0 = nil }

        // when(resolved:concurrently:): the refused input is a failure, the result fulfils.
        let settled = Locked<Promise<[Result<Int, any Error>]>?>(nil)
        var settledCalls = 0
        let outcomes = when(resolved: AnyIterator<Promise<Int>> {
            settledCalls += 1
            switch settledCalls {
            case 1: return settled.withLock { $0 }!.map { $0.count }
            case 2: return Promise.value(7)
            default: return nil
            }
        }, concurrently: 1, on: queue)
        settled.withLock { $0 = outcomes }
        queue.drain()
        let got = try value(of: outcomes)
        #expect(got.count == 2)
        if case .failure(let error) = got.first {
            #expect((error as? VowError)?.vowCode == .cycle)
        } else {
            Issue.record("the input that follows the result did not fail")
        }
        if case .success(let seven) = got.last { #expect(seven == 7) } else { Issue.record("the second input was lost") }
        settled.withLock { $0 = nil }
    }

    @Test("concurrently below 1 rejects with VowError.Code.type and never calls next()")
    func badConcurrency() throws {
        let made = MadePromises(total: 3)
        #expect(try vowCode(of: when(fulfilled: made.iterator(), concurrently: 0)) == .type)
        #expect(try vowCode(of: when(resolved: made.iterator(), concurrently: -1)) == .type)
        #expect(made.nextCalls == 0)
    }

    @Test("an empty iterator fulfils with []; the default dispatcher runs next() off the calling thread")
    func emptyAndDefault() throws {
        let made = MadePromises(total: 0)
        #expect(try value(of: when(fulfilled: made.iterator(), concurrently: 4)) == [])
        #expect(made.nextCalls == 1)
        #expect(made.callsOffThread == 1)
    }

    @Test("wait() on the result from the serial dispatcher that makes the promises throws the deadlock error")
    func waitOnOwnDispatcher() throws {
        let queue = SerialDispatcher(label: "bounded-when-deadlock")
        let inner = Locked<Promise<[Int]>?>(nil)
        let waited = Promise.value(()).then(on: queue) { _ -> Int in
            let made = MadePromises(total: 2)
            let all = when(fulfilled: made.iterator(), concurrently: 1, on: queue)
            inner.withLock { $0 = all }
            return try all.wait().count
        }
        #expect(try vowCode(of: waited) == .deadlock)
        let all = try #require(inner.withLock { $0 })
        all.cancel()
        #expect(all.isCancelled)
        #expect(all.rejectedInputIndex == nil) // cancelled by its caller, not by an input
    }

    @Test(".inline makes the first promises inside the call")
    func inline() throws {
        let made = MadePromises(total: 3)
        let all = when(fulfilled: made.iterator(), concurrently: 2, on: .inline)
        #expect(made.count == 2)
        for index in 0..<3 {
            made[index].resolver.fulfill(index)
        }
        #expect(try value(of: all) == [0, 1, 2])
    }

    @Test("a PromiseKit-style generator of already fulfilled promises, of any length")
    func generator() throws {
        let count = Stress.iterations(20_000)
        let next = Counter()
        let generator = AnyIterator<Promise<Int>> {
            let index = next.increment() - 1
            return index < count ? Promise.value(index) : nil
        }
        let values = try value(of: when(fulfilled: generator, concurrently: 7))
        #expect(values == Array(0..<count))
    }

    @Test("many promises: exactly min(settled + n, total) made at every step")
    func manyWithExactBound() throws {
        let total = Stress.iterations(20_000)
        let limit = 8
        let queue = ManualDispatcher()
        let made = MadePromises(total: total)
        let all = when(fulfilled: made.iterator(), concurrently: limit, on: queue)
        queue.drain()
        var settled = 0
        var broken = 0
        while settled < total {
            let count = made.count
            if count != min(settled + limit, total) { broken += 1 }
            for index in (settled..<count).reversed() { made[index].resolver.fulfill(index) }
            settled = count
            queue.drain()
        }
        #expect(broken == 0)
        let values = try value(of: all)
        #expect(values.count == total && values.last == total - 1)
    }
}
