#if NIO
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import Vow

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
/// ``maximumJobsPerLoopTask`` callbacks, after which the rest continues in a new loop task,
/// so a long chain does not keep the loop from its I/O.
///
/// **Ownership.** The dispatcher keeps the loop (`eventLoop`) as long as it lives; it does
/// not own or shut down the loop or its group. Work waiting to run keeps the dispatcher
/// alive. Making one registers a callback with the loop (a timer that never fires, used to
/// hear about shutdown) and dropping it removes that registration, so make one per loop
/// and keep it rather than one per callback.
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
/// **Waiting.** Never block the loop thread on a promise whose callbacks need this loop:
/// `wait()` inside a callback running here, on a promise settled by a later callback here,
/// never returns (NIO's rule for `EventLoopFuture.wait()` too; Vow's deadlock detection
/// does not cover dispatchers defined outside the library).
public final class EventLoopDispatcher: Dispatcher {
    /// The loop callbacks run on.
    public let eventLoop: any EventLoop

    /// How many callbacks one loop task runs at most before it hands the loop back to NIO
    /// (the remaining callbacks continue, in order, in a new loop task).
    public static let maximumJobsPerLoopTask = 1024

    typealias Work = @Sendable () -> Void

    /// The queue and its state, under one lock. Never held while user code runs or while
    /// calling into NIO.
    private let state: NIOLockedValueBox<State>

    struct State: Sendable {
        /// False once the loop said it is shutting down: new work is dropped.
        var open = true
        /// A loop task that drains `queue` is scheduled or running. Invariant: `queue` and
        /// `carried` are empty unless `draining`.
        var draining = false
        var queue: [Work] = []
        /// The rest of a batch that a drain task left for the next one (it had run
        /// `maximumJobsPerLoopTask` callbacks), from index `carriedStart`: runs before
        /// `queue`.
        var carried: [Work] = []
        var carriedStart = 0
        /// Work to release unrun, see `releaseDropped()`.
        var dropped: [Work] = []
        var releasing = false
        /// The shutdown watch registered with the loop (cancelled in `deinit`).
        var watch: NIOScheduledCallback?
    }

    /// Makes a dispatcher for `loop`. May be called from any thread.
    ///
    /// Registers a callback with `loop` (a timer at `NIODeadline.distantFuture`) through
    /// which the loop reports its shutdown; make the dispatcher before the loop shuts down.
    public init(_ loop: any EventLoop) {
        eventLoop = loop
        state = NIOLockedValueBox(State())
        let watch = try? loop.scheduleCallback(at: .distantFuture, handler: ShutdownWatch(self))
        state.withLockedValue { $0.watch = watch }
    }

    deinit {
        // Remove the timer from a loop that still runs (no need, and no call into NIO, once
        // it is shutting down).
        let watch = state.withLockedValue { state -> NIOScheduledCallback? in
            state.open ? state.watch : nil
        }
        watch?.cancel()
    }

    /// `true`: callbacks run one at a time, in submission order.
    public var isSerial: Bool { true }

    /// Queues `work` to run on the loop's thread, after the work submitted before it. May be
    /// called from any thread; never runs `work` inside this call. Once the loop is shutting
    /// down, `work` is released without running.
    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        enum Action { case none, startDrain, releaseDropped }
        let action = state.withLockedValue { state -> Action in
            guard state.open else {
                state.dropped.append(work)
                return state.startReleasing() ? .releaseDropped : .none
            }
            state.queue.append(work)
            if state.draining { return .none }
            state.draining = true
            return .startDrain
        }
        switch action {
        case .none: break
        case .startDrain: scheduleDrain()
        case .releaseDropped: releaseDropped()
        }
    }

    // MARK: Draining

    /// Asks the loop to run `drain()`. Called outside the lock, with `draining` set.
    private func scheduleDrain() {
        let ticket = DrainTicket(self)
        eventLoop.execute { ticket.run() }
    }

    /// Runs the queued work on the loop, in order, batch by batch, until the queue is empty;
    /// after `maximumJobsPerLoopTask` callbacks it leaves the rest to a new loop task. While
    /// the loop shuts down it runs what is left without handing the loop back: the queue no
    /// longer grows then, and the loop runs its last tasks in a bounded number of rounds.
    func drain() {
        enum Step { case run, stop, yield }
        var batch: [Work] = []
        var start = 0
        var ran = 0
        while true {
            let step = state.withLockedValue { state -> Step in
                guard state.draining else { return .stop }  // the loop refused a drain task
                if !state.carried.isEmpty {
                    swap(&batch, &state.carried)
                    start = state.carriedStart
                    state.carriedStart = 0
                    return .run
                }
                if state.queue.isEmpty {
                    state.draining = false
                    return .stop
                }
                if ran >= Self.maximumJobsPerLoopTask && state.open { return .yield }
                swap(&batch, &state.queue)
                start = 0
                return .run
            }
            switch step {
            case .stop:
                return
            case .yield:
                scheduleDrain()
                return
            case .run:
                var index = start
                while index < batch.count {
                    if ran >= Self.maximumJobsPerLoopTask && handBack(batch: &batch, from: index) {
                        scheduleDrain()
                        return
                    }
                    batch[index]()
                    index += 1
                    ran += 1
                }
                batch.removeAll(keepingCapacity: batch.capacity <= 4096)
            }
        }
    }

    /// Leaves `batch[index...]` for the next drain task, unless the loop is shutting down
    /// (then the current task runs everything). True if it did.
    private func handBack(batch: inout [Work], from index: Int) -> Bool {
        state.withLockedValue { state in
            guard state.open else { return false }
            swap(&state.carried, &batch)
            state.carriedStart = index
            return true
        }
    }

    // MARK: Shutdown

    /// The loop is shutting down (it cancelled the shutdown watch, on its own thread, while
    /// it runs its last tasks): from now on work is dropped. Work already queued still runs:
    /// its drain task is among the loop's last tasks. Idempotent; any thread.
    func loopIsShuttingDown() {
        state.withLockedValue { state in
            state.open = false
            state.watch = nil
        }
    }

    /// The loop released a drain task without running it (it had shut down already, or
    /// drops tasks when it does): from now on work is dropped, and the work still queued is
    /// dropped now. Any thread.
    func loopRefusedDrain() {
        let release = state.withLockedValue { state -> Bool in
            state.open = false
            state.watch = nil
            state.draining = false
            if !state.carried.isEmpty {
                state.dropped.append(contentsOf: state.carried[state.carriedStart...])
            }
            state.dropped.append(contentsOf: state.queue)
            state.carried = []
            state.queue = []
            return state.startReleasing()
        }
        if release { releaseDropped() }
    }

    /// Releases dropped work in a loop on a Dispatch worker thread, never inside the call
    /// that dropped it. Releasing one piece of work cancels its promise, whose handlers on
    /// this dispatcher come back to `dispatch` and are dropped in turn: released by this
    /// loop, they are released one after the other instead of each inside the previous
    /// one's release (a long chain would overflow the stack; the engine keeps the work alive
    /// until `dispatch` returns, so even releasing it at the end of `dispatch` recurses).
    /// One loop at a time (`releasing`).
    private func releaseDropped() {
        DispatchQueue.global().async { [self] in
            var batch: [Work] = []
            while true {
                let more = state.withLockedValue { state -> Bool in
                    if state.dropped.isEmpty {
                        state.releasing = false
                        return false
                    }
                    swap(&batch, &state.dropped)
                    return true
                }
                guard more else { return }
                batch.removeAll()
            }
        }
    }
}

extension EventLoopDispatcher.State {
    /// Claims the release loop for `dropped`: true if the caller must start it.
    mutating func startReleasing() -> Bool {
        guard !releasing, !dropped.isEmpty else { return false }
        releasing = true
        return true
    }
}
#endif
