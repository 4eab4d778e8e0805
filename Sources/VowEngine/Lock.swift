import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine's one lock: bit 0 (`lockedBit`) of a 32-bit atomic word, whose other bits
/// belong to the word's owner. A promise keeps its flags there (`Continuation.lock()`,
/// `StateWord.swift`); a `VowLock` has the word to itself.
///
/// Built on `Atomic` rather than `Synchronization.Mutex`: on Linux `Mutex` makes
/// ThreadSanitizer report false races (build-notes, pitfall 6), while acquire/release
/// atomics are understood by TSan. A waiter spins briefly, then yields the processor, so a
/// holder that was preempted is not starved. It costs no allocation and no word of its
/// own: a promise's lock is one bit of its state word. Measured against a lock whose
/// waiters sleep on a futex (uncontended, and 4 and 16 threads on one promise):
/// `Benchmarks/README.md`, "One lock".
///
/// Rule for every user: critical sections are a few loads and stores; never call user
/// code, and never drop the last reference to a promise, while holding it (a dropped
/// promise may report an unhandled error, which is user code). Move values out under the
/// lock, act on them after unlocking.
@usableFromInline enum WordLock {
    /// The lock bit.
    @inlinable static var lockedBit: UInt32 { 1 }

    /// Takes the lock of `word`, whose other bits the caller expects to be `bits`, and
    /// returns the other bits as they are then. One compare-and-exchange when the guess
    /// is right and nobody holds the lock.
    @inlinable @inline(__always)
    static func lock(_ word: borrowing Atomic<UInt32>, expecting bits: UInt32) -> UInt32 {
        if tryLock(word, expecting: bits) { return bits }
        return lockContended(word)
    }

    /// Takes the lock of `word` if nobody holds it and its other bits are `bits`: one
    /// compare-and-exchange. `lock(_:expecting:)` without the waiting, for an owner that
    /// calls `lockContended` from a slow path of its own.
    @inlinable @inline(__always)
    static func tryLock(_ word: borrowing Atomic<UInt32>, expecting bits: UInt32) -> Bool {
        word.compareExchange(expected: bits, desired: bits | lockedBit,
                             successOrdering: .acquiring, failureOrdering: .relaxed).exchanged
    }

    @usableFromInline @inline(never)
    static func lockContended(_ word: borrowing Atomic<UInt32>) -> UInt32 {
        var spins = 0
        while true {
            let current = word.load(ordering: .relaxed)
            if current & lockedBit == 0 {
                let (exchanged, _) = word.compareExchange(expected: current, desired: current | lockedBit,
                                                          successOrdering: .acquiring, failureOrdering: .relaxed)
                if exchanged { return current }
            }
            spins &+= 1
            if spins >= 64 { sched_yield() }
        }
    }

    /// Releases the lock of `word`, storing `bits` (without the lock bit) as its other bits.
    ///
    /// An atomic exchange, not a plain releasing store: Swift's ARC optimizer moves a
    /// retain past an atomic store (it does not count a store as something that may
    /// release an object), so `lock(); let x = shared; unlock(); use(x)` could retain `x`
    /// after another thread had already replaced and freed it. A read-modify-write is a
    /// barrier for that motion, so a reference copied out under the lock is retained before
    /// the lock is released. (This was a crash: two threads reporting unhandled errors
    /// while a third replaced the handler; `Tests/C/test_unhandled.c`, "handler swap
    /// race".) On x86 and arm64 the exchange costs one instruction, like the store.
    @inlinable @inline(__always)
    static func unlock(_ word: borrowing Atomic<UInt32>, storing bits: UInt32) {
        _ = word.exchange(bits & ~lockedBit, ordering: .releasing)
    }

    /// The other bits of `word` as they probably are (a relaxed load), for `lock`'s guess.
    @inlinable @inline(__always)
    static func guess(_ word: borrowing Atomic<UInt32>) -> UInt32 {
        word.load(ordering: .relaxed) & ~lockedBit
    }

    /// The other bits of `word` as they are now, without locking (an acquiring load: what
    /// the last holder wrote before unlocking is visible after it).
    @inlinable @inline(__always)
    static func bits(of word: borrowing Atomic<UInt32>) -> UInt32 {
        word.load(ordering: .acquiring) & ~lockedBit
    }
}

/// A lock for an object's or a setting's short critical sections: a word of its own for
/// `WordLock` (see there for the rules).
@usableFromInline struct VowLock: ~Copyable, Sendable {
    @usableFromInline let word = Atomic<UInt32>(0)

    @usableFromInline init() {}

    @inlinable @inline(__always)
    func lock() {
        _ = WordLock.lock(word, expecting: 0)
    }

    /// Releases the lock.
    @inlinable @inline(__always)
    func unlock() {
        WordLock.unlock(word, storing: 0)
    }

    @inlinable @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value guarded by a `VowLock`, for process-wide settings (the default dispatcher, the
/// unhandled-error handler, the cancellation registry).
///
/// `Value` is never empty: for an empty value (`Locked<Void>`) ThreadSanitizer does not see
/// the lock order the accesses and reports a race; a bare `VowLock` serves there.
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
///
/// A struct, not an object: a global or static flag is then laid out when the program is
/// loaded, so reading it is one load, with no lazy initialisation (`swift_once`) first.
@usableFromInline struct AtomicFlag: ~Copyable, Sendable {
    @usableFromInline let value = Atomic<Bool>(false)

    @usableFromInline init() {}

    @inlinable
    package var isSet: Bool { value.load(ordering: .acquiring) }

    @usableFromInline package func set(_ newValue: Bool) { value.store(newValue, ordering: .releasing) }
}
