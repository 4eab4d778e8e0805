#if NIO
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import Synchronization
import VowEngine

#if canImport(Glibc)
import Glibc
#endif

/// The queue behind an `EventLoopDispatcher`: work waiting for the loop, drained on the loop
/// in loop tasks, and what happens when the loop shuts down.
///
/// The work is the engine's continuations (`ContinuationSink`): a link of a chain is queued
/// as it is, without a closure around it, runs with `run()` (the loop thread marked as
/// running this serial dispatcher, so a `wait()` there that needs a later callback of this
/// loop reports a deadlock) and, when the loop will never run it, is told so with
/// `dropped()` (the engine then cancels its promise).
///
/// A class of its own so that the loop's shutdown watch and the drain tasks can hold it
/// strongly while the public dispatcher stays an object nothing holds weakly (a weak
/// reference would move every retain and release of the dispatcher, one per promise link,
/// to the slow side-table path). Work waiting here keeps the queue alive, not the
/// dispatcher: work submitted before the dispatcher was released still runs.
///
/// Two ways in. Work submitted by the callbacks this queue is running (the next link of a
/// chain, on the loop thread, while the queue's drain runs there) goes to `local`, without
/// the lock, when nothing is waiting in `state.queue`: it then comes after everything
/// submitted before it, and before whatever is submitted to `state.queue` later, so the
/// order stays the order of submission. All other work goes through the lock.
final class LoopQueue: @unchecked Sendable {
    // @unchecked: `local` is read and written only by the thread running `drain()` (the
    // loop's), which `drainThread` names while it runs; all other state is under
    // `state`'s lock or atomic.
    typealias Work = Continuation

    /// The thread running `drain()` now (0: none). Only that thread stores its own id, so a
    /// thread reading its own id here knows it is inside the drain.
    private let drainThread = Atomic<UInt>(0)
    /// `state.queue.count`, stored under the lock, read without it by the fast path.
    private let queued = Atomic<Int>(0)
    /// `state.open`, stored under the lock, read without it by the fast path.
    private let isOpen = Atomic<Bool>(true)
    /// Work submitted from inside the running drain (see above); drained before it ends.
    @exclusivity(unchecked) private var local: [Work] = []

    /// The queue and its state, under one lock. Never held while user code runs or while
    /// calling into NIO.
    private let state: NIOLockedValueBox<State>

    struct State: Sendable {
        /// False once the loop said it is shutting down (or the dispatcher was released):
        /// new work is dropped.
        var open = true
        /// A loop task that drains `queue` is scheduled or running. Invariant: `queue` and
        /// `carried` are empty unless `draining`.
        var draining = false
        var queue: [Work] = []
        /// What a drain task left for the next one (it had run `maximumJobsPerLoopTask`
        /// callbacks): the rest of its batch, then its `local` work. Runs before `queue`.
        var carried: [Work] = []
        /// Work to release unrun, see `releaseDropped()`.
        var dropped: [Work] = []
        var releasing = false
        /// The shutdown watch registered with the loop (cancelled by `stopWatching()`).
        var watch: NIOScheduledCallback?
    }

    let loop: any EventLoop
    private let maximumJobsPerLoopTask: Int
    /// The dispatcher's identity: the mark on the loop thread while it drains. Set once by
    /// the dispatcher's init, before the queue is shared with any other thread.
    var dispatcherIdentity: ObjectIdentifier?
    /// The Swift jobs of the dispatcher's executor waiting in the queue (one submission of
    /// this object each; see EventLoopDispatcher+Executor.swift). Set once by the
    /// dispatcher's init, like `dispatcherIdentity`.
    var swiftJobs: SwiftJobQueue?

    init(_ loop: any EventLoop, maximumJobsPerLoopTask: Int) {
        self.loop = loop
        self.maximumJobsPerLoopTask = maximumJobsPerLoopTask
        state = NIOLockedValueBox(State())
    }

    /// False once the loop said it is shutting down: calling into it then is an error NIO
    /// reports (its timers, say).
    var isAcceptingWork: Bool { isOpen.load(ordering: .relaxed) }

    /// Registers the shutdown watch with the loop (once, by the dispatcher's init).
    func watchForShutdown() {
        let watch = try? loop.scheduleCallback(at: .distantFuture, handler: ShutdownWatch(self))
        state.withLockedValue { $0.watch = watch }
    }

    /// Cancels the shutdown watch, unless the loop is shutting down (no call into NIO then).
    /// The dispatcher's deinit calls it: the queue itself lives on while work is queued.
    func stopWatching() {
        let watch = state.withLockedValue { state -> NIOScheduledCallback? in
            defer { state.watch = nil }
            return state.open ? state.watch : nil
        }
        watch?.cancel()
    }

    /// `EventLoopDispatcher.submit` (and `dispatch`, with the closure in a job).
    func submit(_ work: Continuation) {
        if drainThread.load(ordering: .relaxed) == currentThread(),
           queued.load(ordering: .relaxed) == 0, isOpen.load(ordering: .relaxed) {
            local.append(work)  // a callback of this queue submits the next one
            return
        }
        enum Action { case none, startDrain, releaseDropped }
        let action = state.withLockedValue { state -> Action in
            guard state.open else {
                state.dropped.append(work)
                return state.startReleasing() ? .releaseDropped : .none
            }
            state.queue.append(work)
            queued.store(state.queue.count, ordering: .relaxed)
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
        loop.execute { ticket.run() }
    }

    /// Runs the queued work on the loop, in order, batch by batch, until the queue is empty;
    /// after `maximumJobsPerLoopTask` callbacks it leaves the rest to a new loop task. Once
    /// the queue is closed (the loop shuts down, or the dispatcher was released) it runs what
    /// is left without handing the loop back: the queue no longer grows then, and a loop
    /// that shuts down runs its last tasks in a bounded number of rounds.
    func drain() {
        ThreadState.running(serialDispatcher: dispatcherIdentity) {
            drainMarked()
        }
    }

    private func drainMarked() {
        drainThread.store(currentThread(), ordering: .relaxed)
        defer { drainThread.store(0, ordering: .relaxed) }
        enum Step { case run, stop, yield }
        var batch: [Work] = []
        var ran = 0
        while true {
            let step = state.withLockedValue { state -> Step in
                guard state.draining else { return .stop }  // the loop refused a drain task
                if !state.carried.isEmpty {
                    swap(&batch, &state.carried)
                    return .run
                }
                if state.queue.isEmpty {
                    state.draining = false
                    return .stop
                }
                if ran >= maximumJobsPerLoopTask && state.open { return .yield }
                swap(&batch, &state.queue)
                queued.store(0, ordering: .relaxed)
                return .run
            }
            switch step {
            case .stop:
                return
            case .yield:
                scheduleDrain()
                return
            case .run:
                // The batch, then what its callbacks submitted, until they submit no more.
                guard run(&batch, ran: &ran) else { return scheduleDrain() }
                while !local.isEmpty {
                    swap(&batch, &local)
                    guard run(&batch, ran: &ran) else { return scheduleDrain() }
                }
            }
        }
    }

    /// Runs `batch` in order and empties it. After `maximumJobsPerLoopTask` callbacks (in
    /// all, `ran`) it leaves the rest, and `local`, to the next drain task and returns false,
    /// unless the queue is closed.
    private func run(_ batch: inout [Work], ran: inout Int) -> Bool {
        var index = 0
        while index < batch.count {
            if ran >= maximumJobsPerLoopTask && handBack(batch[index...]) {
                batch.removeAll()
                return false
            }
            batch[index].run()
            index += 1
            ran += 1
        }
        batch.removeAll(keepingCapacity: batch.capacity <= 4096)
        return true
    }

    /// Leaves `rest`, then `local`, for the next drain task (they run before `state.queue`),
    /// unless the queue is closed (then the current task runs everything). True if it did.
    private func handBack(_ rest: ArraySlice<Work>) -> Bool {
        let handedBack = state.withLockedValue { state -> Bool in
            guard state.open else { return false }
            state.carried = Array(rest) + local
            return true
        }
        if handedBack { local.removeAll() }
        return handedBack
    }

    // MARK: Shutdown

    /// The loop is shutting down (it cancelled the shutdown watch, on its own thread, while
    /// it runs its last tasks), or the dispatcher was released: from now on work is dropped.
    /// Work already queued still runs: its drain task is among the loop's tasks. Idempotent;
    /// any thread; may be called under NIO's own lock (no call into NIO).
    func loopIsShuttingDown() {
        state.withLockedValue { state in
            state.open = false
            isOpen.store(false, ordering: .relaxed)
            state.watch = nil
        }
    }

    /// The loop released a drain task without running it (it had shut down already, or
    /// drops tasks when it does): from now on work is dropped, and the work still queued is
    /// dropped now. Any thread.
    func loopRefusedDrain() {
        let release = state.withLockedValue { state -> Bool in
            state.open = false
            isOpen.store(false, ordering: .relaxed)
            state.watch = nil
            state.draining = false
            queued.store(0, ordering: .relaxed)
            state.dropped.append(contentsOf: state.carried)
            state.dropped.append(contentsOf: state.queue)
            state.carried = []
            state.queue = []
            return state.startReleasing()
        }
        if release { releaseDropped() }
    }

    /// Tells dropped work it was dropped, in a loop on a Dispatch worker thread, never
    /// inside the call that dropped it (it may be NIO's, under its own lock). Dropping one
    /// piece of work cancels its promise, whose handlers on this dispatcher come back to
    /// `submit` and are dropped in turn: this loop takes them one batch after the other.
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
                for work in batch { work.dropped() }
                batch.removeAll()
            }
        }
    }
}

/// An id for the calling thread (its `pthread_t`), never 0.
@inline(__always)
private func currentThread() -> UInt {
    UInt(pthread_self())
}

extension LoopQueue.State {
    /// Claims the release loop for `dropped`: true if the caller must start it.
    mutating func startReleasing() -> Bool {
        guard !releasing, !dropped.isEmpty else { return false }
        releasing = true
        return true
    }
}
#endif
