#if NIO
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import Vow
import VowNIO

// EventLoopDispatcher's executor: actors and tasks on a swift-nio loop through Vow.

/// An actor on a dispatcher's executor that records whether each call ran on the loop.
private actor OnLoop {
    let dispatcher: EventLoopDispatcher
    private(set) var calls = 0
    private(set) var offLoop = 0

    init(_ dispatcher: EventLoopDispatcher) { self.dispatcher = dispatcher }

    nonisolated var unownedExecutor: UnownedSerialExecutor { dispatcher.executor.asUnownedSerialExecutor() }

    /// Counts the call; true when it ran on the loop's thread, isolated.
    func call() -> Bool {
        calls += 1
        let onLoop = dispatcher.eventLoop.inEventLoop
        if !onLoop { offLoop += 1 }
        dispatcher.executor.checkIsolated()
        return onLoop
    }
}

extension NIOBridge {
    @Suite("VowNIO: EventLoopDispatcher's executor")
    struct ExecutorTests {
        @Test("an actor on the dispatcher's executor runs every method on the loop's thread")
        func actorOnTheLoop() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let dispatcher = EventLoopDispatcher(group.next())
            let actor = OnLoop(dispatcher)
            for _ in 0..<scaled(500) { #expect(await actor.call()) }
            #expect(await actor.offLoop == 0)
            let erased: any Dispatcher = dispatcher
            #expect(erased.executor === dispatcher.executor)
            // Non-isolated code that prefers the executor runs on the loop too.
            let onLoop = await Task(executorPreference: dispatcher.executor) { dispatcher.eventLoop.inEventLoop }.value
            #expect(onLoop)
            // Any code on the loop's thread counts as isolated: a promise callback, a NIO task.
            let viaPromise = Promise.value(()).map(on: dispatcher) { _ in actor.assumeIsolated { $0.calls } }
            #expect(try await viaPromise.value == scaled(500))
            let viaNIO = try await dispatcher.eventLoop.submit { dispatcher.executor.isIsolatingCurrentContext() }.get()
            #expect(viaNIO == true)
            #expect(dispatcher.executor.isIsolatingCurrentContext() == false)
            // Two dispatchers of one loop: one exclusive context.
            let second = EventLoopDispatcher(dispatcher.eventLoop)
            #expect(second.executor.isSameExclusiveExecutionContext(other: dispatcher.executor))
            try await group.shutdownGracefully()
        }

        @Test("after the loop shut down, the actor's jobs are dropped and still run, off the loop")
        func droppedAfterShutdown() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let dispatcher = EventLoopDispatcher(group.next())
            let actor = OnLoop(dispatcher)
            #expect(await actor.call())
            try await group.shutdownGracefully()
            for _ in 0..<10 { #expect(await actor.call() == false) }
            #expect(await actor.calls == 11)
            #expect(await actor.offLoop == 10)
        }
    }
}
#endif
