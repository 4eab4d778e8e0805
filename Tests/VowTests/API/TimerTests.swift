import Testing
@testable import Vow

// after(seconds:), timeout(seconds:), retry(times:delay:_:). The tests that wait here
// check the real clock (lower bounds only: a loaded machine may be late, never early); the
// timers' behaviour on time itself is tested on virtual time, with VowTesting's TestLoop
// (Tests/VowTestingTests/VirtualTimerTests.swift).

private func elapsed(_ start: ContinuousClock.Instant) -> Duration { ContinuousClock.now - start }

@Suite("API: timers")
struct TimerTests {
    @Test("after(seconds:) fulfils, and not before the time has passed")
    func afterLowerBound() throws {
        let start = ContinuousClock.now
        try value(of: after(seconds: 0.05))
        // 1 ms of slack for the difference between Dispatch's clock and ContinuousClock.
        #expect(elapsed(start) >= .milliseconds(49))
    }

    @Test("after(seconds:) with zero, negative or NaN fulfils at once")
    func afterZero() throws {
        try value(of: after(seconds: 0))
        try value(of: after(seconds: -1))
        try value(of: after(seconds: .nan))
    }

    @Test("cancelling after(seconds:) rejects it with cancellation at once")
    func afterCancelled() throws {
        let timer = after(seconds: 60)
        timer.cancel()
        #expect(try vowCode(of: timer, within: 1) == .cancelled)
    }

    @Test("timeout: a promise that settles first wins")
    func timeoutFastWins() throws {
        #expect(try value(of: Promise.value(1).timeout(seconds: 10)) == 1)
        let (slowish, resolver) = Promise<Int>.pending()
        let guarded = slowish.timeout(seconds: 10)
        resolver.fulfill(2)
        #expect(try value(of: guarded) == 2)
        #expect(try error(of: Promise<Int>(error: TestError(1)).timeout(seconds: 10)) as? TestError == TestError(1))
    }

    @Test("timeout: a slow promise rejects with the timeout error and the source is cancelled")
    func timeoutSlowLoses() throws {
        let (slow, resolver) = Promise<Int>.pending()
        let cancelHandler = Counter()
        resolver.onCancel { cancelHandler.increment() }
        let start = ContinuousClock.now
        let guarded = slow.timeout(seconds: 0.05)
        #expect(try vowCode(of: guarded) == .timeout)
        #expect(elapsed(start) >= .milliseconds(49))
        #expect(eventually { slow.isCancelled })
        #expect(eventually { cancelHandler.value == 1 })
    }

    @Test("timeout: once the promise settled, the timer lets go of it and its value (not at the deadline)")
    func timeoutLetsGoOfSettledPromise() throws {
        // Before, the cancelled timer's work item kept the promise, the result and the
        // value until its deadline (an hour here): a server with a timeout per request
        // held every finished request's result for the whole timeout.
        let freed = ErrorModel.Counter()
        do {
            let (source, resolver) = Promise<ErrorModel.DeinitTracker>.pending()
            let guarded = source.timeout(seconds: 3600)
            resolver.fulfill(ErrorModel.DeinitTracker(freed))
            try value(of: guarded).touch()
        }
        #expect(eventually { freed.count == 1 })
    }

    @Test("delay: cancelled during the pause, the timer lets go of the value at once")
    func cancelledDelayLetsGo() throws {
        let freed = ErrorModel.Counter()
        do {
            let delayed = Promise.value(ErrorModel.DeinitTracker(freed)).delay(seconds: 3600)
            delayed.cancel()
            #expect(try vowCode(of: delayed, within: 1) == .cancelled)
        }
        #expect(eventually { freed.count == 1 })
    }

    @Test("retry: succeeds on the 3rd of 5 attempts, after exactly 3 calls")
    func retrySucceedsOnThird() throws {
        let attempts = Counter()
        let result = retry(times: 5) { () -> Promise<Int> in
            let attempt = attempts.increment()
            return attempt < 3 ? Promise(error: TestError(attempt)) : Promise.value(attempt)
        }
        #expect(try value(of: result) == 3)
        #expect(attempts.value == 3)
    }

    @Test("retry: fails after exactly `times` attempts, with the last error")
    func retryGivesUp() throws {
        let attempts = Counter()
        let result = retry(times: 4) { () -> Promise<Int> in
            Promise(error: TestError(attempts.increment()))
        }
        #expect(try error(of: result) as? TestError == TestError(4))
        #expect(attempts.value == 4)
    }

    @Test("retry: a throw from the body counts as a failed attempt")
    func retryBodyThrows() throws {
        let attempts = Counter()
        let result = retry(times: 3) { () throws -> Promise<Int> in
            let attempt = attempts.increment()
            if attempt < 3 { throw TestError(attempt) }
            return Promise.value(attempt)
        }
        #expect(try value(of: result) == 3)
        #expect(attempts.value == 3)
    }

    @Test("retry: a cancellation is not retried")
    func retryNotOnCancellation() throws {
        let attempts = Counter()
        let result = retry(times: 5) { () -> Promise<Int> in
            attempts.increment()
            return Promise(error: VowError.cancelledError)
        }
        #expect(try vowCode(of: result) == .cancelled)
        #expect(attempts.value == 1)
    }

    @Test("retry: cancelling the result cancels the current attempt and stops further ones")
    func retryCancelled() throws {
        let attempts = Counter()
        let current = Locked<Promise<Int>?>(nil)
        let resolvers = Locked<[Resolver<Int>]>([])  // kept, so attempts stay pending
        let result = retry(times: 5) { () -> Promise<Int> in
            attempts.increment()
            let (attempt, resolver) = Promise<Int>.pending()
            resolvers.withLock { $0.append(resolver) }
            current.withLock { $0 = attempt }
            return attempt
        }
        #expect(attempts.value == 1)
        result.cancel()
        #expect(try vowCode(of: result) == .cancelled)
        #expect(eventually { current.withLock { $0 }?.isCancelled == true })
        #expect(attempts.value == 1)
        resolvers.withLock { $0.removeAll() }
        current.withLock { $0 = nil }
    }
}
