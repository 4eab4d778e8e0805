import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The engine's test loop: a serial dispatcher whose work runs only when a test asks
/// (`run(until:)`), and a virtual clock for the timers. VowTesting's `TestLoop` and C's
/// `vow_test_loop` are its two faces.
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
/// work it made ready, then `now` is the target.
///
/// **Installing.** `install` makes the loop the calling thread's: timers created on that
/// thread read its clock, `.default` stands for it there, and promises made there are
/// listed in its census (`pendingPromises`). One loop per thread and one thread per loop.
///
/// **Closing.** `close` (when a face releases the loop) uninstalls it, drops the waiting
/// work (a dispatcher's right: promises of dropped links are cancelled, Swift jobs still
/// run, see `VowExecutor`) and drops the timers (their `onDrop` runs: the promise an
/// `after` would have fulfilled is cancelled, for instance). Work and timers that arrive
/// later are dropped at once.
///
/// Threads: every method may be called from any thread; `run(until:)` runs the work on the
/// calling thread, one run at a time. No user code runs under `lock`.
package final class TestLoopCore: VowExecutor, Dispatcher, ContinuationSink, ExecutorProviding, @unchecked Sendable {
    // @unchecked: the mutable state is guarded by `lock`, except `installedOn` (atomic)
    // and `faceIdentity` (set once, before the loop is shared).

    /// One piece of waiting work.
    private enum Ready {
        case continuation(Continuation, lane: UInt)
        case swiftJob(UnownedJob)

        var lane: UInt {
            switch self {
            case .continuation(_, let lane): return lane
            case .swiftJob(let job): return UInt(bitPattern: unsafeBitCast(job, to: Int.self))
            }
        }
    }

    /// The seed of the order of ready work (0: submission order).
    package let seed: UInt64

    private let lock = VowLock()
    @exclusivity(unchecked) private var ready: [Ready] = []
    /// The oldest waiting item's index in `ready`.
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var timers = TimerHeap()
    @exclusivity(unchecked) private var nextSequence: UInt64 = 0
    /// Virtual nanoseconds since the loop was made.
    @exclusivity(unchecked) private var nowNanoseconds = 0
    @exclusivity(unchecked) private var generator: SeededGenerator
    @exclusivity(unchecked) private var closed = false
    /// A `run(until:)` is in progress.
    @exclusivity(unchecked) private var running = false
    /// The `ThreadState` (its address) of the thread the loop is installed on; 0: none.
    private let installedOn = Atomic<UInt>(0)

    /// The identity of the face that users hand around as the dispatcher (VowTesting's
    /// `TestLoop`): links record it as their dispatcher, so the loop marks its thread with
    /// it. Set once by the face, before the loop is shared; nil: the loop itself.
    @exclusivity(unchecked) package var faceIdentity: ObjectIdentifier?

    package init(seed: UInt64) {
        self.seed = seed
        generator = SeededGenerator(seed: seed)
        super.init()
    }

    deinit {
        close()
    }

    // MARK: Dispatcher

    package var isSerial: Bool { true }

    package func dispatch(_ work: @escaping @Sendable () -> Void) {
        submit(ClosureJob(work))
    }

    @usableFromInline package func submit(_ continuation: Continuation) {
        let lane = continuation.orderingLane
        lock.lock()
        if closed {
            lock.unlock()
            continuation.dropped()
            return
        }
        ready.append(.continuation(continuation, lane: lane))
        lock.unlock()
    }

    package var providedExecutor: VowExecutor { self }

    override func submitSwiftJob(_ job: UnownedJob) {
        lock.lock()
        if closed {
            lock.unlock()
            runDropped(job)
            return
        }
        ready.append(.swiftJob(job))
        lock.unlock()
    }

    package override var isolationIdentity: ObjectIdentifier { faceIdentity ?? ObjectIdentifier(self) }

    // MARK: Timers

    /// A timer that runs `body` when the virtual time reaches now + `nanoseconds` (nil: the
    /// loop is closed; then `onDrop` ran already).
    func makeTimer(nanoseconds: Int, onDrop: (@Sendable () -> Void)?,
                           _ body: @escaping @Sendable () -> Void) -> VirtualTimer? {
        lock.lock()
        if closed {
            lock.unlock()
            onDrop?()
            return nil
        }
        let (deadline, overflow) = nowNanoseconds.addingReportingOverflow(nanoseconds)
        let timer = VirtualTimer(deadline: overflow ? Int.max : deadline, sequence: nextSequence, loop: self,
                                 body: body, onDrop: onDrop)
        nextSequence += 1
        timers.insert(timer)
        lock.unlock()
        return timer
    }

    /// `VirtualTimer.cancel`: the timer stays in the heap (skipped when it comes up) but
    /// lets go of what it captured now.
    func cancel(_ timer: VirtualTimer) {
        lock.lock()
        let body = timer.body
        let onDrop = timer.onDrop
        timer.body = nil
        timer.onDrop = nil
        lock.unlock()
        withExtendedLifetime((body, onDrop)) {}
    }

    // MARK: Running

    /// Virtual seconds since the loop was made.
    package var now: Double {
        lock.withLock { Double(nowNanoseconds) / 1e9 }
    }

    /// The virtual time in nanoseconds.
    package var nowInNanoseconds: Int {
        lock.withLock { nowNanoseconds }
    }

    /// Work waiting to run, and timers waiting to fire.
    package var counts: (ready: Int, timers: Int) {
        lock.withLock { (ready.count - head, timers.items.reduce(0) { $0 + ($1.body == nil ? 0 : 1) }) }
    }

    /// Runs the ready work and the timers due at or before `target` (virtual nanoseconds
    /// since the loop was made; nil: every timer, including those armed meanwhile), in
    /// order, on the calling thread, marked as running this dispatcher; then `now` is the
    /// target (it never goes back; with nil, the last fired timer's deadline). Returns how
    /// many jobs and timers ran, or nil when the loop is running already (called from one
    /// of its jobs, or from two threads at once): nothing runs then.
    package func run(until target: Int?) -> Int? {
        lock.lock()
        guard !running else {
            lock.unlock()
            return nil
        }
        running = true
        lock.unlock()
        defer { lock.withLock { running = false } }
        return ThreadState.running(serialDispatcher: isolationIdentity) {
            var count = runReady()
            while let (body, onDrop) = takeDueTimer(until: target) {
                withExtendedLifetime(onDrop) {}
                body?()
                count += 1
                count += runReady()
            }
            return count
        }
    }

    /// Takes the next timer due at or before `target` (the clock moves to its deadline) and
    /// returns what it holds; or, when none is due, moves the clock to `target` and returns
    /// nil.
    private func takeDueTimer(until target: Int?) -> (body: (@Sendable () -> Void)?, onDrop: (@Sendable () -> Void)?)? {
        var cancelled: [VirtualTimer] = []
        lock.lock()
        while let first = timers.first, first.body == nil {
            cancelled.append(timers.removeFirst())
        }
        var due: VirtualTimer?
        if let first = timers.first, target.map({ first.deadline <= $0 }) ?? true {
            due = timers.removeFirst()
            if first.deadline > nowNanoseconds { nowNanoseconds = first.deadline }
        } else if let target, target > nowNanoseconds {
            nowNanoseconds = target
        }
        let taken = due.map { timer in
            defer {
                timer.body = nil
                timer.onDrop = nil
            }
            return (body: timer.body, onDrop: timer.onDrop)
        }
        lock.unlock()
        withExtendedLifetime(cancelled) {}
        return taken
    }

    /// Runs ready work until there is none (work made ready meanwhile included).
    private func runReady() -> Int {
        var count = 0
        while let item = takeReady() {
            switch item {
            case .continuation(let continuation, _): continuation.run()
            case .swiftJob(let job): runQueued(job)
            }
            count += 1
        }
        return count
    }

    /// The next ready item: the oldest, or with a seed one picked among the oldest of each
    /// lane.
    private func takeReady() -> Ready? {
        lock.lock()
        defer { lock.unlock() }
        guard head < ready.count else { return nil }
        var index = head
        if seed != 0, ready.count - head > 1 {
            var seen = Set<UInt>()
            var candidates: [Int] = []
            for position in head..<ready.count where seen.insert(ready[position].lane).inserted {
                candidates.append(position)
            }
            index = candidates[generator.next(below: candidates.count)]
        }
        let item = ready[index]
        if index == head {
            head += 1
        } else {
            ready.remove(at: index)
        }
        if head == ready.count {
            ready.removeAll(keepingCapacity: ready.capacity <= 4096)
            head = 0
        }
        return item
    }

    // MARK: Installing

    package enum InstallResult {
        case installed
        /// This loop is installed on this thread already.
        case alreadyInstalled
        /// Another loop is installed on this thread.
        case threadHasAnother
        /// This loop is installed on another thread.
        case installedElsewhere
        /// The loop was released.
        case closed
    }

    /// Installs the loop on the calling thread, with `face` as `.default` there.
    package func install(default face: any Dispatcher) -> InstallResult {
        if let current = TestLoops.current {
            return current === self ? .alreadyInstalled : .threadHasAnother
        }
        let state = ThreadState.current
        let thread = UInt(bitPattern: ObjectIdentifier(state))
        lock.lock()
        if closed {
            lock.unlock()
            return .closed
        }
        guard installedOn.compareExchange(expected: 0, desired: thread, ordering: .sequentiallyConsistent).exchanged else {
            lock.unlock()
            return .installedElsewhere
        }
        lock.unlock()
        state.setTestLoop(self, default: face)
        TestLoops.count(1)
        return .installed
    }

    /// Uninstalls the loop from the calling thread; false if it is not installed here.
    package func uninstall() -> Bool {
        let state = ThreadState.current
        guard state.testLoop === self else { return false }
        let thread = UInt(bitPattern: ObjectIdentifier(state))
        guard installedOn.compareExchange(expected: thread, desired: 0, ordering: .sequentiallyConsistent).exchanged else {
            return false
        }
        TestLoops.count(-1)
        let taken = state.takeTestLoop()
        withExtendedLifetime(taken) {}
        return true
    }

    /// True while installed on the thread whose state is `state`.
    func isInstalled(on state: ThreadState) -> Bool {
        installedOn.load(ordering: .sequentiallyConsistent) == UInt(bitPattern: ObjectIdentifier(state))
    }

    /// True while installed on some thread.
    package var isInstalled: Bool { installedOn.load(ordering: .sequentiallyConsistent) != 0 }

    // MARK: Closing

    /// Uninstalls the loop (wherever it is installed: another thread forgets it at its next
    /// look), drops the waiting work and the timers; later work and timers are dropped at
    /// once. Idempotent.
    package func close() {
        lock.lock()
        if closed {
            lock.unlock()
            return
        }
        closed = true
        let waiting = Array(ready[head...])
        ready = []
        head = 0
        let allTimers = timers.removeAll()
        var drops: [@Sendable () -> Void] = []
        var bodies: [@Sendable () -> Void] = []
        for timer in allTimers {
            if let onDrop = timer.onDrop { drops.append(onDrop) }
            if let body = timer.body { bodies.append(body) }
            timer.body = nil
            timer.onDrop = nil
        }
        lock.unlock()
        if installedOn.exchange(0, ordering: .sequentiallyConsistent) != 0 {
            TestLoops.count(-1)
            let state = ThreadState.current
            if state.testLoop === self {
                let taken = state.takeTestLoop()
                withExtendedLifetime(taken) {}
            }
        }
        for item in waiting {
            switch item {
            case .continuation(let continuation, _): continuation.dropped()
            case .swiftJob(let job): runDropped(job)
            }
        }
        withExtendedLifetime(bodies) {}
        for onDrop in drops { onDrop() }
    }

    // MARK: Census

    /// The promises made on the loop's thread while it was installed that are still
    /// pending, oldest first.
    package func pendingPromises() -> [PendingRecord] {
        DebugRegistry.census(owner: ObjectIdentifier(self))
    }
}

extension Continuation {
    /// The lane of a test loop's seeded order: for a link (a promise that carries a
    /// callback), the promise it is a handler of, so the handlers of one promise keep their
    /// order; for other work, itself.
    var orderingLane: UInt {
        if let link = self as? Core {
            let flags = link.lock()
            // The upstream word means something else once the promise settled (its value's
            // type): read it only while pending, which a link about to run always is.
            let source = flags.contains(.settled) ? nil : link.upstream
            link.unlock(flags)
            if let source { return UInt(bitPattern: ObjectIdentifier(source)) }
        }
        return UInt(bitPattern: ObjectIdentifier(self))
    }
}
