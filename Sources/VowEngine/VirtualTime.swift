import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// Virtual time: where a timer takes its time from, and which test loop (if any) a thread
// has installed. With no loop installed anywhere, a timer pays one relaxed load for this
// (`TestLoops.current`), and nothing else in the engine looks.

/// Where a timer takes its time from: the real clock (Dispatch), or a test loop's virtual
/// clock. Read once, when the operation that makes the timer is called (`after`,
/// `timeout`, `delay`, `retry`): a timer armed later (a delay that starts when its source
/// fulfils, a retry's pause) keeps the clock of the call that asked for it.
package enum TimerClock: Sendable {
    case real
    case loop(TestLoopCore)

    /// The clock of the calling thread: its installed test loop's, else the real one.
    package static var current: TimerClock {
        guard let loop = TestLoops.current else { return .real }
        return .loop(loop)
    }
}

/// The test loops installed on threads (see `TestLoopCore.install`).
enum TestLoops {
    /// The loop installed on the calling thread, if any. One relaxed load when no loop is
    /// installed anywhere.
    @inline(__always)
    static var current: TestLoopCore? {
        guard installedTestLoops.load(ordering: .relaxed) != 0 else { return nil }
        return currentSlow()
    }

    /// True while a loop is installed on some thread.
    static var anyInstalled: Bool { installedTestLoops.load(ordering: .relaxed) != 0 }

    @inline(never)
    private static func currentSlow() -> TestLoopCore? {
        ThreadState.withCurrent { state in
            guard let loop = state.testLoop else { return nil }
            if loop.isInstalled(on: state) { return loop }
            // Uninstalled from another thread (the loop was released there): forget it.
            let stale = state.takeTestLoop()
            withExtendedLifetime(stale) {}
            return nil
        }
    }

    /// The default dispatcher of the calling thread's installed loop (the face the loop was
    /// installed with: VowTesting's `TestLoop`, or the loop itself for C).
    static var currentDefault: (any Dispatcher)? {
        guard installedTestLoops.load(ordering: .relaxed) != 0, current != nil else { return nil }
        return ThreadState.withCurrent { $0.testLoopDefault }
    }

    /// Counts an install (+1) or an uninstall (-1), and refreshes the settings that look
    /// for installed loops.
    static func count(_ delta: Int) {
        installedTestLoops.wrappingAdd(delta, ordering: .sequentiallyConsistent)
        Dispatchers.refreshCustomDefaultFlag()
        DebugMode.refreshForTestLoops()
    }
}

/// How many test loops are installed on some thread (a global with a constant initializer:
/// reading it needs no lazy-initialization check).
let installedTestLoops = Atomic<Int>(0)

/// A timer of a test loop: fires when the loop's virtual time reaches `deadline`.
///
/// Threads: made and cancelled on any thread; fired or dropped by the loop, outside its
/// lock. `body`/`onDrop` are taken once, under the loop's lock, by whichever of fire,
/// cancel and drop comes first.
///
/// References: the timer keeps its loop (a timer may be cancelled after the loop was
/// released: a promise's cancel handler runs later on another dispatcher), and the loop
/// keeps its armed timers until they fire, or until it is closed; the cycle ends then.
final class VirtualTimer: @unchecked Sendable {
    // @unchecked: `body` and `onDrop` are guarded by the loop's lock.
    /// Virtual nanoseconds since the loop was made.
    let deadline: Int
    /// Creation order among the loop's timers: equal deadlines fire in creation order.
    let sequence: UInt64
    let loop: TestLoopCore
    @exclusivity(unchecked) var body: (@Sendable () -> Void)?
    @exclusivity(unchecked) var onDrop: (@Sendable () -> Void)?

    init(deadline: Int, sequence: UInt64, loop: TestLoopCore,
         body: @escaping @Sendable () -> Void, onDrop: (@Sendable () -> Void)?) {
        self.deadline = deadline
        self.sequence = sequence
        self.loop = loop
        self.body = body
        self.onDrop = onDrop
    }

    /// The timer will never fire: lets go of what it captured (outside the loop's lock).
    func cancel() {
        loop.cancel(self)
    }

    /// Fires before `other`.
    func precedes(_ other: VirtualTimer) -> Bool {
        deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
    }
}

/// A test loop's timers, earliest first: a binary min-heap.
struct TimerHeap {
    private(set) var items: [VirtualTimer] = []

    var first: VirtualTimer? { items.first }
    var isEmpty: Bool { items.isEmpty }

    mutating func insert(_ timer: VirtualTimer) {
        items.append(timer)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].precedes(items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() -> VirtualTimer {
        let first = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < items.count, items[left].precedes(items[smallest]) { smallest = left }
                if right < items.count, items[right].precedes(items[smallest]) { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }

    mutating func removeAll() -> [VirtualTimer] {
        defer { items = [] }
        return items
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same sequence on every
/// platform and run.
struct SeededGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound (bound > 0).
    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
