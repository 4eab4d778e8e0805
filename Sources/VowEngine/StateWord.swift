import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The flags of a promise, kept in `Continuation.word` beside the lock bit.
///
/// Every change happens with the lock held, so the holder knows the whole word and unlocks
/// by storing the new flags. Readers that only need a flag (`isPending`) load the word
/// without locking: flags only ever go from clear to set, except `locked` and `forwarded`
/// (cleared when a forwarded promise rejoins; observers check it through
/// `Core.observedFlags`). A link's dispatcher flags (`onLibraryQueue`, `onInline`) are set
/// when it is made and never change.
@usableFromInline struct Flags: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt32
    @usableFromInline init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The lock bit (`Core.lock()` / `unlock(_:)`: the engine's one lock, `WordLock`).
    @inlinable static var locked: Flags { Flags(rawValue: WordLock.lockedBit) }
    /// Fulfilled or rejected: the stored value or error never changes again.
    @inlinable static var settled: Flags { Flags(rawValue: 1 << 1) }
    /// Rejected: the stored value is the error.
    @inlinable static var rejected: Flags { Flags(rawValue: 1 << 2) }
    /// Settled by cancellation.
    @inlinable static var cancelled: Flags { Flags(rawValue: 1 << 3) }
    /// A handler was attached at some point: this promise is not the end of a branch.
    @inlinable static var hadHandlers: Flags { Flags(rawValue: 1 << 4) }
    /// A waiter saw the rejection (a blocking wait or an await): it counts as handled.
    @inlinable static var handled: Flags { Flags(rawValue: 1 << 5) }
    /// The resolver was used up by adopting a promise or thenable.
    @inlinable static var resolverUsed: Flags { Flags(rawValue: 1 << 6) }
    /// The promise follows its upstream (adoption): it settles as the upstream does, inline.
    @inlinable static var adopting: Flags { Flags(rawValue: 1 << 7) }
    /// A link's body was taken: it ran, or was disposed because it never will.
    @inlinable static var bodyTaken: Flags { Flags(rawValue: 1 << 8) }
    /// Adoption collapsed: this promise's adopters were handed over to the end of its
    /// upstream's chain, and it is registered nowhere until somebody observes it (it then
    /// rejoins the chain's end; see `Core+Adoption.swift`).
    @inlinable static var forwarded: Flags { Flags(rawValue: 1 << 9) }
    /// A debug record (creation site) is attached in the extras.
    @inlinable static var debugged: Flags { Flags(rawValue: 1 << 10) }
    /// A lazy promise whose producer has not started (see `Core+Lazy.swift`).
    @inlinable static var lazy: Flags { Flags(rawValue: 1 << 11) }
    /// Bits 12 and 13: how the stored value is kept (`StoredValue.Storage`), once settled.
    @inlinable static var storageShift: UInt32 { 12 }
    /// A face keeps a cache for this settled promise in `FaceCaches`.
    @inlinable static var faceCached: Flags { Flags(rawValue: 1 << 14) }
    /// A link was handed to its dispatcher (it is handed over once).
    @inlinable static var scheduled: Flags { Flags(rawValue: 1 << 15) }
    /// A link runs on the library's own serial queue (`Dispatchers.librarySerial`), which
    /// it therefore needs no word to name (see `Link`).
    @inlinable static var onLibraryQueue: Flags { Flags(rawValue: 1 << 16) }
    /// A link runs inline (on `InlineDispatcher`), likewise.
    @inlinable static var onInline: Flags { Flags(rawValue: 1 << 17) }
    /// Settled by a producer that waits on promises it makes (a bounded combinator's
    /// result, a retry's): the cycle check asks it for them (`Core.producerInputs`), as
    /// they are in no word of the promise. Set when it is made, never cleared.
    @inlinable static var hasProducerInputs: Flags { Flags(rawValue: 1 << 18) }
    /// A link was handed to a host loop as its own job (`Continuation.handToHost`).
    @inlinable static var handedToHost: Flags { Flags(rawValue: 1 << 19) }
    /// The host ran or dropped the link it was handed (`Continuation.takeBackFromHost`).
    @inlinable static var hostFinished: Flags { Flags(rawValue: 1 << 20) }

    /// `settled` and `rejected` (one constant: an option-set array literal costs a static
    /// array on every use).
    @inlinable static var settledOrRejected: Flags { Flags(rawValue: settled.rawValue | rejected.rawValue) }
    /// `settled` and `forwarded`.
    @inlinable static var settledOrForwarded: Flags { Flags(rawValue: settled.rawValue | forwarded.rawValue) }
    /// `rejected`, `debugged` and `faceCached` (the rare cases of freeing a settled promise).
    @inlinable static var rareWhenFreed: Flags {
        Flags(rawValue: rejected.rawValue | debugged.rawValue | faceCached.rawValue)
    }
    /// `hadHandlers` and `handled`.
    @inlinable static var handledSomehow: Flags { Flags(rawValue: hadHandlers.rawValue | handled.rawValue) }

    /// How the stored value is kept (valid once settled).
    @inlinable
    var storage: StoredValue.Storage {
        StoredValue.Storage(rawValue: (rawValue >> Flags.storageShift) & 3)!
    }

    /// The flag bits for `storage`.
    @inlinable
    static func storing(_ storage: StoredValue.Storage) -> Flags {
        Flags(rawValue: storage.rawValue << Flags.storageShift)
    }

    /// True when fulfilled: settled and not rejected.
    @inlinable
    var isFulfilled: Bool { rawValue & Flags.settledOrRejected.rawValue == Flags.settled.rawValue }
}

extension Continuation {
    /// Takes the lock bit of `word` (the engine's one lock, `WordLock`) and returns the
    /// flags. Critical sections are a few loads and stores; never call user code or drop
    /// the last reference to a promise while holding the lock.
    @inlinable @inline(__always)
    final func lock() -> Flags {
        let expected = WordLock.guess(word)
        if _fastPath(WordLock.tryLock(word, expecting: expected)) { return Flags(rawValue: expected) }
        return lockContended()
    }

    /// `lock()`'s slow path (`WordLock.lockContended`), out of line and called on `self`:
    /// the inlined fast path then keeps no address of the word in a register (measured:
    /// 4 to 5 instructions a lock on the hot paths, Benchmarks/README.md, issue 24).
    @usableFromInline @inline(never)
    final func lockContended() -> Flags {
        Flags(rawValue: WordLock.lockContended(word))
    }

    /// Releases the lock, storing `flags` (without the lock bit).
    @inlinable @inline(__always)
    final func unlock(_ flags: Flags) {
        WordLock.unlock(word, storing: flags.rawValue)
    }

    /// The flags as they are now, without locking (each flag only goes from clear to set).
    @inlinable @inline(__always)
    final var flags: Flags {
        Flags(rawValue: WordLock.bits(of: word))
    }
}
