import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Vow

// The helpers from the libraries Vow replaces: Promise(lazy:), unwrap(orReject:),
// retry(times:delay:if:), delay(seconds:), and the resolver's completion adapters.

private func elapsed(_ start: ContinuousClock.Instant) -> Duration { ContinuousClock.now - start }

/// A completion-handler API of the `(T?, Error?)` shape.
private func legacyFetch(_ value: Int?, _ error: (any Error)?, completion: @escaping @Sendable (Int?, (any Error)?) -> Void) {
    completion(value, error)
}

/// A completion-handler API of the `Result` shape.
private func modernFetch(_ result: Result<Int, any Error>, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
    completion(result)
}

@Suite("API: helpers")
struct HelperTests {
    // MARK: Promise(lazy:)

    @Test("a lazy promise runs its body only when a handler attaches, once, on its dispatcher")
    func lazyRunsOnFirstHandler() throws {
        let queue = ManualDispatcher()
        let runs = Counter()
        let lazy = Promise<Int>(on: queue, lazy: { seal in
            runs.increment()
            seal.fulfill(7)
        })
        #expect(lazy.isPending)
        #expect(lazy.result == nil)
        _ = queue.drain()
        #expect(queue.submitted == 0)
        #expect(runs.value == 0)
        let first = lazy.map(on: .inline) { $0 + 1 }
        let second = lazy.map(on: .inline) { $0 + 2 }
        #expect(queue.submitted == 1)
        _ = queue.drain()
        #expect(runs.value == 1)
        #expect(try value(of: first) == 8)
        #expect(try value(of: second) == 9)
        #expect(runs.value == 1)
    }

    @Test("a lazy promise starts on wait()")
    func lazyStartsOnWait() throws {
        let runs = Counter()
        let waited = Promise<Int>(on: .background, lazy: { seal in
            runs.increment()
            seal.fulfill(1)
        })
        #expect(try onNewThread { try waited.wait() } == 1)
        #expect(runs.value == 1)
    }

    @Test("a lazy promise starts on await; a throw from its body rejects")
    func lazyStartsOnAwait() async throws {
        let runs = Counter()
        let awaited = Promise<Int>(lazy: { seal in
            runs.increment()
            seal.fulfill(2)
        })
        #expect(try await awaited.value == 2)
        #expect(runs.value == 1)
        let thrown = Promise<Int>(lazy: { _ in throw TestError(1) })
        await #expect(throws: TestError(1)) { try await thrown.value }
    }

    @Test("a lazy promise cancelled before it started never runs its body, which is released once")
    func lazyCancelledNeverRuns() throws {
        let runs = Counter()
        let released = Counter()
        do {
            let lazy = Promise<Int>(lazy: { [token = ReleaseToken(released)] seal in
                _ = withExtendedLifetime(token) { runs.increment() }
                seal.fulfill(1)
            })
            lazy.cancel()
            #expect(lazy.isCancelled)
            #expect(eventually { released.value == 1 })
            let after = lazy.map { $0 + 1 }
            #expect(try vowCode(of: after) == .cancelled)
        }
        ErrorModel.drainDefault()
        #expect(runs.value == 0)
        #expect(released.value == 1)
    }

    @Test("a lazy promise dropped unstarted releases its body without running it")
    func lazyDroppedUnstarted() {
        let runs = Counter()
        let released = Counter()
        do {
            let token = ReleaseToken(released)
            _ = Promise<Int>(lazy: { seal in
                _ = withExtendedLifetime(token) { runs.increment() }
                seal.fulfill(1)
            })
        }
        #expect(released.value == 1)
        #expect(runs.value == 0)
    }

    @Test("a lazy body that drops its resolver unused breaks the promise")
    func lazyBrokenResolver() throws {
        let lazy = Promise<Int>(lazy: { _ in })
        #expect(try vowCode(of: lazy) == .broken)
    }

    @Test("wait() on a lazy promise of the serial queue, from that queue, throws the deadlock error")
    func lazyDeadlockDetected() throws {
        let queue = SerialDispatcher(label: "lazy-deadlock")
        let lazy = Promise<Int>(on: queue, lazy: { $0.fulfill(1) })
        let seen = Promise.value(()).map(on: queue) { _ -> VowError.Code? in
            do {
                _ = try lazy.wait()
                return nil
            } catch let error as VowError {
                return error.vowCode
            }
        }
        #expect(try value(of: seen) == .deadlock)
        #expect(try value(of: lazy) == 1)
    }

    @Test("lazy promises started from many threads at once run their body once each")
    func lazyRaceStartsOnce() throws {
        let runs = Counter()
        for _ in 0..<200 {
            let lazy = Promise<Int>(on: .background, lazy: { seal in
                runs.increment()
                seal.fulfill(1)
            })
            let results = Locked<[Promise<Int>]>([])
            try concurrently(4) { _ in
                let derived = lazy.map(on: .inline) { $0 }
                results.withLock { $0.append(derived) }
            }
            for derived in results.withLock({ $0 }) { #expect(try value(of: derived) == 1) }
        }
        #expect(runs.value == 200)
    }

    // MARK: unwrap(orReject:)

    @Test("unwrap passes a value on, rejects nil with the default or the given error")
    func unwrap() throws {
        #expect(try value(of: Promise<Int?>.value(3).unwrap()) == 3)
        let failed = try error(of: Promise<Int?>.value(nil).unwrap()) as? VowError
        #expect(failed?.domain == "vow.unwrap")
        #expect(failed?.message.contains("nil") == true)
        #expect(try error(of: Promise<Int?>.value(nil).unwrap(orReject: TestError(2))) as? TestError == TestError(2))
        #expect(try error(of: Promise<Int?>(error: TestError(3)).unwrap(orReject: TestError(4))) as? TestError
                    == TestError(3))
    }

    // MARK: retry(times:delay:if:)

    @Test("retry(if:) never retries a cancellation and does not ask the predicate about it")
    func retryIfCancellation() throws {
        let asked = Counter()
        let attempts = Counter()
        let result = retry(times: 5, if: { _ in asked.increment() > 0 }) { () -> Promise<Int> in
            attempts.increment()
            return Promise(error: VowError.cancelledError)
        }
        #expect(try vowCode(of: result) == .cancelled)
        #expect(attempts.value == 1)
        #expect(asked.value == 0)
    }

    @Test("retry: an attempt that follows the result fails with the cycle error instead of hanging")
    func retryAttemptFollowingTheResult() throws {
        let own = Locked<Promise<Int>?>(nil)
        let attempts = Counter()
        let result = retry(times: 3) { () -> Promise<Int> in
            // The first attempt runs inside retry(), before the result exists.
            if attempts.increment() == 1 { throw TestError(1) }
            while own.withLock({ $0 }) == nil { sched_yield() }
            return own.withLock { $0 }!.map { $0 + 1 }
        }
        own.withLock { $0 = result }
        #expect(try vowCode(of: result) == .cycle)
        #expect(attempts.value == 3)
        own.withLock { $0 = nil }
    }

    // MARK: delay(seconds:) (on virtual time: Tests/VowTestingTests/VirtualTimerTests.swift)

    @Test("delay(seconds:) passes the value on after a real pause, a rejection at once")
    func delay() throws {
        let start = ContinuousClock.now
        #expect(try value(of: Promise.value(5).delay(seconds: 0.05)) == 5)
        #expect(elapsed(start) >= .milliseconds(49))
        let (slow, resolver) = Promise<Int>.pending()
        let delayed = slow.delay(seconds: 30)
        let rejectedAt = ContinuousClock.now
        resolver.reject(TestError(6))
        #expect(try error(of: delayed) as? TestError == TestError(6))
        #expect(elapsed(rejectedAt) < .seconds(20))
    }

    // MARK: The time rule of waits (of timers: Tests/VowTestingTests/VirtualTimerTests.swift)

    @Test("the engine's timed wait: NaN, negative and -infinity do not wait; +infinity waits until settled")
    func engineWaitRule() throws {
        for seconds in [Double.nan, -1, -Double.infinity, 0] {
            let (pending, resolver) = Promise<Int>.pending()
            let start = ContinuousClock.now
            #expect(!pending.core.waitUntilSettled(timeout: seconds))
            #expect(elapsed(start) < .seconds(2))
            // Settled before it is dropped: a waiter that timed out handled nothing, so a
            // broken promise would be reported.
            resolver.fulfill(0)
        }
        let (pending, resolver) = Promise<Int>.pending()
        Promise.value(()).delay(seconds: 0.02).done(on: .background) { resolver.fulfill(1) }
        #expect(pending.core.waitUntilSettled(timeout: .infinity))
        #expect(try value(of: pending) == 1)
    }

    // MARK: Resolver completion adapters

    @Test("Promise { seal in api(completion: seal.resolve) } for (T?, Error?) and Result completions")
    func completionAdapters() throws {
        let fromPair = Promise<Int> { seal in legacyFetch(1, nil, completion: seal.resolve) }
        #expect(try value(of: fromPair) == 1)
        let pairError = Promise<Int> { seal in legacyFetch(nil, TestError(2), completion: seal.resolve) }
        #expect(try error(of: pairError) as? TestError == TestError(2))
        let errorWins = Promise<Int> { seal in legacyFetch(3, TestError(3), completion: seal.resolve) }
        #expect(try error(of: errorWins) as? TestError == TestError(3))
        let neither = Promise<Int> { seal in legacyFetch(nil, nil, completion: seal.resolve) }
        #expect(try vowCode(of: neither) == .type)
        let fromResult = Promise<Int> { seal in modernFetch(.success(4), completion: seal.resolve) }
        #expect(try value(of: fromResult) == 4)
        let resultError = Promise<Int> { seal in modernFetch(.failure(TestError(5)), completion: seal.resolve) }
        #expect(try error(of: resultError) as? TestError == TestError(5))
    }
}

/// Bumps a counter when freed: proves that whoever held it let it go.
private final class ReleaseToken: Sendable {
    let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    deinit { counter.increment() }
}
