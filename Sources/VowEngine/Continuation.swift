import Synchronization

/// Something the engine runs later: a link of a chain, an adoption, a waiter, a piece of
/// combinator bookkeeping, a closure submitted to a dispatcher.
///
/// One type for all of them, as libdispatch has one continuation type: handler lists and
/// job queues hold `Continuation` references (one word each), so a link that is the derived
/// promise of a `then` is registered and queued without any allocation of its own.
///
/// Threads: `schedule()` is called by whoever settled the promise this continuation waits
/// on, outside every lock; `run()` is called once, on the continuation's dispatcher.
///
/// The first stored word is `tag` (a type tag that foreign code, a C handle check, reads at
/// `Continuation.tagOffset` without retaining the object: Interface.swift, "C-handle
/// layout") and `word`, an atomic 32-bit
/// state word: `Core` keeps its lock bit and flags there; other continuations use it as
/// they like.
@usableFromInline package class Continuation: @unchecked Sendable {
    // @unchecked: subclasses guard their mutable state with `word` (see each of them).

    /// The type tag. Set once in `init`, overwritten with `Continuation.releasedTag` in
    /// `deinit`, so a handle used after its last release is usually caught.
    @exclusivity(unchecked) @usableFromInline final var tag: UInt32
    /// The atomic state word (lock bit and flags for a promise).
    @usableFromInline final let word = Atomic<UInt32>(0)

    @usableFromInline init(tag: UInt32) {
        self.tag = tag
    }

    deinit {
        tag = Continuation.releasedTag
    }

    /// Hands the continuation to where it runs. Called outside every lock, at most once per
    /// registration. The default runs it on the calling thread through the per-thread
    /// inline queue (never recursively).
    @usableFromInline func schedule() {
        InlineDispatcher.run(self)
    }

    /// Does the work. Called once per scheduling, on the continuation's dispatcher, with no
    /// library lock held.
    @usableFromInline package func run() {}

    /// A dispatcher released this continuation without running it (the `Dispatcher`
    /// contract allows dropping work, and so does a host loop that shuts down). The default does nothing; a link
    /// cancels the promise it would have settled.
    @usableFromInline package func dropped() {}

    /// The promise this continuation settles when it runs, if any: it counts as a
    /// dependent of the promise it is registered on (for cancellation).
    @usableFromInline var dependentPromise: Core? { nil }

    /// True for a link whose body is cleanup (`finally`): it stays registered when its
    /// promise is cancelled, and runs anyway.
    @usableFromInline var isCleanupLink: Bool { false }

    /// Called when the continuation was removed from the promise it waited on and will
    /// never run (its promise was cancelled): lets go of what it captured.
    @usableFromInline func disposeUnrun() {}

    /// For a dispatcher that hands each job to foreign code as a pointer (a C host's loop,
    /// `vow_dispatcher_new`): true when this continuation can travel as that pointer
    /// itself, with no object around it, and is now marked as handed over. Only a link
    /// scheduled on the dispatcher whose identity is `dispatcher` can (`Link`, "Handed to
    /// a host's loop as its own job"); the default answers false and marks nothing.
    @usableFromInline package func handToHost(from dispatcher: ObjectIdentifier) -> Bool { false }

    /// The host hands back what `handToHost` marked (it runs it, or drops it): the identity
    /// of the dispatcher it was handed from, once; nil for anything else (not handed over,
    /// or handed back already), which the caller reports as misuse.
    @usableFromInline package func takeBackFromHost() -> ObjectIdentifier? { nil }

    /// True once this continuation was handed to a host (`handToHost`), also after it was
    /// handed back: tells a job run or dropped twice from a pointer that never was a job.
    @usableFromInline package var wasHandedToHost: Bool { false }
}

/// A closure to run on a dispatcher: `Dispatcher.dispatch` on the library's own queues,
/// cancel handlers, the thenable procedure's job.
@usableFromInline package final class ClosureJob: Continuation, @unchecked Sendable {
    // @unchecked: `body` is set in init and taken once, by `run` or `dropped` (the
    // dispatcher calls exactly one of them, once).
    private var body: (@Sendable () -> Void)?
    private let onDrop: (@Sendable () -> Void)?

    @usableFromInline package init(_ body: @escaping @Sendable () -> Void, onDrop: (@Sendable () -> Void)? = nil) {
        self.body = body
        self.onDrop = onDrop
        super.init(tag: Continuation.continuationTag)
    }

    @usableFromInline package override func run() {
        let body = self.body
        self.body = nil
        body?()
    }

    @usableFromInline package override func dropped() {
        body = nil
        onDrop?()
    }
}

extension Continuation {
    /// For a dispatcher that keeps the handlers of each promise in their order while it
    /// reorders other work (VowTesting's seeded orders): for a link (a promise that carries
    /// a callback), the identity of the promise it is a handler of; for other work, its
    /// own identity.
    package var handlerLane: UInt {
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
