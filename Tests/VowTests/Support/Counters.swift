import Synchronization
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe counter bumped by callbacks and read by the test.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    init() {}

    /// Adds one; returns the new count.
    @discardableResult
    func increment() -> Int {
        count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    }

    /// Takes one off; returns the new count.
    @discardableResult
    func decrement() -> Int {
        count.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue
    }

    var value: Int { count.load(ordering: .acquiring) }
}

/// A thread-safe log of events, in the order they were recorded.
final class EventLog<Element: Sendable>: Sendable {
    private let entries = Locked<[Element]>([])
    init() {}

    func append(_ element: Element) {
        entries.withLock { $0.append(element) }
    }

    var all: [Element] { entries.withLock { $0 } }
    var count: Int { entries.withLock { $0.count } }
}

/// Per-slot run counts, to check that each of many handlers ran exactly once.
final class SlotCounts: Sendable {
    private let counts: Locked<[Int]>
    init(_ slots: Int) { counts = Locked(Array(repeating: 0, count: slots)) }

    func bump(_ slot: Int) { counts.withLock { $0[slot] += 1 } }

    var all: [Int] { counts.withLock { $0 } }
}

/// A reusable barrier for a fixed number of threads, so racing operations start together.
/// Spins (yielding) instead of sleeping; gives up after `seconds` and reports it, so a
/// lost thread fails the test instead of hanging it.
final class SpinBarrier: Sendable {
    private let parties: Int
    private let arrived = Atomic<Int>(0)
    private let generation = Atomic<Int>(0)
    private let seconds: Double

    init(parties: Int, seconds: Double = Stress.waitSeconds) {
        self.parties = parties
        self.seconds = seconds
    }

    /// Blocks until `parties` threads have arrived. False if the wait timed out.
    @discardableResult
    func arriveAndWait() -> Bool {
        let current = generation.load(ordering: .acquiring)
        if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
            arrived.store(0, ordering: .relaxed)
            generation.wrappingAdd(1, ordering: .releasing)
            return true
        }
        var spins = 0
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while generation.load(ordering: .acquiring) == current {
            spins &+= 1
            if spins & 63 == 0 {
                sched_yield()
                if spins & 4095 == 0, ContinuousClock.now >= deadline { return false }
            }
        }
        return true
    }
}

/// Busy-waits for about `iterations` loop turns: a tiny, randomised head start for one
/// side of a race (never used to synchronise).
@inline(never)
func spin(_ iterations: Int) {
    var x = 0
    for i in 0..<iterations { x &+= i }
    blackHole(x)
}

@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Errors made by tests, told apart by `tag`.
struct TestError: Error, Equatable, Sendable {
    let tag: Int
    init(_ tag: Int = 0) { self.tag = tag }
}

/// A class value, to check that a promise hands on the very same object.
final class Token: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}
