import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The floor every promise library is measured against: a bare box.
///
/// A final class with a lock, a value slot and an array of callbacks; `then` makes a new box
/// and registers one closure. No errors, no cancellation, no type checks, no deadlock
/// detection, no unhandled-error tracking: what is left is the cost any promise must pay
/// (one object and one closure per link, one lock round-trip to register, one to settle).
///
/// Two modes, to compare like with like:
/// - `queue == nil` (inline): callbacks run on the thread that resolves, inside `resolve`,
///   after the lock is released. A chain resolves by recursion: a deep pending chain
///   overflows the stack, as it does in PromiseKit and the other recursive libraries.
/// - `queue != nil`: callbacks are submitted to a `BoxQueue`, a minimal serial job queue of
///   the same shape as Vow's default dispatcher (lock, array, one Dispatch drain).
public final class Box: @unchecked Sendable {
    // @unchecked: `value` and `callbacks` are only touched under `lock`.
    private let lock = SpinLock()
    private var value: Int?
    private var callbacks: [@Sendable (Int) -> Void] = []
    let queue: BoxQueue?

    public init(queue: BoxQueue?) {
        self.queue = queue
    }

    public init(value: Int, queue: BoxQueue?) {
        self.value = value
        self.queue = queue
    }

    /// Registers `callback`; runs it (inline mode) or queues it (queue mode) at once if the
    /// box already has its value.
    public func whenResolved(_ callback: @escaping @Sendable (Int) -> Void) {
        lock.lock()
        if let value {
            lock.unlock()
            deliver(callback, value)
            return
        }
        callbacks.append(callback)
        lock.unlock()
    }

    /// Sets the value once and runs or queues the callbacks registered so far.
    public func resolve(_ newValue: Int) {
        lock.lock()
        guard value == nil else {
            lock.unlock()
            return
        }
        value = newValue
        let taken = callbacks
        callbacks = []
        lock.unlock()
        for callback in taken { deliver(callback, newValue) }
    }

    @inline(__always)
    private func deliver(_ callback: @escaping @Sendable (Int) -> Void, _ value: Int) {
        if let queue {
            queue.enqueue(BoxJob(callback: callback, value: value))
        } else {
            callback(value)
        }
    }

    /// A new box resolved with `transform(value)` once this one resolves.
    public func then(_ transform: @escaping @Sendable (Int) -> Int) -> Box {
        let next = Box(queue: queue)
        whenResolved { value in next.resolve(transform(value)) }
        return next
    }

    /// The value, blocking until it exists (test helper; never called on `queue`).
    public func wait() -> Int {
        let semaphore = DispatchSemaphore(value: 0)
        let slot = Mutex<Int>(0)
        // Registered as a plain callback: in queue mode it runs on the queue, after every
        // callback queued before it.
        whenResolved { value in
            slot.withLock { $0 = value }
            semaphore.signal()
        }
        semaphore.wait()
        return slot.withLock { $0 }
    }

    /// Fan-in: a box resolved with the number of boxes once every one has resolved.
    public static func all(_ boxes: [Box], queue: BoxQueue?) -> Box {
        let result = Box(queue: queue)
        let counter = FanInCounter(count: boxes.count)
        if boxes.isEmpty { result.resolve(0) }
        for box in boxes {
            box.whenResolved { value in
                counter.sum.wrappingAdd(value, ordering: .relaxed)
                if counter.remaining.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                    result.resolve(counter.sum.load(ordering: .relaxed))
                }
            }
        }
        return result
    }
}

/// What the callbacks of one fan-in share: how many inputs are left, and their sum.
final class FanInCounter: Sendable {
    let remaining: Atomic<Int>
    let sum = Atomic<Int>(0)
    init(count: Int) { remaining = Atomic(count) }
}

/// A callback paired with its value: queued without allocating.
struct BoxJob {
    let callback: @Sendable (Int) -> Void
    let value: Int
}

/// A minimal serial job queue: jobs wait in an array under a lock, one Dispatch drain runs
/// them in order and keeps draining what arrives meanwhile (so a chain runs in one loop).
/// The same shape as Vow's `SerialDispatcher`, without its bookkeeping.
public final class BoxQueue: @unchecked Sendable {
    // @unchecked: `jobs` and `draining` are only touched under `lock`.
    private let lock = SpinLock()
    private var jobs: [BoxJob] = []
    private var draining = false
    private let underlying: DispatchQueue

    public init(label: String = "bench.boxqueue") {
        underlying = DispatchQueue(label: label)
    }

    func enqueue(_ job: BoxJob) {
        lock.lock()
        jobs.append(job)
        let start = !draining
        draining = true
        lock.unlock()
        if start { underlying.async { self.drain() } }
    }

    private func drain() {
        var batch: [BoxJob] = []
        while true {
            lock.lock()
            swap(&batch, &jobs)
            if batch.isEmpty {
                draining = false
                lock.unlock()
                return
            }
            lock.unlock()
            for job in batch { job.callback(job.value) }
            batch.removeAll(keepingCapacity: batch.capacity <= 4096)
        }
    }
}

/// The same lock shape as Vow's engine lock: one atomic word; under contention it spins
/// briefly, then yields the processor.
struct SpinLock: ~Copyable, Sendable {
    private let word = Atomic<UInt32>(0)

    @inline(__always)
    func lock() {
        if word.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring,
                                failureOrdering: .relaxed).exchanged {
            return
        }
        lockContended()
    }

    @inline(never)
    private func lockContended() {
        var spins = 0
        while true {
            if word.load(ordering: .relaxed) == 0,
               word.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring,
                                    failureOrdering: .relaxed).exchanged {
                return
            }
            spins &+= 1
            if spins >= 64 { sched_yield() }
        }
    }

    @inline(__always)
    func unlock() {
        word.store(0, ordering: .releasing)
    }
}
