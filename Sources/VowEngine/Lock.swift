import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small lock for the engine's short critical sections (a few loads and stores).
///
/// Built on `Atomic` rather than `Synchronization.Mutex`: on Linux `Mutex` makes
/// ThreadSanitizer report false races (build-notes, pitfall 6), while acquire/release
/// atomics are understood by TSan. It spins briefly, then yields the processor, so a
/// holder that was preempted is not starved. It costs no allocation: it lives inline in
/// the object it guards.
///
/// Rule for every user: never call user code, and never drop the last reference to a
/// promise, while holding it (a dropped promise may report an unhandled error, which is
/// user code). Move values out under the lock, act on them after `unlock()`.
@usableFromInline package struct VowLock: ~Copyable, Sendable {
    private let word = Atomic<UInt32>(0)

    @usableFromInline package init() {}

    @inline(__always)
    @usableFromInline package func lock() {
        if word.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed).exchanged {
            return
        }
        lockContended()
    }

    @inline(never)
    private func lockContended() {
        var spins = 0
        while true {
            if word.load(ordering: .relaxed) == 0,
               word.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed).exchanged {
                return
            }
            spins &+= 1
            if spins >= 64 { sched_yield() }
        }
    }

    /// Releases the lock.
    ///
    /// An atomic exchange, not a plain releasing store: Swift's ARC optimizer moves a
    /// retain past an atomic store (it does not count a store as something that may
    /// release an object), so `lock(); let x = shared; unlock(); use(x)` could retain `x`
    /// after another thread had already replaced and freed it. A read-modify-write is a
    /// barrier for that motion, so a reference copied out under the lock is retained before
    /// the lock is released. (This was a crash: two threads reporting unhandled errors
    /// while a third replaced the handler; `Tests/C/test_unhandled.c`, "handler swap
    /// race".) On x86 and arm64 the exchange costs one instruction, like the store.
    @inline(__always)
    @usableFromInline package func unlock() {
        _ = word.exchange(0, ordering: .releasing)
    }

    @inline(__always)
    @usableFromInline package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value guarded by a `VowLock`, for process-wide settings (the default dispatcher, the
/// unhandled-error handler, the cancellation registry).
@usableFromInline package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `lock`.
    private let lock = VowLock()
    private var value: Value

    @usableFromInline package init(_ value: Value) { self.value = value }

    @usableFromInline package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A boolean that any thread may read and set (a fast "is anything set?" check in front of
/// a `Locked` setting).
@usableFromInline package final class AtomicFlag: Sendable {
    @usableFromInline let value = Atomic<Bool>(false)

    @usableFromInline package init() {}

    @inlinable
    package var isSet: Bool { value.load(ordering: .acquiring) }

    @usableFromInline package func set(_ newValue: Bool) { value.store(newValue, ordering: .releasing) }
}
