import Dispatch

/// Where callbacks run.
///
/// Every closure-taking method of `Promise` takes `on: Dispatcher` (default `.default`).
/// A dispatcher runs each submitted piece of work exactly once, later, or drops it
/// (releasing it) if it has been shut down. The same protocol is C's `vow_dispatcher`:
/// a dispatcher made in C with `vow_dispatcher_new` is a `Dispatcher` here, and a Swift
/// dispatcher can be handed to C.
///
/// Built-in dispatchers:
/// - `.default`: the current default (`Vow.defaultDispatcher`), which unless replaced is
///   one serial queue owned by the library. It is never the main queue: a Linux program or
///   a C host does not drain the main queue.
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
}

extension Dispatcher {
    public var isSerial: Bool { false }
}

extension Dispatcher where Self == DefaultDispatcher {
    /// The current default dispatcher (`Vow.defaultDispatcher`), looked up when a callback
    /// is registered.
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

/// The placeholder `.default` stands for: the dispatcher set in `Vow.defaultDispatcher`
/// at the moment a callback is registered.
public final class DefaultDispatcher: Dispatcher {
    static let shared = DefaultDispatcher()
    private init() {}

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        Vow.currentDefaultDispatcher.dispatch(work)
    }
    public var isSerial: Bool { Vow.currentDefaultDispatcher.isSerial }
}

/// Runs work on the thread that submits it; nested submissions on the same thread are
/// queued and run in order by the outermost call (a loop, never a recursion).
public final class InlineDispatcher: Dispatcher {
    static let shared = InlineDispatcher()
    private init() {}

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        InlineDispatcher.run(Job(body: { _ in work() }, outcome: .fulfilled(())))
    }

    static func run(_ job: Job) {
        let state = ThreadState.current
        if state.inlineActive {
            state.inlineJobs.append(job)
            return
        }
        state.inlineActive = true
        job.run()
        // Jobs queued meanwhile run in batches, in order; each batch is released once it
        // ran, so a long inline chain does not keep every finished job alive until the end.
        var batch: [Job] = []
        while !state.inlineJobs.isEmpty {
            swap(&batch, &state.inlineJobs)
            for next in batch { next.run() }
            batch.removeAll(keepingCapacity: batch.capacity <= 1024)
        }
        state.inlineActive = false
    }
}

/// A concurrent pool: Dispatch's global queue.
public final class BackgroundDispatcher: Dispatcher {
    static let shared = BackgroundDispatcher()
    private init() {}
    let queue = DispatchQueue.global()

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}

extension DispatchQueue: Dispatcher {
    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(self)
        async {
            let state = ThreadState.current
            let outer = state.runningSerialDispatcher
            state.runningSerialDispatcher = id
            work()
            state.runningSerialDispatcher = outer
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

/// Submits a job to its dispatcher, with direct paths for the library's own dispatchers
/// (no allocation and no dynamic cast for the default serial queue and inline).
@inline(__always)
func submitJob(_ job: Job, to dispatcher: any Dispatcher) {
    if dispatcher === Vow.librarySerial {
        Vow.librarySerial.enqueue(job)
    } else if dispatcher === InlineDispatcher.shared {
        InlineDispatcher.run(job)
    } else if let queue = dispatcher as? SerialDispatcher {
        queue.enqueue(job)
    } else {
        let guarded = JobGuard(job)
        dispatcher.dispatch { guarded.run() }
    }
}

/// Schedules a handler with the outcome it receives. Called after the promise's lock was
/// released (dispatchers may be user code).
@inline(__always)
func schedule(_ handler: consuming Handler, _ outcome: Outcome) {
    let dispatcher = handler.dispatcher
    if dispatcher === Vow.librarySerial {
        Vow.librarySerial.enqueue(Job(body: handler.body, outcome: outcome))
    } else if dispatcher === InlineDispatcher.shared {
        InlineDispatcher.run(Job(body: handler.body, outcome: outcome))
    } else {
        submitJob(Job(body: handler.body, outcome: outcome, dependent: handler.dependent), to: dispatcher)
    }
}

/// Resolves the `.default` placeholder to the dispatcher callbacks will really use, at
/// registration time.
@inline(__always)
func resolved(_ dispatcher: any Dispatcher) -> any Dispatcher {
    dispatcher === DefaultDispatcher.shared ? Vow.currentDefaultDispatcher : dispatcher
}
