#if NIO
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing
import Vow
import VowNIO

// Time belongs to the dispatcher: Vow's timers on an EventLoopDispatcher run on the loop's
// own timers (NIO's scheduleCallback), on its thread, and a loop that shuts down drops them.

extension NIOBridge {
    @Suite("VowNIO: timers on the loop's clock")
    struct TimerTests {
        @Test("after, timeout and delay on the dispatcher count the loop's time (an EmbeddedEventLoop's)")
        func timersCountTheLoopsTime() throws {
            let loop = EmbeddedEventLoop()
            let onLoop = EventLoopDispatcher(loop)
            let fired = after(seconds: 5, on: onLoop)
            let (slow, resolver) = Promise<Int>.pending()
            let limited = slow.timeout(seconds: 10, on: onLoop)
            let delayed = Promise.value(3).delay(seconds: 2, on: onLoop)
            loop.advanceTime(by: .seconds(4))
            #expect(fired.isPending)
            #expect(delayed.isFulfilled)
            loop.advanceTime(by: .seconds(1))
            #expect(fired.isFulfilled)
            #expect(limited.isPending)
            loop.advanceTime(by: .seconds(5))
            #expect(limited.isRejected)
            #expect((try error(of: limited) as? VowError)?.vowCode == .timeout)
            resolver.fulfill(0)
            try loop.syncShutdownGracefully()
        }

        @Test("a timer fires on the loop's thread; cancelling the promise cancels the loop's callback")
        func firesOnTheLoopsThread() throws {
            try withLoop { loop, onLoop throws in
                let onThread = after(seconds: 0.01, on: onLoop).map(on: .inline) { loop.inEventLoop }
                #expect(try value(of: onThread))
                let long = after(seconds: 3600, on: onLoop)
                long.cancel()
                #expect(long.isRejected)
            }
        }

        @Test("a loop that shuts down drops its timers: the after is cancelled, not left pending")
        func shutdownDropsTimers() throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let onLoop = EventLoopDispatcher(group.next())
            let long = after(seconds: 3600, on: onLoop)
            try shutDown(group)
            #expect(isCancellation(try error(of: long)))
            // Asked of the loop once it has shut down: cancelled at once.
            let late = after(seconds: 1, on: onLoop)
            #expect(isCancellation(try error(of: late)))
        }
    }
}
#endif
