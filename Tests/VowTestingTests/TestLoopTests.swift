import Synchronization
import Testing
import Vow
import VowTesting

#if canImport(Glibc)
import Glibc
#endif

// TestLoop itself: virtual time, the loop as the installing thread's default dispatcher,
// the install rules, the census, releasing a loop. The timers of the library on virtual
// time are in VirtualTimerTests.swift, the seeded orders in SeedTests.swift.

@Suite("VowTesting: TestLoop")
struct TestLoopTests {
    @Test("a 30-second timeout fires after advance(by: 30), in microseconds")
    func thirtySecondTimeout() {
        TestLoop.with { loop in
            let (slow, resolver) = Promise<Int>.pending()
            let limited = slow.timeout(seconds: 30)
            let start = ContinuousClock.now
            loop.advance(by: 29.999)
            #expect(limited.isPending)
            loop.advance(by: 0.001)
            #expect(code(of: limited) == .timeout)
            #expect(ContinuousClock.now - start < .seconds(1))
            #expect(loop.now == 30)
            withExtendedLifetime(resolver) {}
        }
    }

    @Test("advance runs exactly what is due, in deadline order, each timer before the work it makes ready")
    func advanceOrder() {
        TestLoop.with { loop in
            let log = Log()
            let late = after(seconds: 2).done { log.append("late") }
            let early = after(seconds: 1).done { log.append("early") }
            let tie1 = after(seconds: 1).done { log.append("tie1") }
            #expect(loop.timerCount == 3)
            // Timer (early), its callback, timer (tie1), its callback.
            #expect(loop.advance(by: 1) == 4)
            #expect(log.entries == ["early", "tie1"])
            #expect(late.isPending)
            #expect(loop.advance(to: 2) == 2)
            #expect(log.entries == ["early", "tie1", "late"])
            #expect(loop.advance(to: 1) == 0)  // the past: nothing moves
            #expect(loop.now == 2)
            #expect(loop.advance(by: .milliseconds(500)) == 0)
            #expect(loop.now == 2.5)
            #expect(loop.timerCount == 0 && loop.readyCount == 0)
            withExtendedLifetime((early, tie1)) {}
        }
    }

    @Test("the time rule: zero, negative, -infinity and NaN move nothing; +infinity runs every timer")
    func advanceTimeRule() {
        TestLoop.with { loop in
            let now = after(seconds: 0)
            let later = after(seconds: 1000)
            let never = after(seconds: .infinity)
            #expect(loop.advance(by: -1) == 1)
            #expect(now.isFulfilled)
            #expect(loop.advance(by: -.infinity) == 0)
            #expect(loop.advance(by: .nan) == 0)
            #expect(loop.now == 0)
            #expect(loop.advance(by: .infinity) == 1)
            #expect(later.isFulfilled)
            #expect(loop.now == 1000)
            #expect(never.isPending)
            never.cancel()
        }
    }

    @Test("while installed, .default is the loop: callbacks wait for it and run on the test's thread")
    func defaultIsTheLoop() {
        TestLoop.with { loop in
            let thread = Mutex<pthread_t?>(nil)
            let mapped = Promise.value(20).map { value -> Int in
                thread.withLock { $0 = pthread_self() }
                return value + 1
            }
            usleep(10_000)
            #expect(mapped.isPending)
            #expect(loop.readyCount == 1)
            #expect(loop.runUntilIdle() == 1)
            #expect(value(of: mapped) == 21)
            #expect(thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } } == true)
            #expect(VowRuntime.defaultDispatcher === loop)
        }
        #expect(VowRuntime.defaultDispatcher !== VowRuntime.defaultDispatcher as AnyObject as? TestLoop)
    }

    @Test("other threads keep real time and their own default while a loop is installed here")
    func otherThreadsUntouched() {
        TestLoop.with { loop in
            let elsewhere = onOtherThread { () -> Bool in
                // Not this thread's loop: real time, the library's queue.
                let fired = after(seconds: 0.001).map { true }
                return (try? fired.wait()) ?? false
            }
            #expect(elsewhere)
            #expect(loop.timerCount == 0)
            #expect(loop.readyCount == 0)
        }
    }

    @Test("install rules: one loop per thread, one thread per loop; with { } nests as not installed")
    func installRules() {
        let loop = TestLoop()
        let other = TestLoop()
        #expect(loop.install())
        #expect(!loop.install())
        #expect(!other.install())
        #expect(!other.uninstall())
        #expect(!onOtherThread { loop.install() })
        TestLoop.with { inner in
            #expect(!inner.isInstalled)
        }
        #expect(loop.isInstalled)
        #expect(loop.uninstall())
        #expect(!loop.uninstall())
        #expect(!loop.isInstalled)
        // A timer armed under a loop keeps its clock once the loop is uninstalled.
        #expect(other.install())
        let armed = after(seconds: 2)
        #expect(other.uninstall())
        usleep(10_000)
        #expect(armed.isPending)
        #expect(other.advance(by: 2) == 1)
        #expect(armed.isFulfilled)
    }

    @Test("runUntilIdle or advance called from one of the loop's jobs runs nothing")
    func reentrantAdvance() {
        TestLoop.with { loop in
            let inner = Mutex<[Int]>([])
            let job = Promise.value(()).map { _ in
                inner.withLock { $0 = [loop.advance(by: 1), loop.runUntilIdle()] }
            }
            #expect(loop.runUntilIdle() == 1)
            #expect(inner.withLock { $0 } == [0, 0])
            #expect(job.isFulfilled)
        }
    }

    @Test("wait() inside a loop job on a promise the loop must settle reports a deadlock")
    func waitInsideAJob() {
        TestLoop.with { loop in
            let outcome = Mutex<VowError.Code?>(nil)
            let job = Promise.value(()).map { _ in
                let later = Promise.value(1).map { $0 + 1 }
                do {
                    _ = try later.wait()
                } catch {
                    outcome.withLock { $0 = (error as? VowError)?.vowCode }
                }
            }
            loop.runUntilIdle()
            #expect(outcome.withLock { $0 } == .deadlock)
            #expect(job.isFulfilled)
        }
    }

    @Test("the census lists the promises made here that are still pending, with their sites")
    func census() {
        TestLoop.with { loop in
            let (forgotten, resolver) = Promise<Int>.pending(); let line = #line
            let sleeping = after(seconds: 60)
            let pending = loop.pendingPromises
            #expect(pending.count == 2)
            #expect(pending.first?.site == "VowTestingTests/TestLoopTests.swift:\(line)")
            #expect(!loop.assertNoPendingPromisesQuietly())
            resolver.fulfill(1)
            loop.advance(by: 60)
            #expect(loop.pendingPromises.isEmpty)
            #expect(loop.assertNoPendingPromises())
            withExtendedLifetime((forgotten, sleeping)) {}
        }
    }

    @Test("assertNoPendingPromises() fails the test, listing the sites")
    func assertFails() {
        withKnownIssue {
            TestLoop.with { loop in
                let (pending, resolver) = Promise<Int>.pending()
                loop.assertNoPendingPromises()
                resolver.fulfill(1)
                withExtendedLifetime(pending) {}
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("TestLoopTests.swift") && $0.rawValue.contains("1 promise still pending") }
        }
    }

    @Test("releasing a loop drops its work (promises cancelled) and its timers (after cancelled)")
    func release() {
        var loop: TestLoop? = TestLoop()
        #expect(loop!.install())
        let ran = Counter()
        let queued = Promise.value(1).map { value -> Int in
            ran.increment()
            return value
        }
        let timer = after(seconds: 5)
        loop = nil  // uninstalls it
        #expect(ran.value == 0)
        #expect(code(of: queued) == .cancelled)
        #expect(code(of: timer) == .cancelled)
        // The thread is free: real time again.
        #expect((try? after(seconds: 0).wait()) != nil)
    }

    @Test("a loop runs its dispatcher's work when not installed too")
    func dispatcherWithoutInstall() {
        let loop = TestLoop()
        let mapped = Promise.value(1).map(on: loop) { $0 + 1 }
        let closure = Counter()
        loop.dispatch { closure.increment() }
        #expect(mapped.isPending)
        #expect(loop.runUntilIdle() == 2)
        #expect(value(of: mapped) == 2)
        #expect(closure.value == 1)
        #expect(loop.description == "TestLoop(seed: 0)")
    }
}

/// Loops installed and uninstalled on several threads at the same time: every install on a
/// fresh thread succeeds, each loop is its own thread's default while installed, and the
/// process-wide bookkeeping (debug mode's "off except on test-loop threads", the count of
/// installed loops) stays consistent. Under the tsan stage this also checks that the
/// bookkeeping is race-free: it was reported as a race (an empty `Locked` value) when two
/// suites installed loops at once.
@Suite("VowTesting: TestLoop on several threads")
struct TestLoopThreadTests {
    private final class Round: @unchecked Sendable {
        // @unchecked: each thread writes only its own slot; the test reads after joining.
        var failures = [Int](repeating: 0, count: 4)
    }

    @Test("loops installed on several threads at once")
    func installedOnSeveralThreads() {
        let round = Round()
        var threads: [pthread_t] = []
        for index in 0..<4 {
            let context = Unmanaged.passRetained(ThreadContext(index: index, round: round)).toOpaque()
            var thread = pthread_t()
            #expect(pthread_create(&thread, nil, { raw in
                let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
                for _ in 0..<500 {
                    let loop = TestLoop()
                    if !loop.install() || !loop.isInstalled { context.round.failures[context.index] += 1 }
                    if !(VowRuntime.defaultDispatcher === loop) { context.round.failures[context.index] += 1 }
                    if !loop.uninstall() || loop.isInstalled { context.round.failures[context.index] += 1 }
                }
                return nil
            }, context) == 0)
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        #expect(round.failures == [0, 0, 0, 0])
        #expect(!(VowRuntime.defaultDispatcher is TestLoop))
    }

    private final class ThreadContext: @unchecked Sendable {
        let index: Int
        let round: Round
        init(index: Int, round: Round) { self.index = index; self.round = round }
    }
}

extension TestLoop {
    /// `pendingPromises.isEmpty`, without recording an issue.
    func assertNoPendingPromisesQuietly() -> Bool { pendingPromises.isEmpty }
}
