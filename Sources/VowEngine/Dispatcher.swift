import Dispatch
import Synchronization

/// Where callbacks run.
///
/// Every closure-taking method of `Promise` takes `on: Dispatcher` (default `.default`).
/// A dispatcher runs each submitted piece of work exactly once, later, or drops it
/// (releases it without running it) if it has been shut down: then the promise that work
/// would have settled is cancelled, so a chain on a dispatcher that went away ends instead
/// of hanging. The same protocol serves every face: a dispatcher a C program builds from
/// its own callbacks is a `Dispatcher` here, and a Swift dispatcher can be handed to C.
///
/// Built-in dispatchers:
/// - `.default`: the current default (the runtime setting for it), which unless
///   replaced is one serial queue owned by the library. It is never the main queue: a Linux
///   program or a C host does not drain the main queue.
/// - `.inline`: runs callbacks on the thread that settles the promise, or at once when
///   attaching to a settled promise (PromiseKit's "zalgo"). Chosen on purpose only.
/// - `.background`: a concurrent pool (Dispatch's global queue).
/// - any `DispatchQueue`, `SerialDispatcher`, `InvalidatableQueue`.
public protocol Dispatcher: AnyObject, Sendable {
    /// Runs `work` later, exactly once, or drops it without running it.
    /// May be called from any thread.
    func dispatch(_ work: @escaping @Sendable () -> Void)

    /// True when work runs one item at a time in submission order. `wait()` uses it to
    /// detect a wait that could never end. Defaults to `false`.
    var isSerial: Bool { get }

    /// Arms a one-shot timer on this dispatcher's clock: Vow's timers (`after`, `timeout`,
    /// `delay`, the pauses of `retry`, and C's `vow_after`, `vow_timeout`, `vow_delay`,
    /// `vow_retry`) ask the dispatcher they run on (by default, the one `.default` stands
    /// for where the call is made) for their time, in the way swift-nio's loops schedule
    /// tasks. The default is Dispatch's real clock; a dispatcher with a clock of its own
    /// (an event loop's timers, a test loop's virtual time) implements this.
    ///
    /// `seconds` is finite and not negative (0: as soon as possible). Exactly one of the
    /// two closures runs, once, unless the timer is cancelled first (then neither starts):
    /// `fire` when the time has come, on whatever thread the dispatcher chooses (its own
    /// loop's, for a loop), or `dropped` if the dispatcher goes away before that and will
    /// never fire it (a loop that closes; the promise an `after` would have fulfilled is
    /// then cancelled). Neither may be called inside `scheduleTimer` itself, nor under a
    /// lock the dispatcher's `dispatch` takes. The returned timer's `cancel()` stops it and
    /// must let go of both closures at once (they may hold promises and their values).
    /// Called from any thread, never under a library lock.
    func scheduleTimer(after seconds: Double, fire: @escaping @Sendable () -> Void,
                       dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer
}

extension Dispatcher {
    public var isSerial: Bool { false }
}

extension Dispatcher where Self == DefaultDispatcher {
    /// The current default dispatcher (the runtime setting), looked up when a
    /// callback is registered.
    public static var `default`: DefaultDispatcher { DefaultDispatcher.shared }
}

extension Dispatcher where Self == InlineDispatcher {
    /// Runs callbacks where the promise settles (PromiseKit's zalgo). Use with care:
    /// callbacks then run on whatever thread fulfils or rejects.
    public static var inline: InlineDispatcher { InlineDispatcher.shared }
}

extension Dispatcher where Self == BackgroundDispatcher {
    /// A concurrent pool for work that may run in parallel.
    public static var background: BackgroundDispatcher { BackgroundDispatcher.shared }
}

/// The placeholder `.default` stands for: the dispatcher set as the default (in Swift or
/// in C) at the moment a callback is registered.
public final class DefaultDispatcher: Dispatcher {
    @usableFromInline package static let shared = DefaultDispatcher()
    private init() {}

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        Dispatchers.currentDefault.dispatch(work)
    }
    public var isSerial: Bool { Dispatchers.currentDefault.isSerial }

    /// The timer of the dispatcher `.default` stands for now.
    public func scheduleTimer(after seconds: Double, fire: @escaping @Sendable () -> Void,
                              dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer {
        Dispatchers.currentDefault.scheduleTimer(after: seconds, fire: fire, dropped: dropped)
    }
}

/// Runs work on the thread that submits it; nested submissions on the same thread are
/// queued and run in order by the outermost call (a loop, never a recursion).
public final class InlineDispatcher: Dispatcher {
    @usableFromInline package static let shared = InlineDispatcher()
    private init() {}

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        InlineDispatcher.run(ClosureJob(work))
    }

    /// Runs `continuation` on this thread, after the inline work already running here
    /// (the per-thread trampoline).
    @usableFromInline
    static func run(_ continuation: Continuation) {
        ThreadState.withCurrent { state in
            if state.inlineActive {
                state.inlineQueue.append(continuation)
                return
            }
            state.inlineActive = true
            continuation.run()
            // Work queued meanwhile runs in batches, in order; each batch is released once it
            // ran, so a long inline chain does not keep every finished link alive to the end.
            var batch: [Continuation] = []
            while !state.inlineQueue.isEmpty {
                swap(&batch, &state.inlineQueue)
                for next in batch { next.run() }
                batch.removeAll(keepingCapacity: batch.capacity <= 1024)
            }
            state.inlineActive = false
        }
    }
}

/// A concurrent pool: Dispatch's global queue.
public final class BackgroundDispatcher: Dispatcher {
    @usableFromInline package static let shared = BackgroundDispatcher()
    private init() {}
    let queue = DispatchQueue.global()

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}

extension DispatchQueue: Dispatcher {
    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        // Only a serial queue marks the thread (deadlock detection); a concurrent one
        // leaves the mark as it is.
        guard isSerial else {
            async(execute: work)
            return
        }
        let id = ObjectIdentifier(self)
        async {
            ThreadState.running(serialDispatcher: id, work)
        }
    }

    /// A `DispatchQueue` counts as serial for deadlock detection unless it is one of the
    /// global concurrent queues (recognised by their labels, `com.apple.root.*`: on Linux
    /// each `DispatchQueue.global()` call returns a new wrapper object, so identity does
    /// not work). A private concurrent queue is not recognised: `wait()` on it may report
    /// a deadlock that would not have happened; use `.background` for concurrent work.
    public var isSerial: Bool {
        !label.hasPrefix("com.apple.root.")
    }
}

/// A dispatcher that takes the engine's continuations directly, without wrapping them in a
/// closure (the library's serial queues; C's host dispatchers). It must run each one once
/// (`run()`) or drop it once (`dropped()`).
@usableFromInline package protocol ContinuationSink: AnyObject {
    func submit(_ continuation: Continuation)
}

/// Hands `continuation` to `dispatcher`, with direct paths for the library's own
/// dispatchers (no allocation for the default serial queue and inline). Called outside
/// every lock (dispatchers may be user code).
@usableFromInline
package func submitContinuation(_ continuation: Continuation, to dispatcher: any Dispatcher) {
    // Exact type checks (one load and a compare each): both classes are final, and there
    // is one `InlineDispatcher`.
    let type = ObjectIdentifier(Swift.type(of: dispatcher))
    if type == ObjectIdentifier(SerialDispatcher.self) {
        unsafeDowncast(dispatcher, to: SerialDispatcher.self).submit(continuation)
    } else if type == ObjectIdentifier(InlineDispatcher.self) {
        InlineDispatcher.run(continuation)
    } else if let sink = SinkLookup.sink(dispatcher) {
        sink.submit(continuation)
    } else {
        let guarded = DropGuard(continuation)
        dispatcher.dispatch { guarded.run() }
    }
}

/// Whether a dispatcher takes continuations directly (`ContinuationSink`), remembered per
/// dispatcher type: a program's loop dispatcher (a C host's, a swift-nio loop's) is asked
/// once per job, and the runtime's conformance lookup costs some 350 instructions, where
/// the remembered answer for the type asked about last costs a load and a compare.
enum SinkLookup {
    /// What is known of one dispatcher type. Made once per type and never freed (a
    /// program has a handful of dispatcher types), so a reader needs no lock.
    final class Entry: @unchecked Sendable {
        // @unchecked: immutable; a metatype is safe to share.
        let type: ObjectIdentifier
        /// The type as a sink, or nil if it is not one.
        let sink: (any ContinuationSink.Type)?

        init(type: ObjectIdentifier, sink: (any ContinuationSink.Type)?) {
            self.type = type
            self.sink = sink
        }
    }

    /// Every type asked about (under its lock), and the entry of the last one (0: none
    /// yet), an immortal `Entry` read without a lock.
    private static let entries = Locked<[ObjectIdentifier: Entry]>([:])
    private static let last = Atomic<UInt>(0)

    /// `dispatcher` as a `ContinuationSink`, or nil if it is not one.
    static func sink(_ dispatcher: any Dispatcher) -> (any ContinuationSink)? {
        let type = ObjectIdentifier(Swift.type(of: dispatcher))
        let word = last.load(ordering: .acquiring)
        let entry: Entry
        if word != 0, Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(bitPattern: word)!)
            ._withUnsafeGuaranteedRef({ $0.type == type }) {
            entry = Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(bitPattern: word)!).takeUnretainedValue()
        } else {
            entry = remember(dispatcher, type)
        }
        guard let sinkType = entry.sink else { return nil }
        func view<Sink: ContinuationSink>(_: Sink.Type) -> any ContinuationSink {
            unsafeDowncast(dispatcher, to: Sink.self)
        }
        return _openExistential(sinkType, do: view)
    }

    /// Looks `dispatcher`'s type up (once per type) and makes it the last one asked about.
    @inline(never)
    private static func remember(_ dispatcher: any Dispatcher, _ type: ObjectIdentifier) -> Entry {
        let entry = entries.withLock { table -> Entry in
            if let known = table[type] { return known }
            let made = Entry(type: type, sink: (dispatcher as? any ContinuationSink).map { Swift.type(of: $0) })
            table[type] = made
            return made
        }
        // The table keeps the entry alive for good, so the word may refer to it unretained.
        last.store(UInt(bitPattern: Unmanaged.passUnretained(entry).toOpaque()), ordering: .releasing)
        return entry
    }
}

/// Hands a continuation to a dispatcher that is not the library's own: runs it at most
/// once, and if the dispatcher releases it without running it (the `Dispatcher` contract
/// allows dropping work), tells the continuation it was dropped (a link then cancels its
/// promise).
final class DropGuard: @unchecked Sendable {
    // @unchecked: `continuation` is taken once, by `run` or by `deinit`.
    private var continuation: Continuation?

    init(_ continuation: Continuation) { self.continuation = continuation }

    func run() {
        let continuation = self.continuation
        self.continuation = nil
        continuation?.run()
    }

    deinit {
        continuation?.dropped()
    }
}
