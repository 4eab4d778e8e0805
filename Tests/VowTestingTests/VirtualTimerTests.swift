import Synchronization
import Testing
@testable import Vow
import VowTesting

// The library's timers on virtual time: after(seconds:), timeout(seconds:),
// delay(seconds:), retry(times:delay:), their time rule and their cancellation. Exact
// times, no sleeps: each test installs a TestLoop and moves its clock. (These were real-time
// tests in Tests/VowTests; the few that check the real clock itself stay there:
// API/TimerTests.swift, and HelperTests' delay.)

@Suite("Timers on virtual time")
struct VirtualTimerTests {
    // MARK: after(seconds:)

    @Test("after(seconds:) fulfils exactly when its time comes, not a moment before")
    func afterExactly() {
        TestLoop.with { loop in
            let timer = after(seconds: 0.05)
            loop.advance(by: 0.049_999_999)
            #expect(timer.isPending)
            loop.advance(by: 0.000_000_001)
            #expect(timer.isFulfilled)
        }
    }

    @Test("after(seconds:): +infinity never fires, -infinity at once; a cancelled one never fires")
    func afterRuleAndCancel() {
        TestLoop.with { loop in
            let never = after(seconds: .infinity)
            let now = after(seconds: -.infinity)
            let cancelled = after(seconds: 0.05)
            let cancelHandlers = Counter()
            let outcomes = Log()
            cancelled.core.onCancel { cancelHandlers.increment() }
            let waiting = cancelled.then { _ in outcomes.append("fulfilled") }
            waiting.cancel()  // travels up to the timer, its only dependent
            #expect(cancelled.isCancelled)
            loop.advance(by: 1)
            #expect(now.isFulfilled)
            #expect(never.isPending)
            #expect(code(of: cancelled) == .cancelled)
            #expect(cancelHandlers.value == 1)
            #expect(outcomes.entries.isEmpty)
            #expect(loop.timerCount == 0)  // +infinity arms nothing; the cancelled one is gone
            never.cancel()
            #expect(code(of: never) == .cancelled)
        }
    }

    // MARK: timeout(seconds:)

    @Test("timeout: a slow promise rejects with the timeout error and its source is cancelled")
    func timeoutFires() {
        TestLoop.with { loop in
            let (slow, resolver) = Promise<Int>.pending()
            let cancels = Counter()
            resolver.onCancel { cancels.increment() }
            let limited = slow.timeout(seconds: 0.05)
            loop.advance(by: 0.04)
            #expect(limited.isPending)
            loop.advance(by: 0.01)
            #expect(code(of: limited) == .timeout)
            #expect(slow.isCancelled)
            #expect(cancels.value == 1)
        }
    }

    @Test("timeout: a slow source that something else needs is not cancelled")
    func timeoutSparesSharedSource() {
        TestLoop.with { loop in
            let (slow, resolver) = Promise<Int>.pending()
            let cancels = Counter()
            resolver.onCancel { cancels.increment() }
            let other = slow.map { $0 + 1 }
            let limited = slow.timeout(seconds: 0.02)
            loop.advance(by: 0.02)
            #expect(code(of: limited) == .timeout)
            #expect(slow.isPending)
            resolver.fulfill(1)
            loop.runUntilIdle()
            #expect(value(of: other) == 2)
            #expect(cancels.value == 0)
        }
    }

    @Test("timeout: NaN, negative, zero and -infinity time out at once; +infinity never")
    func timeoutRule() {
        TestLoop.with { loop in
            for seconds in [Double.nan, -1, -Double.infinity, 0] {
                let (slow, resolver) = Promise<Int>.pending()
                let limited = slow.timeout(seconds: seconds)
                loop.runUntilIdle()
                #expect(code(of: limited) == .timeout, "\(seconds)")
                withExtendedLifetime(resolver) {}
            }
            let settled = Promise.value(1).timeout(seconds: .nan)
            loop.runUntilIdle()
            #expect(value(of: settled) == 1)
            let (slow, resolver) = Promise<Int>.pending()
            let guarded = slow.timeout(seconds: .infinity)
            loop.advance(by: .infinity)
            #expect(guarded.isPending)
            resolver.fulfill(4)
            loop.runUntilIdle()
            #expect(value(of: guarded) == 4)
        }
    }

    // MARK: delay(seconds:)

    @Test("delay(seconds:) passes the value on after the pause, a rejection at once")
    func delayPause() {
        TestLoop.with { loop in
            let delayed = Promise.value(5).delay(seconds: 30)
            loop.advance(by: 29)
            #expect(delayed.isPending)
            loop.advance(by: 1)
            #expect(value(of: delayed) == 5)
            let (slow, resolver) = Promise<Int>.pending()
            let rejected = slow.delay(seconds: 30)
            resolver.reject(TestError(6))
            loop.runUntilIdle()
            #expect(failure(of: rejected) as? TestError == TestError(6))
            #expect(loop.now == 30)
        }
    }

    @Test("delay(seconds:): the pause starts when the source fulfils, on the clock of the call")
    func delayStartsWithTheSource() {
        TestLoop.with { loop in
            let (source, resolver) = Promise<Int>.pending()
            let delayed = source.delay(seconds: 10)
            loop.advance(by: 100)
            #expect(delayed.isPending)
            // Fulfilled on another thread (no loop there): the pause is still virtual.
            onOtherThread { resolver.fulfill(7) }
            loop.advance(by: 9)
            #expect(delayed.isPending)
            loop.advance(by: 1)
            #expect(value(of: delayed) == 7)
        }
    }

    @Test("delay(seconds:): cancelling during the pause settles it cancelled; the timer never fires")
    func delayCancelled() {
        TestLoop.with { loop in
            let delayed = Promise.value(1).delay(seconds: 30)
            loop.runUntilIdle()
            #expect(delayed.isPending)
            delayed.cancel()
            #expect(code(of: delayed) == .cancelled)
            loop.advance(by: 60)
            #expect(code(of: delayed) == .cancelled)
        }
    }

    @Test("delay(seconds:): zero, negative, -infinity and NaN pass at once; +infinity never")
    func delayRule() {
        TestLoop.with { loop in
            for seconds in [0, -1, -Double.infinity, .nan] {
                let delayed = Promise.value(2).delay(seconds: seconds)
                loop.runUntilIdle()
                #expect(value(of: delayed) == 2, "\(seconds)")
            }
            let never = Promise.value(3).delay(seconds: .infinity)
            loop.advance(by: .infinity)
            #expect(never.isPending)
            never.cancel()
        }
    }

    // MARK: retry(times:delay:)

    @Test("retry: waits exactly `delay` between attempts, and gives up with the last error")
    func retryDelay() {
        TestLoop.with { loop in
            let attempts = Counter()
            let result = retry(times: 3, delay: 0.02) { () -> Promise<Int> in
                Promise(error: TestError(attempts.increment()))
            }
            loop.runUntilIdle()
            #expect(attempts.value == 1)
            loop.advance(by: 0.019)
            #expect(attempts.value == 1)
            loop.advance(by: 0.001)
            #expect(attempts.value == 2)
            loop.advance(by: 0.02)
            #expect(attempts.value == 3)
            #expect(failure(of: result) as? TestError == TestError(3))
            loop.advance(by: 1)
            #expect(attempts.value == 3)
        }
    }

    @Test("retry(if:) retries only the errors the predicate accepts, after the delay")
    func retryIf() {
        TestLoop.with { loop in
            let attempts = Counter()
            let calls = Counter()
            let succeeded = retry(times: 3, delay: 0.01, if: { _ in calls.increment() > 0 }) { () -> Promise<Int> in
                let attempt = attempts.increment()
                return attempt < 3 ? Promise(error: TestError(attempt)) : .value(attempt)
            }
            loop.advance(by: 0.02)
            #expect(value(of: succeeded) == 3)
            #expect(calls.value == 2)
            let refused = retry(times: 5, delay: 0.01, if: { ($0 as? TestError)?.tag != 2 }) { () -> Promise<Int> in
                Promise(error: TestError(attempts.increment() - 3))
            }
            loop.advance(by: 1)
            #expect(failure(of: refused) as? TestError == TestError(2))
        }
    }

    @Test("retry: cancelling during its delay stops further attempts")
    func retryCancelledDuringDelay() {
        TestLoop.with { loop in
            let attempts = Counter()
            let result = retry(times: 5, delay: 0.05) { () -> Promise<Int> in
                attempts.increment()
                return Promise(error: TestError(0))
            }
            loop.runUntilIdle()
            #expect(attempts.value == 1)
            result.cancel()
            loop.advance(by: 10)
            #expect(attempts.value == 1)
            #expect(code(of: result) == .cancelled)
        }
    }

    @Test("retry's delay: NaN, negative and -infinity retry at once; +infinity makes the first failure final")
    func retryDelayRule() {
        TestLoop.with { loop in
            for delay in [Double.nan, -1, -Double.infinity] {
                let attempts = Counter()
                let result = retry(times: 3, delay: delay) { () -> Promise<Int> in Promise(error: TestError(attempts.increment())) }
                loop.runUntilIdle()
                #expect(failure(of: result) as? TestError == TestError(3), "\(delay)")
            }
            let attempts = Counter()
            let never = retry(times: 3, delay: .infinity) { () -> Promise<Int> in Promise(error: TestError(attempts.increment())) }
            loop.advance(by: .infinity)
            #expect(failure(of: never) as? TestError == TestError(1))
            #expect(attempts.value == 1)
        }
    }
}
