#if canImport(Glibc)
import Glibc
#endif

/// Per-thread state of the engine, reached through a pthread key.
///
/// - the inline trampoline: continuations for the `.inline` dispatcher (and adoptions)
///   that were scheduled while another runs on this thread wait here, so settling a long
///   chain inline is a loop, not a recursion;
/// - the serial dispatcher whose job this thread is running (deadlock detection);
/// - the deferred releases: handler lists of pending promises that were freed, dropped
///   one by one in a loop so that freeing a long pending chain never recurses;
/// - the dispatcher `.default` stands for on this thread, if one was installed here
///   (`Dispatchers.installThreadDefault`: VowTesting's loops use it).
///
/// Only its own thread touches a `ThreadState`.
@usableFromInline package final class ThreadState {
    @exclusivity(unchecked) var inlineQueue: [Continuation] = []
    @exclusivity(unchecked) var inlineActive = false

    /// The serial dispatcher whose job runs on this thread now (nil outside jobs, and for
    /// concurrent dispatchers).
    @exclusivity(unchecked) var runningSerialDispatcher: ObjectIdentifier?

    let deferredReleases = FlatRelease<HandlerList>()

    /// This thread's default dispatcher (see `Dispatchers.installThreadDefault`), held
    /// weakly: whoever installed it keeps the token, and dropping it (on any thread)
    /// uninstalls it here too.
    @exclusivity(unchecked) weak var threadDefault: ThreadDefault?

    @usableFromInline package static var current: ThreadState {
        withCurrent { $0 }
    }

    /// Runs `body` with this thread's state, without retaining it (the thread keeps it
    /// alive).
    @inline(__always)
    static func withCurrent<R>(_ body: (ThreadState) throws -> R) rethrows -> R {
        try threadStateSlot.object { ThreadState() }._withUnsafeGuaranteedRef(body)
    }

    /// Drops `handlers` (and everything they hold) without recursion: when dropping one
    /// frees a pending promise whose deinit hands its own handlers here, those are
    /// appended and dropped by the outermost call's loop.
    static func release(_ handlers: consuming HandlerList) {
        current.deferredReleases.drop(consume handlers)
    }

    /// Runs `body` marking this thread as running a job of the serial dispatcher `id`.
    /// (One lookup of the thread's state serves both ends: the thread keeps its state for
    /// its whole life, and nothing replaces it. Specialised for jobs, which return
    /// nothing: every dispatcher's job runs through here.)
    @_specialize(exported: true, where R == Void)
    @usableFromInline package static func running<R>(serialDispatcher id: ObjectIdentifier?, _ body: () throws -> R) rethrows -> R {
        let state = threadStateSlot.object { ThreadState() }
        let outer = state._withUnsafeGuaranteedRef { state in
            let outer = state.runningSerialDispatcher
            state.runningSerialDispatcher = id
            return outer
        }
        defer { state._withUnsafeGuaranteedRef { $0.runningSerialDispatcher = outer } }
        return try body()
    }
}

/// Each thread's `ThreadState`.
private let threadStateSlot = ThreadSlot()
