#if NIO
import NIOCore
import Vow
import VowEngine

/// A Vow dispatcher that runs callbacks on a swift-nio event loop.
///
/// ```swift
/// let onLoop = EventLoopDispatcher(channel.eventLoop)
/// promise.map(on: onLoop) { reply in … }   // runs on the channel's loop thread
/// ```
///
/// **Threads.** Every callback submitted here runs on the loop's thread, one at a time, in
/// submission order (``isSerial`` is `true`), never inside the call that submits it, even
/// when that call is made on the loop itself. `dispatch(_:)` may be called from any
/// thread. Callbacks run back to back in one loop task of at most
/// ``maximumJobsPerLoopTask`` callbacks, after which the rest continues in a new loop task
/// queued behind the loop's other tasks, so a long queue of callbacks does not hold them
/// back.
///
/// **Ownership.** The dispatcher keeps the loop (`eventLoop`) as long as it lives; it does
/// not own or shut down the loop or its group. Work already submitted runs even if the
/// dispatcher is released meanwhile. Making one registers a callback with the loop (a timer
/// that never fires, used to hear about shutdown) and releasing it removes that
/// registration, so make one per loop and keep it rather than one per callback.
///
/// **Shutdown.** Once the loop is shutting down (from the moment it runs its last tasks;
/// certainly once its group's `shutdownGracefully` has completed), work submitted here is
/// dropped as the `Dispatcher` contract allows: released without running, which makes Vow
/// cancel the promise that work would have settled (it rejects with
/// `VowError.Code.cancelled`; `finally` handlers on other dispatchers still run). Work
/// queued before that still runs, among the loop's last tasks. Nothing hangs, nothing
/// crashes, and dropping a long chain does not recurse. The dispatcher learns about the
/// shutdown from the loop itself (the loop cancels the dispatcher's timer as it stops), so
/// it does not call into a loop that has shut down. Only a submission racing with the last
/// moments of a shutdown, from another thread, can reach the loop after it stopped
/// accepting tasks: NIO then prints one line to standard error, and the dispatcher, seeing
/// its task released unrun, drops that work and everything queued behind it the same way.
///
/// **Waiting.** `wait()` inside a callback running here, on a promise that a later callback
/// here must settle, could never return: it throws `VowError.Code.deadlock` at once instead
/// (the loop thread is marked as running this serial dispatcher while it drains). Blocking
/// the loop thread on anything else stalls the loop, as NIO's `EventLoopFuture.wait()`
/// would.
public final class EventLoopDispatcher: Dispatcher, ContinuationSink, ExecutorProviding {
    /// The loop callbacks run on.
    public let eventLoop: any EventLoop

    /// How many callbacks one loop task runs at most before it hands the loop back to NIO
    /// (the remaining callbacks continue, in order, in a new loop task).
    public static let maximumJobsPerLoopTask = 1024

    let queue: LoopQueue

    /// The dispatcher as a Swift executor: actors and tasks whose executor it is run their
    /// jobs on the loop's thread, in order with the callbacks (see `VowExecutor`, and
    /// EventLoopDispatcher+Executor.swift). Two dispatchers of one loop share one exclusive
    /// context, and any code on the loop's thread counts as isolated to it.
    public let executor: VowExecutor

    /// Makes a dispatcher for `loop`. May be called from any thread.
    ///
    /// Registers a callback with `loop` (a timer at `NIODeadline.distantFuture`) through
    /// which the loop reports its shutdown; make the dispatcher before the loop shuts down.
    public init(_ loop: any EventLoop) {
        eventLoop = loop
        let queue = LoopQueue(loop, maximumJobsPerLoopTask: Self.maximumJobsPerLoopTask)
        self.queue = queue
        let executor = HostedExecutor(host: queue)
        self.executor = executor
        queue.dispatcherIdentity = ObjectIdentifier(self)
        queue.swiftJobs = SwiftJobQueue(executor: executor)
        queue.watchForShutdown()
    }

    package var providedExecutor: VowExecutor { executor }

    deinit {
        queue.stopWatching()
    }

    /// `true`: callbacks run one at a time, in submission order.
    public var isSerial: Bool { true }

    /// Queues `work` to run on the loop's thread, after the work submitted before it. May be
    /// called from any thread; never runs `work` inside this call. Once the loop is shutting
    /// down, `work` is released without running (on another thread, a moment later).
    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        queue.submit(ClosureJob(work))
    }

    /// The engine's way in: a link queued as it is (see `LoopQueue`).
    @usableFromInline
    package func submit(_ continuation: Continuation) {
        queue.submit(continuation)
    }
}
#endif
