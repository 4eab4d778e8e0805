import Testing
@testable import Vow

extension ErrorModel {
    /// Rule 5: the upstream rule holds when the last two dependents of a promise are
    /// cancelled from two threads at the same moment. (The unhandled-error count under
    /// several threads is checked in `UnhandledErrorTests`.)
    @Suite struct CancellationStressTests {
        @Test func concurrentCancellationOfBothDependentsCancelsTheHeadOnce() {
            let rounds = ErrorModel.scaled(1_000)
            let threads = 4
            let cancels = Counter()
            let headsCancelled = Counter()
            let timeouts = Counter()
            // Each thread publishes one dependent per round for its partner (thread ^ 1).
            let slots = (0..<threads).map { _ in Locked<Promise<Int>?>(nil) }
            let barriers = (0..<threads / 2).map { _ in Barrier(parties: 2) }
            ErrorModel.runOnThreads(threads) { thread in
                let barrier = barriers[thread / 2]
                let partner = thread ^ 1
                var generation = 0
                for _ in 0..<rounds {
                    let (head, resolver) = Promise<Int>.pending()
                    resolver.onCancel { cancels.increment() }
                    let mine = head.then { $0 + 1 }
                    slots[thread].withLock { $0 = head.then { $0 + 2 } }
                    generation += 1
                    guard barrier.arriveAndWait(generation: generation) else { timeouts.increment(); return }
                    // Both threads now cancel at once: this thread its own first dependent,
                    // the partner this thread's second one (and vice versa).
                    let theirs = slots[partner].withLock { $0 }
                    mine.cancel()
                    theirs?.cancel()
                    generation += 1
                    guard barrier.arriveAndWait(generation: generation) else { timeouts.increment(); return }
                    if head.isCancelled { headsCancelled.increment() }
                    slots[thread].withLock { $0 = nil }
                    withExtendedLifetime(resolver) {}
                }
            }
            #expect(timeouts.count == 0)
            #expect(headsCancelled.count == threads * rounds)
            #expect(ErrorModel.poll(seconds: 10) { cancels.count >= threads * rounds },
                    "\(cancels.count) of \(threads * rounds) cancel handlers ran")
            ErrorModel.drainDefault()
            #expect(cancels.count == threads * rounds)
        }

        @Test func concurrentCancelAndFulfilSettleOnce() {
            let rounds = ErrorModel.scaled(2_000)
            let outcomesSeen = Counter()
            let cancels = Counter()
            let cancelledHeads = Counter()
            let timeouts = Counter()
            let heads = Locked<[(Promise<Int>, Resolver<Int>)]>([])
            let barrier = Barrier(parties: 2)
            ErrorModel.runOnThreads(2) { thread in
                for round in 0..<rounds {
                    if thread == 0 {
                        let (head, resolver) = Promise<Int>.pending()
                        resolver.onCancel { cancels.increment() }
                        head.core.attach(ClosureJob {
                            outcomesSeen.increment()
                        })
                        heads.withLock { $0.append((head, resolver)) }
                    }
                    guard barrier.arriveAndWait(generation: 2 * round + 1) else { timeouts.increment(); return }
                    let (head, resolver) = heads.withLock { $0[round] }
                    if thread == 0 { resolver.fulfill(round) } else { head.cancel() }
                    guard barrier.arriveAndWait(generation: 2 * round + 2) else { timeouts.increment(); return }
                    if thread == 0 && head.isCancelled { cancelledHeads.increment() }
                }
            }
            #expect(timeouts.count == 0)
            // Every head settled exactly once, one way or the other.
            #expect(outcomesSeen.count == rounds)
            let all = heads.withLock { $0 }
            #expect(all.allSatisfy { !$0.0.isPending })
            #expect(ErrorModel.poll { cancels.count >= cancelledHeads.count })
            ErrorModel.drainDefault()
            #expect(cancels.count == cancelledHeads.count)
        }
    }
}
