import Dispatch
import Testing
@testable import Vow

// Loops whose every step returns the next step's promise run in constant memory: the
// engine collapses adoption chains (Core+Adoption.swift). The outermost promise follows
// the step that runs now; the promises of the steps in between are freed; cancelling the
// outermost promise reaches the running step and its producer's cancel handler; a promise
// of the middle that somebody kept still settles when observed. The memory figures
// themselves (peak bytes per step) are measured by scripts/check-allocations.sh.

/// A secondary thread's stack: small on purpose, so a recursion per step would overflow.
private let smallStack = 512 * 1024

/// Generous: a million steps through the default queue, beside the rest of the suite.
private var loopSeconds: Double { Stress.underTSan ? 300 : 120 }

/// Weak references to promises, to count the ones still alive.
private final class WeakCores: Sendable {
    private final class Weak: @unchecked Sendable {
        // @unchecked: written once in init, read under the list's lock.
        weak var core: Core?
        init(_ core: Core) { self.core = core }
    }
    private let items = Locked<[Weak]>([])
    func append(_ core: Core) { items.withLock { $0.append(Weak(core)) } }
    var alive: Int { items.withLock { $0.count(where: { $0.core != nil }) } }
}

/// The loop of the issue: `step(k)` is `value(k).then { step(k - 1) }`, and step 0 is
/// `last()` (a settled value, or a pending promise that a producer holds).
private final class Loop: Sendable {
    let last: @Sendable () -> Promise<Int>
    let tracked: WeakCores?
    /// The promise of the step before the last one, kept when asked (a middle promise
    /// that somebody holds).
    let kept = Locked<Promise<Int>?>(nil)
    let keepAt: Int

    init(keepAt: Int = -1, tracked: WeakCores? = nil, last: @escaping @Sendable () -> Promise<Int>) {
        self.last = last
        self.tracked = tracked
        self.keepAt = keepAt
    }

    func step(_ k: Int) -> Promise<Int> {
        let promise = k == 0 ? last() : Promise.value(k).then { self.step($0 - 1) }
        tracked?.append(promise.core)
        if k == keepAt { kept.withLock { $0 = promise } }
        return promise
    }
}

/// A pending last step whose producer records that it started and that it was cancelled.
private final class PendingEnd: Sendable {
    let started = Counter()
    let cancelled = Counter()
    let resolver = Locked<Resolver<Int>?>(nil)

    func make() -> Promise<Int> {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { self.cancelled.increment() }
        self.resolver.withLock { $0 = resolver }
        started.increment()
        return promise
    }
}

@Suite("Engine: loops of adopted promises (collapsing)")
struct AdoptionLoopTests {
    @Test("1,000,000 steps settle with the last step's value, awaited on a 512 KB thread")
    func millionSteps() throws {
        let result = try onNewThread(stackSize: smallStack, within: loopSeconds, "a 512 KB thread") {
            let loop = Loop { .value(7) }
            return try value(of: loop.step(Stress.chainLength), within: loopSeconds)
        }
        #expect(result == 7)
    }

    @Test("the promises of the middle steps are freed while the loop runs")
    func middlesAreFreed() throws {
        let end = PendingEnd()
        let tracked = WeakCores()
        let loop = Loop(tracked: tracked) { end.make() }
        let outer = loop.step(1000)
        #expect(eventually { end.started.value == 1 })
        // Alive: the outermost promise (held here) and the pending end; each value(k)
        // and every middle link are gone.
        #expect(eventually { tracked.alive <= 2 }, "\(tracked.alive) step promises alive")
        #expect(outer.isPending)
        end.resolver.withLock { $0 }?.fulfill(5)
        #expect(try value(of: outer) == 5)
    }

    @Test("cancelling the outermost promise reaches the running step: its producer's onCancel runs")
    func cancelReachesRunningStep() throws {
        let end = PendingEnd()
        let loop = Loop { end.make() }
        let outer = loop.step(10_000)
        #expect(eventually { end.started.value == 1 })
        outer.cancel()
        #expect(outer.isCancelled)
        #expect(eventually { end.cancelled.value == 1 })
        #expect(end.resolver.withLock { $0 }?.isCancelled == true)
    }

    @Test("a 1,000,000-step loop is cancelled, and a kept middle of 200,000 forwarded steps is freed, on a 512 KB thread")
    func cancelAndFreeDeepLoopSmallStack() throws {
        let end = PendingEnd()
        try onNewThread(stackSize: smallStack, within: loopSeconds, "a 512 KB thread") {
            let loop = Loop { end.make() }
            let outer = loop.step(Stress.chainLength)
            #expect(eventually(within: loopSeconds) { end.started.value == 1 })
            outer.cancel()
            #expect(outer.isCancelled)
            #expect(eventually { end.cancelled.value == 1 })
        }
        let length = Stress.chainLength / 5
        let freedEnd = PendingEnd()
        try onNewThread(stackSize: smallStack, within: loopSeconds, "a 512 KB thread") {
            // The kept promise holds the chain of forwarded middles behind it; dropping it
            // frees them all without recursion.
            var outer: Promise<Int>? = nil
            do {
                let loop = Loop(keepAt: length - 1) { freedEnd.make() }
                outer = loop.step(length)
                #expect(eventually(within: loopSeconds) { freedEnd.started.value == 1 })
            }
            freedEnd.resolver.withLock { $0 }?.fulfill(3)
            let result = try value(of: outer!)
            #expect(result == 3)
            outer = nil
        }
    }

    @Test("a kept middle promise settles when observed: through isPending, value, a later then, and wait, even 200,000 forwarded steps deep on a 512 KB thread")
    func keptMiddleSettlesWhenObserved() throws {
        let length = Stress.chainLength / 5
        try onNewThread(stackSize: smallStack, within: loopSeconds, "a 512 KB thread") {
            let end = PendingEnd()
            let loop = Loop(keepAt: length - 1) { end.make() }
            let outer = loop.step(length)
            #expect(eventually(within: loopSeconds) { end.started.value == 1 })
            let middle = try #require(loop.kept.withLock { $0 })
            #expect(middle.isPending)
            end.resolver.withLock { $0 }?.fulfill(9)
            #expect(try value(of: outer) == 9)
            // Forwarded: it rejoins the end (settled) the moment it is read.
            #expect(!middle.isPending)
            #expect(middle.isFulfilled)
            #expect(try value(of: middle.then { $0 + 1 }) == 10)
            #expect(try middle.wait() == 9)
        }
        // A middle that is observed before the end settles registers on the end and
        // settles with it.
        let end = PendingEnd()
        let loop = Loop(keepAt: 50) { end.make() }
        let outer = loop.step(100)
        #expect(eventually { end.started.value == 1 })
        let middle = try #require(loop.kept.withLock { $0 })
        let seen = middle.then { $0 * 2 }
        #expect(middle.isPending)
        end.resolver.withLock { $0 }?.fulfill(4)
        #expect(try value(of: seen) == 8)
        #expect(try value(of: outer) == 4)
    }

    @Test("handlers registered on the outermost promise run in registration order")
    func outerHandlersKeepTheirOrder() throws {
        let end = PendingEnd()
        let loop = Loop { end.make() }
        let outer = loop.step(200)
        let order = Locked<[Int]>([])
        let done = (0..<20).map { index in outer.done { _ in order.withLock { $0.append(index) } } }
        #expect(eventually { end.started.value == 1 })
        end.resolver.withLock { $0 }?.fulfill(1)
        for promise in done { _ = try outcome(of: promise) }
        #expect(order.withLock { $0 } == Array(0..<20))
    }

    @Test("a middle step with its own handlers is not forwarded: they run, and so does the outermost promise")
    func middleWithHandlersKeepsThem() throws {
        let end = PendingEnd()
        let sawMiddle = Counter()
        final class Tapped: Sendable {
            let end: PendingEnd
            let saw: Counter
            init(_ end: PendingEnd, _ saw: Counter) { self.end = end; self.saw = saw }
            func step(_ k: Int) -> Promise<Int> {
                if k == 0 { return end.make() }
                let promise = Promise.value(k).then { self.step($0 - 1) }
                if k % 10 == 0 { promise.done { _ in self.saw.increment() } }
                return promise
            }
        }
        let outer = Tapped(end, sawMiddle).step(100)
        #expect(eventually { end.started.value == 1 })
        end.resolver.withLock { $0 }?.fulfill(2)
        #expect(try value(of: outer) == 2)
        #expect(eventually { sawMiddle.value == 10 })
    }

    @Test("a loop that ends in a rejection rejects the outermost promise with that error")
    func rejectionReachesOuter() throws {
        struct Stop: Error {}
        let loop = Loop { Promise(error: Stop()) }
        let outer = loop.step(1000)
        #expect(try error(of: outer) is Stop)
    }

    @Test("cancelling the outermost promise while the loop runs, many times over: no lost or doubled cancellation")
    func cancelWhileRunning() throws {
        for round in 0..<Stress.iterations(200) {
            let end = PendingEnd()
            let loop = Loop { end.make() }
            let outer = loop.step(50)
            if round % 3 == 0 { spin(round * 10) }
            outer.cancel()
            #expect(outer.isCancelled)
            // The end is cancelled at most once (it may not even be reached, or be reached
            // by a step that was already running when the cancellation came).
            _ = eventually(within: 0.05) { end.cancelled.value == 1 }
            #expect(end.cancelled.value <= 1)
        }
    }

    @Test("a step whose producer has a cancel handler is not collapsed: cancelling the outermost promise runs every step's handler")
    func stepsWithCancelHandlersKeepThem() throws {
        final class CancellableLoop: Sendable {
            let cancelled = Counter()
            let end = PendingEnd()
            func step(_ k: Int) -> Promise<Int> {
                Promise<Int> { resolver in
                    resolver.onCancel { self.cancelled.increment() }
                    DispatchQueue.global().async {
                        resolver.resolve(k == 0 ? self.end.make() : self.step(k - 1))
                    }
                }
            }
        }
        let loop = CancellableLoop()
        let outer = loop.step(20)
        #expect(eventually { loop.end.started.value == 1 })
        outer.cancel()
        #expect(eventually { loop.cancelled.value == 21 && loop.end.cancelled.value == 1 },
                "\(loop.cancelled.value) of 21 steps' and \(loop.end.cancelled.value) of 1 end's cancel handlers ran")
    }

    @Test("a resolver that adopts the next step's promise collapses too")
    func resolverLoop() throws {
        final class ResolverLoop: Sendable {
            let tracked = WeakCores()
            func step(_ k: Int) -> Promise<Int> {
                let promise = Promise<Int> { resolver in
                    DispatchQueue.global().async {
                        resolver.resolve(k == 0 ? Promise.value(11) : self.step(k - 1))
                    }
                }
                tracked.append(promise.core)
                return promise
            }
        }
        let loop = ResolverLoop()
        #expect(try value(of: loop.step(2000)) == 11)
    }
}

// In the serialized suite that owns the process-wide handler (see UnhandledErrorTests).
extension ErrorModel.ProcessWideSettings.UnhandledErrorTests {
    @Test("a loop that ends in a rejection nobody handles reports it exactly once")
    func loopRejectionReportedOnce() throws {
        let saved = VowRuntime.unhandledErrorHandler
        defer { VowRuntime.unhandledErrorHandler = saved }
        let recorder = ErrorModel.Recorder()
        VowRuntime.unhandledErrorHandler = recorder.handler
        let error = recorder.error()
        do {
            let loop = Loop { Promise(error: error) }
            let outer = loop.step(500)
            #expect(ErrorModel.poll { !outer.isPending })
        }
        #expect(ErrorModel.poll { recorder.hits.count >= 1 })
        ErrorModel.drainDefault()
        #expect(recorder.hits.count == 1)
    }
}
