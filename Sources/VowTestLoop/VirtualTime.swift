import Synchronization
import VowEngine

/// A test loop's clock: virtual nanoseconds since the loop was made, in 128 bits, so it
/// counts any time a test can name (some 5 × 10^21 years; a time beyond that is the end of
/// the clock, where a timer due then fires). Seconds convert as the library's timers do
/// (`Timing`): truncated to whole nanoseconds.
package struct VirtualInstant: Comparable, Sendable {
    package let nanoseconds: Int128

    package static let zero = VirtualInstant(nanoseconds: 0)
    /// The end of the clock.
    package static let end = VirtualInstant(nanoseconds: .max)

    package init(nanoseconds: Int128) { self.nanoseconds = nanoseconds }

    /// In seconds.
    package var seconds: Double { Double(nanoseconds) / 1e9 }

    /// `self` moved by `seconds` (finite, not negative), saturating at the end.
    package func advanced(bySeconds seconds: Double) -> VirtualInstant {
        let delay = seconds * 1e9
        guard delay < Double(Int128.max) else { return .end }
        let (sum, overflow) = nanoseconds.addingReportingOverflow(Int128(delay))
        return overflow ? .end : VirtualInstant(nanoseconds: sum)
    }

    /// `seconds` (finite, not negative) since the loop was made, saturating at the end.
    package static func at(seconds: Double) -> VirtualInstant {
        VirtualInstant.zero.advanced(bySeconds: seconds)
    }

    package static func < (a: VirtualInstant, b: VirtualInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}

/// A timer of a test loop: fires when the loop's virtual time reaches `deadline`.
///
/// Threads: made and cancelled on any thread; fired or dropped by the loop, outside its
/// lock. `fire`/`dropped` are taken once, under the loop's lock, by whichever of fire,
/// cancel and drop comes first.
///
/// References: the timer keeps its loop (a timer may be cancelled after the loop was
/// released: a promise's cancel handler runs later on another dispatcher), and the loop
/// keeps its armed timers until they fire, or until it is closed; the cycle ends then.
final class VirtualTimer: DispatcherTimer, @unchecked Sendable {
    // @unchecked: `fire` and `dropped` are guarded by the loop's lock.
    let deadline: VirtualInstant
    /// Creation order among the loop's timers: equal deadlines fire in creation order.
    let sequence: UInt64
    let loop: TestLoopCore
    @exclusivity(unchecked) var fire: (@Sendable () -> Void)?
    @exclusivity(unchecked) var dropped: (@Sendable () -> Void)?

    init(deadline: VirtualInstant, sequence: UInt64, loop: TestLoopCore,
         fire: @escaping @Sendable () -> Void, dropped: @escaping @Sendable () -> Void) {
        self.deadline = deadline
        self.sequence = sequence
        self.loop = loop
        self.fire = fire
        self.dropped = dropped
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
