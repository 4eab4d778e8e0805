import Synchronization
import VowEngine

/// A test loop: a serial queue whose work runs only when a test asks (`run(until:)`), and
/// a virtual clock that supplies the timers of its dispatcher (`Dispatcher.scheduleTimer`).
/// An ordinary dispatcher built on the engine's interface, outside the engine: VowTesting's
/// `TestLoop` (Swift) and C's `vow_test_loop` (vow_testing.h, `LoopDispatcher`) are its
/// two faces, each a `Dispatcher` over one of these.
///
/// **Work.** Submitted work (continuations, closures, Swift jobs) waits in `ready` until a
/// test runs the loop, on the test's thread. With seed 0 it runs in submission order; with
/// another seed, each step picks at random (a generator seeded with `seed`) among the
/// oldest waiting job of each *lane*: the handlers of one promise form one lane, so they
/// keep their registration order (Promises/A+ 2.2.6), while handlers of different promises,
/// closures and Swift jobs interleave in an order the seed decides, the same on every run.
///
/// **Time.** `now` starts at 0 and moves only in `run(until:)`: timers due at or before the
/// target fire in deadline order (creation order for equal deadlines), each followed by the
/// work it made ready, then `now` is the target. The clock counts any time (`VirtualInstant`).
///
/// **Installing.** `install` makes the face the calling thread's own default dispatcher
/// (`Dispatchers.installThreadDefault`): `.default` stands for the loop there, so the
/// callbacks registered there queue here and the timers asked for there run on this clock.
/// While installed, debug mode records every promise's site (`DebugMode.hold()`), and the
/// census (`pendingPromises`) lists the promises made on that thread meanwhile. One loop
/// per thread and one thread per loop.
///
/// **Closing.** `close` (when a face releases the loop) uninstalls it, drops the waiting
/// work (a dispatcher's right: promises of dropped links are cancelled, Swift jobs still
/// run, see `VowExecutor`) and drops the timers (their `dropped` runs: the promise an
/// `after` would have fulfilled is cancelled, for instance). Work and timers that arrive
/// later are dropped at once. Closing from one of the loop's own jobs stops the run at once.
///
/// Threads: every method may be called from any thread; `run(until:)` runs the work on the
/// calling thread, one run at a time. No user code runs under `state`'s lock.
package final class TestLoopCore: SwiftJobHost, @unchecked Sendable {
    // @unchecked: the mutable state is in `state` (a mutex), except `faceIdentity` (set once,
    // before the loop is shared).

    /// One piece of waiting work.
    private enum Ready {
        case continuation(Continuation, lane: UInt)
        case swiftJob(UnownedJob, VowExecutor)

        var lane: UInt {
            switch self {
            case .continuation(_, let lane): return lane
            case .swiftJob(let job, _): return UInt(bitPattern: unsafeBitCast(job, to: Int.self))
            }
        }
    }

    /// Where and since when the loop was installed (for the census).
    private struct Installation {
        let thread: UInt
        let since: UInt64
        var until: UInt64?
        /// While installed: the thread's default (dropping it uninstalls).
        var token: ThreadDefault?
    }

    private struct State {
        var ready: [Ready] = []
        /// The oldest waiting item's index in `ready`.
        var head = 0
        var timers = TimerHeap()
        var nextSequence: UInt64 = 0
        var now = VirtualInstant.zero
        var generator: SeededGenerator
        var closed = false
        /// A `run(until:)` is in progress.
        var running = false
        /// Every installation, the current one (if any) last with no `until`.
        var installations: [Installation] = []

        var installed: Installation? {
            guard let last = installations.last, last.until == nil else { return nil }
            return last
        }

        /// Ends the current installation now; returns its token, for the caller to
        /// release outside the lock.
        mutating func endInstallation() -> ThreadDefault? {
            let last = installations.count - 1
            installations[last].until = DebugClock.now
            defer { installations[last].token = nil }
            return installations[last].token
        }
    }

    /// The seed of the order of ready work (0: submission order).
    package let seed: UInt64
    private let state: Mutex<State>

    /// The identity of the face users hand around as the dispatcher: links record it as
    /// their dispatcher, so the loop marks its thread with it. Set once by the face, before
    /// the loop is shared.
    @exclusivity(unchecked) package var faceIdentity: ObjectIdentifier?

    package init(seed: UInt64) {
        self.seed = seed
        state = Mutex(State(generator: SeededGenerator(seed: seed)))
    }

    deinit {
        close()
    }

    // MARK: Work (the faces' Dispatcher witnesses call these)

    /// Queues a continuation (a link knows which promise it is a handler of: its lane).
    package func submit(_ continuation: Continuation) {
        let lane = continuation.handlerLane
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.ready.append(.continuation(continuation, lane: lane))
            return true
        }
        if !accepted { continuation.dropped() }
    }

    package func submitSwiftJob(_ job: UnownedJob, for executor: VowExecutor) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.ready.append(.swiftJob(job, executor))
            return true
        }
        if !accepted { executor.runDropped(job) }
    }

    package var isolationIdentity: ObjectIdentifier { faceIdentity ?? ObjectIdentifier(self) }

    // MARK: Timers

    /// A timer that runs `fire` when the virtual time reaches now + `seconds` (finite, not
    /// negative). On a closed loop, `dropped` runs at once and the timer is inert.
    package func makeTimer(seconds: Double, fire: @escaping @Sendable () -> Void,
                           dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer {
        let timer = state.withLock { state -> VirtualTimer? in
            guard !state.closed else { return nil }
            let timer = VirtualTimer(deadline: state.now.advanced(bySeconds: seconds), sequence: state.nextSequence,
                                     loop: self, fire: fire, dropped: dropped)
            state.nextSequence += 1
            state.timers.insert(timer)
            return timer
        }
        guard let timer else {
            dropped()
            return InertTimer()
        }
        return timer
    }

    /// `VirtualTimer.cancel`: the timer stays in the heap (skipped when it comes up) but
    /// lets go of what it captured now.
    func cancel(_ timer: VirtualTimer) {
        let taken = state.withLock { _ -> (fire: (@Sendable () -> Void)?, dropped: (@Sendable () -> Void)?) in
            defer {
                timer.fire = nil
                timer.dropped = nil
            }
            return (timer.fire, timer.dropped)
        }
        withExtendedLifetime(taken) {}
    }

    // MARK: Running

    /// The virtual time.
    package var now: VirtualInstant {
        state.withLock { $0.now }
    }

    /// Work waiting to run, and timers waiting to fire.
    package var counts: (ready: Int, timers: Int) {
        state.withLock { state in
            (state.ready.count - state.head, state.timers.items.reduce(0) { $0 + ($1.fire == nil ? 0 : 1) })
        }
    }

    /// Runs the ready work and the timers due at or before `target` (nil: every timer,
    /// including those armed meanwhile), in order, on the calling thread, marked as running
    /// this dispatcher; then `now` is the target (it never goes back; with nil, the last
    /// fired timer's deadline). Returns how many jobs and timers ran, or nil when the loop
    /// is running already (called from one of its jobs, or from two threads at once):
    /// nothing runs then. A loop closed meanwhile (from one of its jobs, or another thread)
    /// stops: what was waiting was dropped.
    package func run(until target: VirtualInstant?) -> Int? {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard started else { return nil }
        defer { state.withLock { $0.running = false } }
        return ThreadState.running(serialDispatcher: isolationIdentity) {
            var count = runReady()
            while let fire = takeDueTimer(until: target) {
                fire()
                count += 1
                count += runReady()
            }
            return count
        }
    }

    /// Takes the next timer due at or before `target` (the clock moves to its deadline) and
    /// returns its `fire`; or, when none is due, moves the clock to `target` and returns nil.
    private func takeDueTimer(until target: VirtualInstant?) -> (@Sendable () -> Void)? {
        var cancelled: [VirtualTimer] = []
        let taken = state.withLock { state -> (fire: (@Sendable () -> Void)?, dropped: (@Sendable () -> Void)?)? in
            while let first = state.timers.first, first.fire == nil {
                cancelled.append(state.timers.removeFirst())
            }
            guard !state.closed else { return nil }
            if let first = state.timers.first, target.map({ first.deadline <= $0 }) ?? true {
                let due = state.timers.removeFirst()
                if state.now < due.deadline { state.now = due.deadline }
                defer {
                    due.fire = nil
                    due.dropped = nil
                }
                return (due.fire, due.dropped)
            }
            if let target, state.now < target { state.now = target }
            return nil
        }
        withExtendedLifetime(cancelled) {}
        guard let taken else { return nil }
        withExtendedLifetime(taken.dropped) {}
        return taken.fire ?? {}
    }

    /// Runs ready work until there is none (work made ready meanwhile included).
    private func runReady() -> Int {
        var count = 0
        while let item = takeReady() {
            switch item {
            case .continuation(let continuation, _): continuation.run()
            case .swiftJob(let job, let executor): executor.runQueued(job)
            }
            count += 1
        }
        return count
    }

    /// The next ready item: the oldest, or with a seed one picked among the oldest of each
    /// lane.
    private func takeReady() -> Ready? {
        let seed = self.seed
        return state.withLock { state -> Ready? in
            guard state.head < state.ready.count else { return nil }
            var index = state.head
            if seed != 0, state.ready.count - state.head > 1 {
                var seen = Set<UInt>()
                var candidates: [Int] = []
                for position in state.head..<state.ready.count where seen.insert(state.ready[position].lane).inserted {
                    candidates.append(position)
                }
                index = candidates[state.generator.next(below: candidates.count)]
            }
            let item = state.ready[index]
            if index == state.head {
                state.head += 1
            } else {
                state.ready.remove(at: index)
            }
            if state.head == state.ready.count {
                state.ready.removeAll(keepingCapacity: state.ready.capacity <= 4096)
                state.head = 0
            }
            return item
        }
    }

    // MARK: Installing

    package enum InstallResult {
        case installed
        /// This loop is installed on this thread already.
        case alreadyInstalled
        /// Another loop (or another thread default) is installed on this thread.
        case threadHasAnother
        /// This loop is installed on another thread.
        case installedElsewhere
        /// The loop was released.
        case closed
    }

    /// Installs the loop on the calling thread, with `face` as `.default` there.
    package func install(default face: any Dispatcher) -> InstallResult {
        let thread = DebugRecord.currentThread
        if Dispatchers.hasThreadDefault {
            return state.withLock { $0.installed?.thread == thread } ? .alreadyInstalled : .threadHasAnother
        }
        let refusal = state.withLock { state -> InstallResult? in
            if state.closed { return .closed }
            if state.installed != nil { return .installedElsewhere }
            return nil
        }
        if let refusal { return refusal }
        guard let token = Dispatchers.installThreadDefault(face) else { return .threadHasAnother }
        DebugMode.hold()
        let refused = state.withLock { state -> InstallResult? in
            if state.closed { return .closed }
            if state.installed != nil { return .installedElsewhere }
            state.installations.append(Installation(thread: thread, since: DebugClock.now, until: nil, token: token))
            return nil
        }
        if let refused {
            DebugMode.releaseHold()
            withExtendedLifetime(token) {}
            return refused
        }
        return .installed
    }

    /// Uninstalls the loop from the calling thread; false if it is not installed here.
    package func uninstall() -> Bool {
        let thread = DebugRecord.currentThread
        let token = state.withLock { state -> ThreadDefault?? in
            guard let installed = state.installed, installed.thread == thread else { return nil }
            return .some(state.endInstallation())
        }
        guard let token else { return false }
        withExtendedLifetime(token) {}
        DebugMode.releaseHold()
        return true
    }

    /// True while installed on some thread.
    package var isInstalled: Bool { state.withLock { $0.installed != nil } }

    // MARK: Closing

    /// Uninstalls the loop (wherever it is installed: that thread forgets it at once),
    /// drops the waiting work and the timers; later work and timers are dropped at once.
    /// Idempotent.
    package func close() {
        let taken = state.withLock { state -> (waiting: [Ready], timers: [VirtualTimer], token: ThreadDefault??)? in
            guard !state.closed else { return nil }
            state.closed = true
            let waiting = Array(state.ready[state.head...])
            state.ready = []
            state.head = 0
            let token: ThreadDefault?? = state.installed != nil ? .some(state.endInstallation()) : nil
            return (waiting, state.timers.removeAll(), token)
        }
        guard let taken else { return }
        if let token = taken.token {
            withExtendedLifetime(token) {}
            DebugMode.releaseHold()
        }
        for item in taken.waiting {
            switch item {
            case .continuation(let continuation, _): continuation.dropped()
            case .swiftJob(let job, let executor): executor.runDropped(job)
            }
        }
        var drops: [@Sendable () -> Void] = []
        var fires: [@Sendable () -> Void] = []
        state.withLock { _ in
            for timer in taken.timers {
                if let dropped = timer.dropped { drops.append(dropped) }
                if let fire = timer.fire { fires.append(fire) }
                timer.fire = nil
                timer.dropped = nil
            }
        }
        withExtendedLifetime(fires) {}
        for dropped in drops { dropped() }
    }

    // MARK: Census

    /// The promises made on the loop's thread while it was installed that are still
    /// pending, oldest first.
    package func pendingPromises() -> [PendingRecord] {
        let installations = state.withLock { $0.installations.map { ($0.thread, $0.since, $0.until ?? .max) } }
        return DebugRegistry.census { record in
            installations.contains { record.thread == $0.0 && record.madeAt >= $0.1 && record.madeAt < $0.2 }
        }
    }
}

/// A timer that never fires (asked of a closed loop).
final class InertTimer: DispatcherTimer {
    func cancel() {}
}
