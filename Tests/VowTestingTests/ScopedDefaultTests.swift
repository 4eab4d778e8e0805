import Dispatch
import Testing
import Vow
import VowTesting

// VowRuntime.withDefaultDispatcher(_:_:) and an installed TestLoop, both ways round: the
// innermost wins for `.default`; the loop keeps its clock and its census. The scope itself
// is tested in Tests/VowTests/API/ScopedDefaultDispatcherTests.swift.

@Suite("VowTesting: TestLoop and a scoped default dispatcher")
struct ScopedDefaultTests {
    /// A queue a callback can recognise.
    private static func taggedQueue() -> (DispatchQueue, DispatchSpecificKey<Int>) {
        let queue = DispatchQueue(label: "test.scoped-default")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        return (queue, key)
    }

    @Test("a scope inside an installed loop: .default is the scope's dispatcher, timers keep the loop's clock, the census keeps its promises")
    func scopeInsideLoop() throws {
        let (queue, key) = Self.taggedQueue()
        try TestLoop.with { loop throws in
            let (onScope, timer, pending) = VowRuntime.withDefaultDispatcher(queue) {
                #expect(VowRuntime.defaultDispatcher === queue)
                return (Promise.value(1).map { _ in DispatchQueue.getSpecific(key: key) },
                        after(seconds: 10),
                        Promise<Int>.pending())
            }
            // Runs on the queue, without the loop running.
            #expect(try onScope.wait() == 1)
            // Outside the scope, inside the loop: `.default` is the loop again.
            #expect(VowRuntime.defaultDispatcher === loop)
            let onLoop = Promise.value(1).map { _ in DispatchQueue.getSpecific(key: key) }
            #expect(onLoop.isPending)
            loop.runUntilIdle()
            #expect(value(of: onLoop) == .some(nil))
            // The timer asked for in the scope reads the loop's clock.
            loop.advance(by: 9.999)
            #expect(timer.isPending)
            loop.advance(by: 0.001)
            #expect(timer.isFulfilled)
            // The promise made in the scope is one of the loop's pending promises.
            #expect(loop.pendingPromises.count == 1)
            pending.resolver.fulfill(0)
            #expect(loop.pendingPromises.isEmpty)
        }
    }

    @Test("a loop installed inside a scope: .default stays the scope's dispatcher, timers read the loop's clock")
    func loopInsideScope() throws {
        let (queue, key) = Self.taggedQueue()
        try VowRuntime.withDefaultDispatcher(queue) { () throws in
            try TestLoop.with { loop throws in
                #expect(VowRuntime.defaultDispatcher === queue)
                let onScope = Promise.value(1).map { _ in DispatchQueue.getSpecific(key: key) }
                #expect(try onScope.wait() == 1)
                let timer = after(seconds: 5)
                loop.advance(by: 5)
                #expect(timer.isFulfilled)
            }
        }
    }

    @Test("a scope given .default inside an installed loop means the library's queue, not the loop")
    func libraryQueueInsideLoop() throws {
        try TestLoop.with { loop throws in
            try VowRuntime.withDefaultDispatcher(.default) { () throws in
                #expect(VowRuntime.defaultDispatcher !== loop)
                #expect(VowRuntime.defaultDispatcher is SerialDispatcher)
                // Runs without the loop running.
                #expect(try Promise.value(1).map { $0 + 1 }.wait() == 2)
            }
        }
    }
}
