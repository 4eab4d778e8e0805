import Dispatch
import Testing
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

extension ErrorModel {
    /// Rule 3: `cancel()` rejects at once, travels upstream under the upstream rule and
    /// runs the producer's cancel handlers once; timers, work items and retries stop.
    @Suite struct CancelTests {
        /// A pending promise whose producer counts its `onCancel` calls.
        private func producer() -> (Promise<Int>, Resolver<Int>, Counter) {
            let (promise, resolver) = Promise<Int>.pending()
            let cancels = Counter()
            resolver.onCancel { cancels.increment() }
            return (promise, resolver, cancels)
        }

        /// Waits for `counter` to reach `expected`, drains the default dispatcher (where
        /// cancel handlers run), and checks it did not go beyond.
        private func expectCount(_ counter: Counter, _ expected: Int,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(ErrorModel.poll { counter.count >= expected },
                    "reached \(counter.count) of \(expected)", sourceLocation: sourceLocation)
            ErrorModel.drainDefault()
            #expect(counter.count == expected, sourceLocation: sourceLocation)
        }

        // MARK: cancel() itself

        @Test func cancelRejectsAPendingPromiseAtOnce() {
            let blocked = BlockedQueue()
            let (promise, resolver) = Promise<Int>.pending()
            let finallyRan = Counter()
            let after = promise.finally(on: blocked.queue) { finallyRan.increment() }
            promise.cancel()
            // Settled in the call, while the dispatcher that runs `finally` is still held.
            #expect(promise.isRejected)
            #expect(promise.isCancelled)
            #expect((promise.error as? VowError)?.vowCode == .cancelled)
            #expect(finallyRan.count == 0)
            blocked.open()
            #expect(ErrorModel.error(of: after).map(isCancellation) == true)
            #expect(finallyRan.count == 1)
            // The resolver can no longer settle it.
            resolver.fulfill(1)
            #expect(promise.isRejected)
            #expect(!resolver.isPending)
            #expect(resolver.isCancelled)
        }

        @Test func cancelOnASettledPromiseDoesNothing() {
            let fulfilled = Promise<Int>.value(5)
            fulfilled.cancel()
            #expect(fulfilled.isFulfilled)
            #expect(!fulfilled.isCancelled)
            #expect(ErrorModel.value(of: fulfilled) == 5)

            let rejected = Promise<Int>(error: TokenError("settled"))
            rejected.cancel()
            #expect(!rejected.isCancelled)
            #expect(ErrorModel.token(of: rejected.error!) == "settled")
            _ = ErrorModel.outcome(of: rejected)

            let (promise, resolver, cancels) = producer()
            resolver.fulfill(1)
            promise.cancel()
            #expect(promise.isFulfilled)
            expectCount(cancels, 0)
        }

        // MARK: Upstream travel

        @Test func cancellationTravelsUpAChainAndRunsOnCancelOnce() {
            let (head, resolver, cancels) = producer()
            let first = head.then { $0 + 1 }
            let second = first.then { $0 + 1 }
            let third = second.then { $0 + 1 }
            third.cancel()
            #expect(third.isCancelled)
            #expect(second.isCancelled)
            #expect(first.isCancelled)
            #expect(head.isCancelled)
            expectCount(cancels, 1)
            third.cancel()
            head.cancel()
            expectCount(cancels, 1)
            withExtendedLifetime(resolver) {}
        }

        @Test func onCancelRegisteredAfterCancellationStillRuns() {
            let (promise, resolver) = Promise<Int>.pending()
            promise.cancel()
            let cancels = Counter()
            resolver.onCancel { cancels.increment() }
            expectCount(cancels, 1)
        }

        @Test func onCancelIsDroppedWhenThePromiseFulfils() {
            let (promise, resolver) = Promise<Int>.pending()
            let cancels = Counter()
            let released = Counter()
            do {
                let tracker = DeinitTracker(released)
                resolver.onCancel {
                    tracker.touch()
                    cancels.increment()
                }
            }
            #expect(released.count == 0)
            resolver.fulfill(1)
            #expect(released.count == 1, "settling drops the cancel handler (and what it holds)")
            promise.cancel()
            expectCount(cancels, 0)
        }

        @Test func onCancelIsDroppedWhenThePromiseRejects() {
            let (promise, resolver) = Promise<Int>.pending()
            let cancels = Counter()
            resolver.onCancel { cancels.increment() }
            resolver.reject(TokenError("rejected"))
            promise.cancel()
            #expect(!promise.isCancelled)
            _ = ErrorModel.outcome(of: promise)
            expectCount(cancels, 0)
        }

        @Test func sharedUpstreamIsCancelledOnlyWhenAllDependentsAre() {
            let (head, resolver, cancels) = producer()
            let a = head.then { $0 + 1 }
            let b = head.then { $0 + 2 }
            a.cancel()
            #expect(a.isCancelled)
            #expect(head.isPending)
            #expect(!head.isCancelled)
            b.cancel()
            #expect(head.isCancelled)
            expectCount(cancels, 1)
            withExtendedLifetime(resolver) {}
        }

        @Test func sharedUpstreamKeepsRunningForTheOtherDependent() {
            let (head, resolver, cancels) = producer()
            let ran = Counter()
            let cancelled = head.then { value -> Int in ran.increment(); return value }
            let other = head.then { $0 * 2 }
            cancelled.cancel()
            #expect(head.isPending)
            resolver.fulfill(21)
            #expect(ErrorModel.value(of: other) == 42)
            ErrorModel.drainDefault()
            #expect(ran.count == 0, "the cancelled derived's callback never runs")
            #expect(cancelled.isCancelled)
            expectCount(cancels, 0)
        }

        @Test func cancelledDerivedCallbackNeverRunsEvenIfAlreadyQueued() {
            let blocked = BlockedQueue()
            let ran = Counter()
            let source = Promise<Int>.value(1)
            let derived = source.then(on: blocked.queue) { value -> Int in ran.increment(); return value }
            // The link job is queued on the held dispatcher; cancel before it runs.
            derived.cancel()
            blocked.open()
            #expect(blocked.drain())
            #expect(ran.count == 0)
            #expect(derived.isCancelled)
        }

        @Test(arguments: [2, 3, 4])
        func samePromiseSeveralTimesInACombinatorIsCancelledWithIt(copies: Int) {
            let (head, resolver, cancels) = producer()
            let all = when(fulfilled: Array(repeating: head, count: copies))
            all.cancel()
            #expect(head.isCancelled, "every dependent of head was cancelled")
            expectCount(cancels, 1)
            withExtendedLifetime(resolver) {}
        }

        @Test(arguments: [2, 3])
        func samePromiseSeveralTimesInARaceIsCancelledWithIt(copies: Int) {
            let (head, resolver, cancels) = producer()
            let raced = race(Array(repeating: head, count: copies))
            raced.cancel()
            #expect(head.isCancelled, "every dependent of head was cancelled")
            expectCount(cancels, 1)
            withExtendedLifetime(resolver) {}
        }

        @Test func cancellingAFinallyStillRunsItOnceTheSourceSettles() {
            let (head, resolver, cancels) = producer()
            let ran = Counter()
            let cleanup = head.finally { ran.increment() }
            cleanup.cancel()
            // The finally was head's only dependent: head is cancelled, then the finally runs.
            #expect(head.isCancelled)
            expectCount(ran, 1)
            expectCount(cancels, 1)
            withExtendedLifetime(resolver) {}
        }

        @Test func cancelledFinallyRunsWhenASharedSourceFulfils() {
            let (head, resolver, _) = producer()
            let ran = Counter()
            let cleanup = head.finally { ran.increment() }
            let other = head.then { $0 + 1 }
            cleanup.cancel()
            #expect(head.isPending)
            ErrorModel.drainDefault()
            #expect(ran.count == 0)
            resolver.fulfill(1)
            #expect(ErrorModel.value(of: other) == 2)
            expectCount(ran, 1)
        }

        @Test func cancellingTheTailOfAVeryLongChainReachesTheHead() {
            let (head, resolver, cancels) = producer()
            let ran = Counter()
            var tail = head
            for _ in 0..<100_000 {
                tail = tail.then { value -> Int in ran.increment(); return value + 1 }
            }
            tail.cancel()
            #expect(tail.isCancelled)
            #expect(head.isCancelled)
            expectCount(cancels, 1)
            #expect(ran.count == 0)
            withExtendedLifetime(resolver) {}
        }

        // MARK: Timers, work, retry, race (timers firing, on virtual time:
        // Tests/VowTestingTests/VirtualTimerTests.swift)

        @Test func cancellingATimeoutStopsItAndCancelsTheSource() {
            let (source, resolver, cancels) = producer()
            let limited = source.timeout(seconds: 0.05)
            limited.cancel()
            #expect(source.isCancelled)
            expectCount(cancels, 1)
            #expect((limited.error as? VowError)?.vowCode == .cancelled)
            withExtendedLifetime(resolver) {}
        }

        @Test func workCancelledBeforeItStartsNeverRuns() {
            let blocked = BlockedQueue()
            let ran = Counter()
            let work = Promise<Int>(on: blocked.queue) {
                ran.increment()
                return 1
            }
            work.cancel()
            blocked.open()
            #expect(blocked.drain())
            #expect(ran.count == 0)
            #expect(work.isCancelled)
        }

        @Test func cancellingRetryStopsFurtherAttempts() {
            let attempts = Counter()
            let attemptCancels = Counter()
            let resolvers = Locked<[Resolver<Int>]>([])
            let result = retry(times: 5) { () -> Promise<Int> in
                attempts.increment()
                let (promise, resolver) = Promise<Int>.pending()
                resolver.onCancel { attemptCancels.increment() }
                resolvers.withLock { $0.append(resolver) }
                return promise
            }
            #expect(attempts.count == 1)
            result.cancel()
            #expect(result.isCancelled)
            // The running attempt is cancelled (its producer hears of it)...
            expectCount(attemptCancels, 1)
            // ...and no further attempt starts.
            #expect(attempts.count == 1)
        }

        @Test func raceCancelsLosersUnderTheUpstreamRule() {
            let (winner, winnerResolver, winnerCancels) = producer()
            let (loser, loserResolver, loserCancels) = producer()
            let (shared, sharedResolver, sharedCancels) = producer()
            let sharedOther = shared.then { $0 + 100 }
            let raced = race(winner, loser, shared)
            winnerResolver.fulfill(1)
            #expect(ErrorModel.value(of: raced) == 1)
            #expect(loser.isCancelled)
            #expect(!shared.isCancelled)
            #expect(shared.isPending)
            expectCount(loserCancels, 1)
            expectCount(sharedCancels, 0)
            expectCount(winnerCancels, 0)
            sharedResolver.fulfill(2)
            #expect(ErrorModel.value(of: sharedOther) == 102)
            withExtendedLifetime((loserResolver, sharedResolver)) {}
        }

        @Test func anyCancelsTheRestOnceOneFulfils() {
            let (first, firstResolver, _) = producer()
            let (second, secondResolver, secondCancels) = producer()
            let winner = any(first, second)
            firstResolver.fulfill(7)
            #expect(ErrorModel.value(of: winner) == 7)
            #expect(second.isCancelled)
            expectCount(secondCancels, 1)
            withExtendedLifetime(secondResolver) {}
        }
    
        @Test("a then cancelled while its body runs cancels the promise the body returns, unless another chain wants it")
        func cancelledWhileTheBodyRuns() throws {
            for keptWanted in [false, true] {
                let (step, stepResolver, cancels) = producer()
                let other = keptWanted ? step.map { $0 } : nil
                let started = DispatchSemaphore(value: 0)
                let carryOn = DispatchSemaphore(value: 0)
                let link = Promise.value(1).then { _ -> Promise<Int> in
                    started.signal()
                    _ = carryOn.wait(timeout: .now() + Stress.waitSeconds)
                    return step
                }
                #expect(started.wait(timeout: .now() + Stress.waitSeconds) == .success)
                link.cancel()
                carryOn.signal()
                #expect(ErrorModel.poll { link.isCancelled })
                if keptWanted {
                    ErrorModel.drainDefault()
                    #expect(step.isPending)
                    #expect(cancels.count == 0)
                } else {
                    #expect(ErrorModel.poll { step.isCancelled })
                    expectCount(cancels, 1)
                }
                withExtendedLifetime((stepResolver, other)) {}
            }
        }
    }
}
