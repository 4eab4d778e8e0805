#if NIO
import NIOCore
import Synchronization

// How an `EventLoopDispatcher` (its `LoopQueue`) learns that its loop has shut down, without calling into a
// loop that has (NIO prints an error for a task submitted to a shut-down loop, crashes
// with SWIFTNIO_STRICT=1, and says it will crash in future versions).
//
// 1. `ShutdownWatch`: a scheduled callback at `NIODeadline.distantFuture`. It never fires;
//    a loop that shuts down cancels its pending scheduled callbacks, which tells the
//    dispatcher to accept no more work. For `MultiThreadedEventLoopGroup` loops this
//    happens on the loop thread, after the loop stopped accepting tasks from other threads
//    and while it runs its last tasks (a drain task already queued still runs then). A
//    watch that a loop drops unfired and uncancelled (a loop that had shut down before the
//    dispatcher was made) says the same.
// 2. `DrainTicket`: each drain task handed to `execute` carries a ticket. If the loop
//    releases the task without running it (a submission that raced with the end of a
//    shutdown, or an `EventLoop` implementation that drops tasks), the ticket's deinit tells
//    the dispatcher, so the queued work is dropped rather than left waiting forever.

/// Tells its dispatcher when the loop cancels it (shutdown) or lets go of it unfired.
final class ShutdownWatch: NIOScheduledCallbackHandler, Sendable {
    /// The loop keeps the watch (and so the queue) until it shuts down or the dispatcher's
    /// deinit cancels the watch.
    private let queue: LoopQueue
    private let fired = Atomic<Bool>(false)

    init(_ queue: LoopQueue) {
        self.queue = queue
    }

    func handleScheduledCallback(eventLoop: some EventLoop) {
        // Only a loop whose clock reached `distantFuture` (a test loop advanced that far)
        // gets here: the loop still runs, so this is not a shutdown.
        fired.store(true, ordering: .relaxed)
    }

    func didCancelScheduledCallback(eventLoop: some EventLoop) {
        // The loop is shutting down, or the dispatcher was released (its deinit cancelled
        // the watch): either way, nothing new will be submitted through this queue. (NIO may
        // call this under its own lock: no call into NIO from here.)
        queue.loopIsShuttingDown()
    }

    deinit {
        // Released unfired and uncancelled: the loop dropped the registration, which only a
        // loop that had already shut down does.
        if !fired.load(ordering: .relaxed) { queue.loopIsShuttingDown() }
    }
}

/// One drain task handed to the loop: runs the drain, or, released unrun, reports that the
/// loop refused the task.
final class DrainTicket: Sendable {
    private let queue: LoopQueue
    private let ran = Atomic<Bool>(false)

    init(_ queue: LoopQueue) {
        self.queue = queue
    }

    func run() {
        ran.store(true, ordering: .relaxed)
        queue.drain()
    }

    deinit {
        if !ran.load(ordering: .relaxed) { queue.loopRefusedDrain() }
    }
}
#endif
