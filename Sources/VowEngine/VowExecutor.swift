/// A Vow dispatcher that runs one job at a time, as a Swift executor: actors and tasks on
/// Vow's loops.
///
/// ```swift
/// actor Counter {
///     let loop: SerialDispatcher
///     nonisolated var unownedExecutor: UnownedSerialExecutor {
///         loop.executor.asUnownedSerialExecutor()
///     }
///     …
/// }
/// Task(executorPreference: loop.executor) { … }   // non-isolated async code on the loop
/// ```
///
/// The library's serial queues (`SerialDispatcher`), a C host's loop (`vow_dispatcher_new`,
/// the libuv and GLib bridges, seen from Swift with `VowRuntime.dispatcher(unsafeHandle:)`),
/// VowNIO's `EventLoopDispatcher` and VowTesting's loops each have one, as `executor`.
/// A Swift job enqueued here runs where the dispatcher runs its callbacks, one at a time, in
/// order with them: on the loop's thread, for a host loop.
///
/// **Allocation.** Enqueuing a job allocates nothing: the job waits in the dispatcher's own
/// queue (the serial queues keep it beside their continuations; a host loop receives the
/// job itself as the `job` of its `submit`, the executor's reference kept in the two words
/// Swift reserves in every job for its executor).
///
/// **Isolation.** `checkIsolated()` and `isIsolatingCurrentContext()` answer from the mark
/// the dispatcher puts on the thread that runs its jobs, so `assumeIsolated` works in a
/// promise callback running on the dispatcher, not only in the actor's own methods.
///
/// **Dropped jobs.** A dispatcher may drop work (a loop that closes, C's `vow_job_drop`).
/// Swift requires every job to run, so a dropped Swift job is not lost: it still runs, once,
/// on the thread that dropped it (marked as running this dispatcher, so isolation checks
/// pass there), or, when a job of this executor is running at that moment, right after that
/// job on its thread. Dropped jobs run in the order they were dropped and never at the same
/// time as another job of this executor, so an actor's state stays exclusive (a job the
/// dispatcher runs while a dropped one is running elsewhere, from a host that drops only
/// some jobs, runs after it on that other thread instead). What the task
/// sees: it resumes normally, but no longer on the loop's thread; `Task.isCancelled` is as
/// it was. Code that must stay on the loop's thread stops using the loop's actors before
/// it closes the loop.
///
/// **Lifetime.** The executor keeps what it runs jobs on alive, and its dispatcher keeps it:
/// an actor may hold either. A queued job keeps the executor alive until it has run.
public class VowExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked: `running` and `dropped` are guarded by `exclusion`; the rest is
    // immutable or belongs to the subclasses (see each).

    /// Guards `running` and `dropped`.
    private let exclusion = VowLock()
    /// A thread is running one of this executor's jobs now.
    @exclusivity(unchecked) private var running = false
    /// Jobs waiting to run after the running one: dropped jobs, and jobs the dispatcher
    /// handed over while a dropped one ran elsewhere. Empty unless `running`.
    @exclusivity(unchecked) private var dropped: [UnownedJob] = []

    init() {}

    // MARK: Swift's requirements

    /// Queues `job` on the dispatcher, behind the work already there. Any thread; never
    /// runs the job inside this call, unless the dispatcher drops it at once (see "Dropped
    /// jobs" above).
    public final func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The queued job's reference to this executor, given back once the job has run.
        _ = Unmanaged.passUnretained(self).retain()
        submitSwiftJob(job)
    }

    public final func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        if exclusiveContext != nil { return UnownedSerialExecutor(complexEquality: self) }
        return UnownedSerialExecutor(ordinary: self)
    }

    /// This executor as a `TaskExecutor`: a task given it as its preference
    /// (`Task(executorPreference:)`, `withTaskExecutorPreference(_:)`) runs its
    /// nonisolated code on the dispatcher.
    public final func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// True when both run their jobs in one exclusive context (two `EventLoopDispatcher`s of
    /// one swift-nio loop); otherwise executors are equal only to themselves.
    public final func isSameExclusiveExecutionContext(other: VowExecutor) -> Bool {
        guard let context = exclusiveContext else { return other === self }
        return other.exclusiveContext == context
    }

    /// Stops the program unless the calling thread runs this executor's dispatcher now (one
    /// of its jobs, Swift's or a promise callback's), as `assumeIsolated` requires.
    public final func checkIsolated() {
        precondition(isIsolatingCurrentThread,
                     "VowExecutor: not running on the dispatcher of \(self) (assumeIsolated or checkIsolated called elsewhere)")
    }

    /// Whether the calling thread runs this executor's dispatcher now (see `checkIsolated`).
    public final func isIsolatingCurrentContext() -> Bool? {
        isIsolatingCurrentThread
    }

    // MARK: What each dispatcher provides

    /// Hands `job` to the dispatcher, which runs it with `runQueued` on its thread (marked
    /// as running it) or gives it back with `runDropped`. The job holds a reference to this
    /// executor (taken by `enqueue`), which those two give back. Called outside every lock.
    func submitSwiftJob(_ job: UnownedJob) {
        runDropped(job)
    }

    /// The identity the dispatcher marks its running thread with
    /// (`ThreadState.runningSerialDispatcher`).
    package var isolationIdentity: ObjectIdentifier { ObjectIdentifier(self) }

    /// True when the calling thread runs the dispatcher's work now.
    package var isIsolatingCurrentThread: Bool {
        ThreadState.current.runningSerialDispatcher == isolationIdentity
    }

    /// The exclusive context shared with other executors (nil: this executor alone).
    package var exclusiveContext: ObjectIdentifier? { nil }

    // MARK: Running

    /// Runs `job`, which the dispatcher handed back on its thread (the caller has marked the
    /// thread as running the dispatcher), and then any job dropped meanwhile; gives back the
    /// job's reference to this executor. If a dropped job is running on another thread at
    /// this moment, `job` runs after it, there, instead.
    package final func runQueued(_ job: UnownedJob) {
        guard startRunning(orQueue: job) else { return }
        runExclusively(first: job)
    }

    /// Runs `job`, which the dispatcher dropped (see "Dropped jobs"): at once on this
    /// thread, marked as running the dispatcher, or after the job of this executor that is
    /// running now, on that job's thread.
    package final func runDropped(_ job: UnownedJob) {
        let identity = isolationIdentity
        guard startRunning(orQueue: job) else { return }
        ThreadState.running(serialDispatcher: identity) {
            runExclusively(first: job)
        }
    }

    /// Under `exclusion`: if a job of this executor is running, queues `job` in `dropped`
    /// (the running one runs it next, on its thread) and answers false; otherwise sets
    /// `running` and answers true, and the caller runs `job` now.
    @inline(__always)
    private func startRunning(orQueue job: UnownedJob) -> Bool {
        exclusion.lock()
        defer { exclusion.unlock() }
        if running {
            dropped.append(job)
            return false
        }
        running = true
        return true
    }

    /// Runs `first`, then the jobs waiting in `dropped`, one at a time; `running` is set.
    /// Each job's reference to this executor is given back once it ran and the next job (or
    /// none) was taken, so the last release is the last thing this touches.
    private func runExclusively(first: UnownedJob) {
        var job = first
        while true {
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            exclusion.lock()
            guard !dropped.isEmpty else {
                running = false
                exclusion.unlock()
                Unmanaged.passUnretained(self).release()
                return
            }
            let next = dropped.removeFirst()
            exclusion.unlock()
            Unmanaged.passUnretained(self).release()
            job = next
        }
    }
}

/// Something that knows its dispatcher's executor: what `Dispatcher.executor` looks for.
package protocol ExecutorProviding: AnyObject {
    var providedExecutor: VowExecutor { get }
}

extension Dispatcher {
    /// This dispatcher as a Swift executor, when it is one of Vow's dispatchers that run one
    /// job at a time (a `SerialDispatcher`, a C host's loop made with `vow_dispatcher_new`,
    /// the libuv and GLib bridges, VowNIO's `EventLoopDispatcher`, VowTesting's
    /// test loops); nil for others (a `DispatchQueue`, the background pool, inline, your
    /// own). `.default` answers for the current default. Each dispatcher has one executor:
    /// every call returns the same object.
    public var executor: VowExecutor? {
        (Dispatchers.resolve(self) as? any ExecutorProviding)?.providedExecutor
    }
}

/// What a `HostedExecutor` runs its jobs on: a dispatcher's queue that is not itself the
/// executor (a C host's loop, a swift-nio loop). It must not keep the executor alive (the
/// executor keeps it).
package protocol SwiftJobHost: AnyObject, Sendable {
    /// Queues `job` for `executor` (see `VowExecutor.submitSwiftJob`).
    func submitSwiftJob(_ job: UnownedJob, for executor: VowExecutor)
    /// See `VowExecutor.isolationIdentity`.
    var isolationIdentity: ObjectIdentifier { get }
    /// True when the calling thread is isolated to the dispatcher by the host's own rule
    /// (besides the thread mark, which always counts); nil: the mark alone decides.
    var isIsolatingCurrentThread: Bool? { get }
    /// See `VowExecutor.exclusiveContext`.
    var exclusiveContext: ObjectIdentifier? { get }
}

extension SwiftJobHost {
    package var isIsolatingCurrentThread: Bool? { nil }
    package var exclusiveContext: ObjectIdentifier? { nil }
}

/// The executor of a dispatcher whose queue lives in another object (`host`): the executor
/// keeps the host, the dispatcher keeps both, and nothing keeps the dispatcher, so the
/// three are freed once nothing else holds them.
package final class HostedExecutor: VowExecutor, @unchecked Sendable {
    // @unchecked: immutable.
    let host: any SwiftJobHost

    package init(host: any SwiftJobHost) {
        self.host = host
        super.init()
    }

    override func submitSwiftJob(_ job: UnownedJob) {
        host.submitSwiftJob(job, for: self)
    }

    package override var isolationIdentity: ObjectIdentifier { host.isolationIdentity }

    /// The thread mark (the dispatcher's work, dropped jobs included), or the host's own
    /// answer (a swift-nio loop: any code on its thread).
    package override var isIsolatingCurrentThread: Bool {
        super.isIsolatingCurrentThread || host.isIsolatingCurrentThread == true
    }

    package override var exclusiveContext: ObjectIdentifier? { host.exclusiveContext }
}

/// Swift jobs waiting in a dispatcher that queues continuations (the library's serial
/// queues, VowNIO's loop queue): each job is represented in that queue by one submission of
/// this object, so jobs and continuations keep one order, the dispatcher's, and nothing is
/// allocated per job (the jobs wait here in an array that keeps its capacity).
///
/// Each `run()` takes the oldest job and runs it (`VowExecutor.runQueued`); each `dropped()`
/// takes the oldest and hands it to `VowExecutor.runDropped`. A serial dispatcher calls them
/// in submission order, so the n-th call takes the n-th job.
package final class SwiftJobQueue: Continuation, @unchecked Sendable {
    // @unchecked: `jobs` and `head` are guarded by `lock`; `executor` is immutable.
    private let lock = VowLock()
    @exclusivity(unchecked) private var jobs: [UnownedJob] = []
    @exclusivity(unchecked) private var head = 0
    /// Not retained: every job waiting here holds a reference to the executor (see
    /// `VowExecutor.enqueue`), and `run`/`dropped` are called only for waiting jobs.
    private unowned(unsafe) let executor: VowExecutor

    package init(executor: VowExecutor) {
        self.executor = executor
        super.init(tag: Continuation.continuationTag)
    }

    /// Adds `job`; the caller then submits this object to its queue once.
    package func push(_ job: UnownedJob) {
        lock.lock()
        jobs.append(job)
        lock.unlock()
    }

    private func pop() -> UnownedJob {
        lock.lock()
        let job = jobs[head]
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: jobs.capacity <= 4096)
            head = 0
        } else if head >= 1024, head * 2 >= jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        lock.unlock()
        return job
    }

    package override func run() {
        executor.runQueued(pop())
    }

    package override func dropped() {
        executor.runDropped(pop())
    }
}
