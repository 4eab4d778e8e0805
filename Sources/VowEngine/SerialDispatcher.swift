import Synchronization
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// A serial queue of jobs, drained in batches by one Dispatch worker at a time.
///
/// The library's default dispatcher is one of these. Submitting to it costs no allocation:
/// jobs wait in an array guarded by a lock, and a drain is started on the underlying
/// Dispatch queue only when the queue goes from idle to busy. While a drain runs, work
/// submitted to the same queue (the next link of a chain) is appended and run by the same
/// loop, which is how a long chain settles without recursion and without a Dispatch
/// round-trip per link. Jobs run one at a time, in submission order, and each is let go of
/// right after it ran (a finished link nobody holds is freed then, with its value).
///
/// It is also a Swift executor (`executor`, itself): actors and tasks whose executor it is
/// run their jobs here, in order with the promise callbacks (see `VowExecutor`).
public final class SerialDispatcher: VowExecutor, Dispatcher, ContinuationSink, ExecutorProviding, @unchecked Sendable {
    // @unchecked: `jobs` and `draining` are only touched under `lock`; `swiftJobs` is set
    // once, in init.
    private let lock = VowLock()
    /// The jobs waiting, each retained once (a plain word: adding, swapping and emptying
    /// the array touch no reference count; the drain releases each job right after it ran).
    @exclusivity(unchecked) private var jobs: [Unmanaged<Continuation>] = []
    @exclusivity(unchecked) private var draining = false
    private let underlying: DispatchQueue
    /// The Swift jobs waiting in `jobs` (one submission of this object each).
    @exclusivity(unchecked) private var swiftJobs: SwiftJobQueue!
    /// The batch the drain runs, swapped with `jobs`: a stored property rather than a local,
    /// so that both arrays keep their storage from one drain to the next (only the draining
    /// thread touches it).
    @exclusivity(unchecked) private var batch: [Unmanaged<Continuation>] = []
    /// What `underlying` runs to drain, made once: submitting it allocates no closure. It
    /// does not retain the dispatcher; `submit` does, for the drain it starts.
    @exclusivity(unchecked) private var drainBlock: (@Sendable @convention(block) () -> Void)!

    /// Makes a serial dispatcher; `label` names its Dispatch queue in debuggers.
    public init(label: String = "vow.serial") {
        underlying = DispatchQueue(label: label)
        super.init()
        swiftJobs = SwiftJobQueue(executor: self)
        drainBlock = { [unowned(unsafe) self] in
            self.drain()
            Unmanaged.passUnretained(self).release()  // the reference `submit` took
        }
    }

    deinit {
        // A queue with jobs is never freed (a pending drain keeps it alive); were one left,
        // it is let go of here rather than leaked.
        for job in jobs { job.release() }
    }

    public var isSerial: Bool { true }

    /// This dispatcher as a Swift executor: the dispatcher itself (see `VowExecutor`).
    public var executor: VowExecutor { self }

    package var providedExecutor: VowExecutor { self }

    override func submitSwiftJob(_ job: UnownedJob) {
        swiftJobs.push(job)
        submit(swiftJobs)
    }

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        submit(ClosureJob(work))
    }

    @usableFromInline package func submit(_ continuation: Continuation) {
        lock.lock()
        jobs.append(Unmanaged.passRetained(continuation))
        let startDrain = !draining
        draining = true
        lock.unlock()
        if startDrain {
            _ = Unmanaged.passUnretained(self).retain()  // given back by `drainBlock`
            underlying.async(execute: drainBlock)
        }
    }

    private func drain() {
        let state = ThreadState.current
        let outer = state.runningSerialDispatcher
        state.runningSerialDispatcher = ObjectIdentifier(self)
        defer { state.runningSerialDispatcher = outer }
        var lingered = false
        while true {
            lock.lock()
            swap(&batch, &jobs)
            if batch.isEmpty {
                if !lingered {
                    // Ran dry: before going idle (and paying a Dispatch round-trip to start
                    // again on the next submission), let the submitting threads run once;
                    // a producer that is still going usually refills the queue meanwhile.
                    lock.unlock()
                    lingered = true
                    sched_yield()
                    continue
                }
                draining = false
                lock.unlock()
                return
            }
            lock.unlock()
            lingered = false
            runBatch()
            batch.removeAll(keepingCapacity: batch.capacity <= 4096)
        }
    }
}

extension SerialDispatcher {
    /// Runs the jobs of `batch` in order and lets go of each right after it ran, so that a
    /// finished job (a link, with the value it settled with) is freed then, not when the
    /// whole batch is done. Only the draining thread touches `batch` (a job that submits
    /// more appends to `jobs`).
    private func runBatch() {
        for index in batch.indices {
            let job = batch[index]
            job._withUnsafeGuaranteedRef { $0.run() }
            job.release()
        }
    }
}

/// Wraps a dispatcher and drops (never runs) the work submitted after `invalidate()`.
///
/// A promise whose callback was dropped this way is rejected with the cancellation error
/// (the engine cancels the promise of any work a dispatcher releases unrun), so a chain on
/// an invalidated queue ends instead of hanging, and `finally` handlers downstream still
/// run (on their own dispatchers).
public final class InvalidatableQueue: Dispatcher, @unchecked Sendable {
    // @unchecked: `valid` is guarded by `lock`.
    private let lock = VowLock()
    private var valid = true
    private let target: any Dispatcher

    /// A queue that runs its work on `target` (`.default`: the default dispatcher as it is
    /// now) until it is invalidated.
    public init(_ target: any Dispatcher = .default) {
        self.target = Dispatchers.resolve(target)
    }

    /// Stops running work: everything submitted later, or still waiting in the target, is
    /// dropped. Cannot be undone.
    public func invalidate() {
        lock.withLock { valid = false }
    }

    /// False once `invalidate()` was called.
    public var isValid: Bool { lock.withLock { valid } }

    public var isSerial: Bool { target.isSerial }

    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        guard isValid else { return }
        target.dispatch { [self] in
            if self.isValid { work() }
        }
    }
}

/// The process-wide dispatcher settings and the engine's view of dispatchers.
@usableFromInline package enum Dispatchers {
    /// The library's own default dispatcher: one serial queue, never the main queue.
    @usableFromInline package static let librarySerial = SerialDispatcher(label: "vow.default")

    private static let customDefault = Locked<(any Dispatcher)?>(nil)
    /// Set while a default replaces the library's queue, while some thread has a default of
    /// its own (`installThreadDefault`), or while a scope sets one (`withDefault`):
    /// `currentDefault` then looks further.
    @usableFromInline static let hasCustomDefault = AtomicFlag()

    /// The innermost `withDefault` scope around the calling code (task-local: a scope covers
    /// the thread that opened it and the tasks started in it, never another thread).
    @TaskLocal static var scopedDefault: DefaultScope? = nil
    /// How many `DefaultScope`s exist (open, or held by a task started in one): while none
    /// does, nothing reads the task-local value.
    private static let liveScopes = Atomic<Int>(0)

    /// The dispatcher a `withDefault` scope binds. Counted in `liveScopes` (and reflected in
    /// `hasCustomDefault`) from its creation to its release, which is when the scope ends,
    /// or later if a task started in the scope still holds it.
    final class DefaultScope: Sendable {
        let dispatcher: any Dispatcher

        init(_ dispatcher: any Dispatcher) {
            // The placeholder and the library's queue both mean the library's queue.
            self.dispatcher = dispatcher === DefaultDispatcher.shared ? librarySerial : dispatcher
            liveScopes.wrappingAdd(1, ordering: .sequentiallyConsistent)
            refreshCustomDefaultFlag()
        }

        deinit {
            liveScopes.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            refreshCustomDefaultFlag()
        }
    }

    /// The dispatcher `.default` stands for now.
    @inlinable
    package static var currentDefault: any Dispatcher {
        if !hasCustomDefault.isSet { return librarySerial }
        return customDefaultValue ?? librarySerial
    }

    /// The innermost scope's default, else the calling thread's own default, else the
    /// replaced default.
    @usableFromInline
    static var customDefaultValue: (any Dispatcher)? {
        if liveScopes.load(ordering: .relaxed) != 0, let scope = scopedDefault { return scope.dispatcher }
        if liveThreadDefaultsCount.load(ordering: .relaxed) != 0, let own = threadDefault { return own }
        return customDefault.withLock { $0 }
    }

    /// Sets `hasCustomDefault` from the setting, the threads' own defaults and the live
    /// scopes (one of them changed). The counts are read under the setting's lock, so the
    /// last refresh to take it sees every scope made before it.
    static func refreshCustomDefaultFlag() {
        customDefault.withLock { current in
            hasCustomDefault.set(current != nil || liveThreadDefaultsCount.load(ordering: .relaxed) != 0
                                 || liveScopes.load(ordering: .relaxed) != 0)
        }
    }

    // MARK: A thread's own default
    
    /// The calling thread's own default dispatcher, if one is installed here.
    @usableFromInline package static var threadDefault: (any Dispatcher)? {
        ThreadState.withCurrent { state in
            guard let token = state.threadDefault else {
                state.threadDefault = nil  // a token released elsewhere: forget it now
                return nil
            }
            return token.dispatcher
        }
    }

    /// Makes `dispatcher` what `.default` stands for on the calling thread, for the
    /// callbacks registered here (and the timers asked for here), until the returned token
    /// is released: on any thread, the installing one forgets it at once. Between a scope's
    /// default (`withDefault`, which wins) and the process-wide setting. nil, changing
    /// nothing, when this thread has one already. The token does not retain `dispatcher`,
    /// so the dispatcher may keep its token; it must release the token before it goes.
    package static func installThreadDefault(_ dispatcher: any Dispatcher) -> ThreadDefault? {
        ThreadState.withCurrent { state -> ThreadDefault? in
            guard state.threadDefault == nil else { return nil }
            let token = ThreadDefault(dispatcher)
            state.threadDefault = token
            return token
        }
    }

    /// The dispatcher whose clock a timer asked for on `dispatcher` reads: for `.default`,
    /// the calling thread's own default if it has one (an installed test loop is the
    /// thread's clock, also inside a `withDefault` scope, which moves callbacks, not time),
    /// else what `.default` stands for; any other dispatcher is itself.
    @inlinable
    package static func clock(of dispatcher: any Dispatcher) -> any Dispatcher {
        guard ObjectIdentifier(type(of: dispatcher)) == ObjectIdentifier(DefaultDispatcher.self) else { return dispatcher }
        if liveThreadDefaultsCount.load(ordering: .relaxed) != 0, let own = threadDefault { return own }
        return currentDefault
    }

    /// Whether the calling thread has a default of its own.
    package static var hasThreadDefault: Bool {
        ThreadState.withCurrent { $0.threadDefault != nil }
    }

    /// Runs `body` with `.default` standing for `dispatcher` in the calling code: on this
    /// thread while `body` runs, and in the tasks started there (for as long as they run),
    /// for the callbacks registered there. The process-wide setting and other threads are
    /// untouched; work that runs later on a dispatcher runs outside the scope. `.default`
    /// itself, or the library's queue, stands for the library's queue, as in the setting.
    /// Scopes nest; the innermost wins, over a thread's own default too.
    package static func withDefault<R>(_ dispatcher: any Dispatcher, _ body: () throws -> R) rethrows -> R {
        try $scopedDefault.withValue(DefaultScope(dispatcher), operation: body)
    }

    /// `withDefault` for an asynchronous body (the scope covers it across suspensions, and
    /// the tasks it starts).
    package static func withDefault<R>(_ dispatcher: any Dispatcher, isolation: isolated (any Actor)? = #isolation,
                                       _ body: () async throws -> R) async rethrows -> R {
        try await $scopedDefault.withValue(DefaultScope(dispatcher), operation: body, isolation: isolation)
    }

    /// Replaces the default; nil (or the library's queue, or the `.default` placeholder)
    /// restores the library's own. Callbacks registered earlier keep their dispatcher.
    @usableFromInline package static func setDefault(_ dispatcher: (any Dispatcher)?) {
        var replacement = dispatcher
        if replacement === DefaultDispatcher.shared || replacement === librarySerial { replacement = nil }
        let previous = customDefault.withLock { current -> (any Dispatcher)? in
            let previous = current
            current = replacement
            hasCustomDefault.set(replacement != nil || liveThreadDefaultsCount.load(ordering: .relaxed) != 0
                                 || liveScopes.load(ordering: .relaxed) != 0)
            return previous
        }
        withExtendedLifetime(previous) {}
    }

    /// How a link on `dispatcher` runs without holding it: `.onLibraryQueue` for the
    /// library's queue (and the `.default` placeholder while it stands for it),
    /// `.onInline` for `.inline`; empty for every other dispatcher (the link holds it).
    /// Exact type checks, as in `resolve`.
    @inlinable @inline(__always)
    static func linkPlacement(for dispatcher: any Dispatcher) -> Flags {
        let type = ObjectIdentifier(Swift.type(of: dispatcher))
        if type == ObjectIdentifier(DefaultDispatcher.self) {
            return hasCustomDefault.isSet ? [] : .onLibraryQueue
        }
        if type == ObjectIdentifier(InlineDispatcher.self) { return .onInline }
        if type == ObjectIdentifier(SerialDispatcher.self), dispatcher === librarySerial { return .onLibraryQueue }
        return []
    }

    /// Resolves the `.default` placeholder to the dispatcher callbacks will really use, at
    /// registration time.
    @inlinable
    package static func resolve(_ dispatcher: any Dispatcher) -> any Dispatcher {
        // An exact type check (there is one `DefaultDispatcher`), not an identity check
        // against `DefaultDispatcher.shared`, which would run its lazy initialiser's check.
        ObjectIdentifier(type(of: dispatcher)) == ObjectIdentifier(DefaultDispatcher.self) ? currentDefault : dispatcher
    }
}

/// A thread's own default dispatcher (`Dispatchers.installThreadDefault`): the installer
/// keeps this token; the thread holds it weakly, so releasing the token, on any thread,
/// ends the installation there.
package final class ThreadDefault: @unchecked Sendable {
    // @unchecked: immutable.
    /// What `.default` stands for on the thread. Not retained (the installer may keep the
    /// token and be the dispatcher): the installer releases the token before the dispatcher
    /// goes (a test loop closes, dropping its token, when its face is released).
    unowned(unsafe) let dispatcher: any Dispatcher

    init(_ dispatcher: any Dispatcher) {
        self.dispatcher = dispatcher
        Dispatchers.countThreadDefault(1)
    }

    deinit {
        Dispatchers.countThreadDefault(-1)
    }
}

/// How many `ThreadDefault` tokens exist (a global with a constant initializer): while none
/// does, no thread has a default of its own and nothing reads the per-thread slot.
@usableFromInline let liveThreadDefaultsCount = Atomic<Int>(0)

extension Dispatchers {
    static func countThreadDefault(_ delta: Int) {
        liveThreadDefaultsCount.wrappingAdd(delta, ordering: .sequentiallyConsistent)
        refreshCustomDefaultFlag()
    }
}
