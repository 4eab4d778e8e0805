import CVow
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// Dispatchers (vow.h, "Dispatchers"). A `vow_dispatcher *` is either a `HostDispatcher`
// (made by `vow_dispatcher_new`: the host's loop) or a `DispatcherHandle` (a Swift
// dispatcher shown to C: the three built-ins, or any other).

/// A dispatcher backed by a host's event loop: C's `vow_dispatcher_new`.
///
/// The engine hands it continuations (`submit`); each goes to the host's
/// `submit(ctx, run, job)` with `run` a static trampoline: a link as itself (`HostLink`, no
/// allocation per job), the library's other work (timers, hand-offs) inside a `HostJob`. The host
/// either calls `run(job)` exactly once, later, in submission order, on its loop's thread,
/// or hands the job back with `vow_job_drop(job)` (a loop that shuts down): then the
/// continuation is told it was dropped, and a link cancels its promise. The trampoline
/// marks the thread as running this (serial) dispatcher for the duration of the job, so a
/// `vow_wait` inside it that needs a later job of this dispatcher reports a deadlock
/// instead of hanging. `submit` is never called under a library lock.
///
/// Lifetime: every job the host holds keeps its dispatcher alive, so the host's
/// `destroy(ctx)` runs once the last reference (C's, the default setting's, or a registered
/// link's) is gone and every submitted job was run or dropped. The dispatcher's Swift
/// executor (`executor`, see CExecutorJobs.swift) keeps the host's loop (`HostLoop`, which
/// runs `destroy` when it goes) but not the dispatcher, so an actor may hold either.
final class HostDispatcher: HandleObject, Dispatcher, ContinuationSink, ExecutorProviding, @unchecked Sendable {
    // @unchecked: immutable but for `lazyExecutor` (atomic); the host vouches that `submit`
    // may be called from any thread with `ctx` (header, vow_dispatcher_new).
    typealias Submit = @convention(c) (UnsafeMutableRawPointer?, vow_job?, UnsafeMutableRawPointer?) -> Void
    typealias Arm = @convention(c) (UnsafeMutableRawPointer?, Double, vow_job?, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    typealias CancelTimer = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

    /// The host's submit (vow_dispatcher_host_context compares it).
    let submitToHost: Submit
    /// What the host gave with submit (vow_dispatcher_context hands it back).
    let ctx: UnsafeMutableRawPointer?
    /// The host's timers (`vow_dispatcher_new_with_timers`); nil: Dispatch's real clock.
    private let arm: Arm?
    private let cancelTimer: CancelTimer?
    /// The host's loop: its submit, ctx and destroy, shared with the executor.
    let loop: HostLoop
    private let lazyExecutor = AtomicLazyReference<HostedExecutor>()

    init(submit: @escaping Submit, arm: Arm? = nil, cancel: CancelTimer? = nil,
         ctx: UnsafeMutableRawPointer?, destroy: CDestroy?) {
        submitToHost = submit
        self.arm = arm
        cancelTimer = cancel
        self.ctx = ctx
        loop = HostLoop(submit: submit, ctx: ctx, destroy: destroy)
        super.init(tag: .dispatcher)
        loop.dispatcherIdentity = ObjectIdentifier(self)
    }

    /// FIFO, one job at a time: the host's promise.
    var isSerial: Bool { true }

    /// The dispatcher as a Swift executor, made on first use.
    var providedExecutor: VowExecutor {
        if let made = lazyExecutor.load() { return made }
        return lazyExecutor.storeIfNil(HostedExecutor(host: loop))
    }

    func dispatch(_ work: @escaping @Sendable () -> Void) {
        submit(ClosureJob(work))
    }

    func submit(_ continuation: Continuation) {
        // A link travels as itself (the host's reference, and the dispatcher's own for the
        // job: see `runHostLink`); the rest of the library's work in a `HostJob`.
        if continuation.handToHost(from: ObjectIdentifier(self)) {
            _ = Unmanaged.passUnretained(self).retain()
            submitToHost(ctx, runHostLink, Unmanaged.passRetained(continuation).toOpaque())
            return
        }
        let job = HostJob(continuation, keeping: self, identity: ObjectIdentifier(self))
        submitToHost(ctx, runHostJob, UnsafeMutableRawPointer(job.retainedHandle))
    }

    /// The host's timer when it has timers (`HostTimer`), else Dispatch's real clock.
    func scheduleTimer(after seconds: Double, fire: @escaping @Sendable () -> Void,
                       dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer {
        guard let arm else { return RealClockTimer(seconds: seconds, fire) }
        let timer = HostTimer(fire: fire, dropped: dropped)
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(min(seconds * 1e9, Double(UInt64.max / 2)))
        // Armed on the loop's thread: the host calls its loop's timer functions there.
        submit(ClosureJob({ [self] in
            guard timer.startArming() else { return }  // cancelled before it was armed
            let now = DispatchTime.now().uptimeNanoseconds
            let remaining = deadline > now ? Double(deadline - now) / 1e9 : 0
            let job = HostJob(ClosureJob({ timer.fired() }, onDrop: { timer.hostDropped() }),
                              keeping: self, identity: ObjectIdentifier(self))
            timer.hostTimer = arm(ctx, remaining, runHostJob, UnsafeMutableRawPointer(job.retainedHandle))
        }, onDrop: { timer.hostDropped() }))
        timer.setOnCancel { [self] in
            // Stopped on the loop's thread too, if the host can stop timers and still holds it.
            guard let cancelTimer else { return }
            submit(ClosureJob({ [self] in
                if timer.stillHeldByHost { cancelTimer(ctx, timer.hostTimer) }
            }))
        }
        return timer
    }
}

/// A timer of a host loop (`vow_dispatcher_new_with_timers`): armed by a job on the loop's
/// thread, fired or dropped by the host through an ordinary `HostJob` (`run(timer)`,
/// `vow_job_drop(timer)`), cancelled by the engine from any thread.
///
/// State (one atomic byte): waiting (its arm job is queued), armed (the host holds it),
/// finished (fired or dropped: the host let go of it), cancelled (the engine no longer
/// needs it; the host may still hold it until it drops it). `fire` and `dropped` are taken
/// once, by whichever of fire, drop and cancel comes first; `hostTimer` is written and read
/// on the loop's thread only.
final class HostTimer: DispatcherTimer, @unchecked Sendable {
    // @unchecked: the closures are guarded by their lock; `state` is atomic; `hostTimer` is
    // confined to the loop's thread.
    private static let waiting: UInt8 = 0, armed: UInt8 = 1, finished: UInt8 = 2, cancelled: UInt8 = 3
    private let state = Atomic<UInt8>(0)
    /// `fire`, `dropped`, and what `cancel` does for a timer the host holds (it captures
    /// this timer: taking it ends the cycle).
    private let closures = Locked<Closures>(Closures())
    @exclusivity(unchecked) var hostTimer: UnsafeMutableRawPointer?

    struct Closures {
        var fire: (@Sendable () -> Void)?
        var dropped: (@Sendable () -> Void)?
        var onCancel: (@Sendable () -> Void)?
    }

    init(fire: @escaping @Sendable () -> Void, dropped: @escaping @Sendable () -> Void) {
        closures.withLock {
            $0.fire = fire
            $0.dropped = dropped
        }
    }

    /// Sets what `cancel` does once the host holds the timer (before the timer is shared).
    func setOnCancel(_ body: @escaping @Sendable () -> Void) {
        closures.withLock { $0.onCancel = body }
    }

    /// The arm job runs: true (now armed) unless cancelled meanwhile.
    func startArming() -> Bool {
        state.compareExchange(expected: HostTimer.waiting, desired: HostTimer.armed, ordering: .acquiringAndReleasing).exchanged
    }

    /// The host holds the timer and the engine cancelled it (read by the cancel job).
    var stillHeldByHost: Bool { state.load(ordering: .acquiring) == HostTimer.cancelled && hostTimer != nil }

    /// The host ran the timer.
    func fired() {
        guard state.compareExchange(expected: HostTimer.armed, desired: HostTimer.finished,
                                    ordering: .acquiringAndReleasing).exchanged else {
            state.store(HostTimer.finished, ordering: .releasing)  // cancelled: nothing to run
            return
        }
        let taken = take()
        withExtendedLifetime((taken.dropped, taken.onCancel)) {}
        taken.fire?()
    }

    /// The host dropped the timer (or its arm job): the dispatcher went away first.
    func hostDropped() {
        let was = state.exchange(HostTimer.finished, ordering: .acquiringAndReleasing)
        guard was == HostTimer.armed || was == HostTimer.waiting else { return }
        let taken = take()
        withExtendedLifetime((taken.fire, taken.onCancel)) {}
        taken.dropped?()
    }

    func cancel() {
        let was = state.exchange(HostTimer.cancelled, ordering: .acquiringAndReleasing)
        if was == HostTimer.finished {
            state.store(HostTimer.finished, ordering: .releasing)
            return
        }
        let taken = take()
        withExtendedLifetime((taken.fire, taken.dropped)) {}
        if was == HostTimer.armed { taken.onCancel?() }
    }

    private func take() -> Closures {
        closures.withLock { held in
            defer { held = Closures() }
            return held
        }
    }
}

/// One continuation handed to a host's `submit`: the host owns the +1 reference until it
/// runs the job or drops it. Tagged like a handle, so a job run or dropped a second time
/// (after it was freed) is usually caught by its `released` tag instead of being used.
final class HostJob: HandleObject, @unchecked Sendable {
    // @unchecked: immutable; run or dropped once.
    let continuation: Continuation
    /// What the job keeps alive while the host holds it: its dispatcher (or, for a Swift
    /// job in a box, the host's loop).
    let owner: AnyObject
    /// The mark on the thread that runs it: its dispatcher's identity.
    let identity: ObjectIdentifier

    init(_ continuation: Continuation, keeping owner: AnyObject, identity: ObjectIdentifier) {
        self.continuation = continuation
        self.owner = owner
        self.identity = identity
        super.init(tag: .job)
    }

    /// Takes the host's reference back (nil, with a diagnostic, for a pointer that is not
    /// a live job: run or dropped already, or never a job).
    static func take(_ raw: UnsafeMutableRawPointer?, in function: StaticString) -> HostJob? {
        guard let job = handle(OpaquePointer(raw), .job, as: HostJob.self, in: function) else { return nil }
        // Retire the tag before the reference goes, so a second run/drop while something
        // else still holds the job is caught too.
        job.handleTag = .released
        return Unmanaged.passUnretained(job).takeRetainedValue()
    }
}

/// The `run` a host calls with a job: runs it once (marking the thread as running its
/// dispatcher) and releases it.
let runHostJob: vow_job = { raw in
    guard let raw, let job = HostJob.take(raw, in: "run(job)") else { return }
    ThreadState.running(serialDispatcher: job.identity) {
        job.continuation.run()
    }
}

/// A link handed to a host as its own job (`HostDispatcher.submit`, no object around it:
/// see `Link`, "Handed to a host's loop as its own job"). While the host holds it, the
/// link carries the host's reference and its dispatcher one of its own.
enum HostLink {
    /// Takes the host's job back: the link and its dispatcher, each with the reference the
    /// job held (nil, with a misuse line naming `function`, for anything else: a pointer
    /// that is no handle, a handle of another kind, a promise that never was a job, a job
    /// run or dropped already; a link that was freed after its run is usually caught by
    /// its released tag, its memory not reused yet).
    @inline(__always)
    static func take(_ raw: UnsafeMutableRawPointer, in function: StaticString)
        -> (link: Unmanaged<Continuation>, dispatcher: Unmanaged<HostDispatcher>)? {
        let found = raw.load(fromByteOffset: handleTagOffset, as: UInt32.self)
        guard found == HandleTag.promise.rawValue else {
            reportWrongHandle(found: found, expected: .job, in: function)
            return nil
        }
        guard isThisEnginesObject(raw, .job, in: function) else { return nil }
        let link = Unmanaged<Continuation>.fromOpaque(raw)
        guard let identity = link._withUnsafeGuaranteedRef({ $0.takeBackFromHost() }) else {
            refuse(link, in: function)
            return nil
        }
        let dispatcher = Unmanaged<HostDispatcher>.fromOpaque(UnsafeRawPointer(bitPattern: UInt(bitPattern: identity))!)
        return (link, dispatcher)
    }

    /// The misuse line for a promise that is no job now: "a released handle" for a job run
    /// or dropped already, as for a freed one (vow.h, "Misuse").
    @inline(never)
    private static func refuse(_ link: Unmanaged<Continuation>, in function: StaticString) {
        let finished = link._withUnsafeGuaranteedRef { $0.wasHandedToHost }
        reportWrongHandle(found: (finished ? HandleTag.released : HandleTag.promise).rawValue,
                          expected: .job, in: function)
    }
}

/// The `run` a host calls with a link (`HostLink`): runs it once, marking the thread as
/// running its dispatcher, then lets go of the job's references (the link's last one may
/// free it; the dispatcher's last one runs the host's `destroy`, after the job).
let runHostLink: vow_job = { raw in
    guard let raw, let (link, dispatcher) = HostLink.take(raw, in: "run(job)") else { return }
    ThreadState.running(serialDispatcher: ObjectIdentifier(dispatcher.takeUnretainedValue())) {
        link._withUnsafeGuaranteedRef { $0.run() }
    }
    link.release()
    dispatcher.release()
}

/// Tells a job from the rest by the tag at `handleTagOffset`: a link (a promise's tag),
/// a Swift job, or else a `HostJob` (whose check reports anything that is none of them).
@c @implementation
func vowface_job_drop(_ job: UnsafeMutableRawPointer?) {
    guard let job else { return }
    if isSwiftJob(job) {
        dropSwiftJob(job)
        return
    }
    if job.load(fromByteOffset: handleTagOffset, as: UInt32.self) == HandleTag.promise.rawValue {
        guard let (link, dispatcher) = HostLink.take(job, in: "vow_job_drop") else { return }
        link._withUnsafeGuaranteedRef { $0.dropped() }
        link.release()
        dispatcher.release()
        return
    }
    guard let taken = HostJob.take(job, in: "vow_job_drop") else { return }
    taken.continuation.dropped()
}

/// A Swift dispatcher shown to C as a `vow_dispatcher *`.
///
/// The three built-ins (the library's serial queue, the background pool, inline) are
/// process-lifetime objects that ignore `vow_dispatcher_release`; others are reference
/// counted like every handle and keep their dispatcher alive.
final class DispatcherHandle: HandleObject, @unchecked Sendable {
    // @unchecked: immutable.
    let dispatcher: any Dispatcher
    /// Built-ins ignore retain/release from C.
    let isBuiltIn: Bool

    init(_ dispatcher: any Dispatcher, builtIn: Bool = false) {
        self.dispatcher = dispatcher
        isBuiltIn = builtIn
        super.init(tag: .dispatcher)
    }

    static let librarySerial = DispatcherHandle(Dispatchers.librarySerial, builtIn: true)
    static let background = DispatcherHandle(BackgroundDispatcher.shared, builtIn: true)
    static let inline = DispatcherHandle(InlineDispatcher.shared, builtIn: true)
    /// Stands for "the default at the time a callback is registered".
    static let defaultPlaceholder = DispatcherHandle(DefaultDispatcher.shared, builtIn: true)

    /// The handle C gets for `vow_dispatcher_default()` when the default is a Swift
    /// dispatcher that is not a built-in: made once per default, kept while it stays the
    /// default (the borrowed handle stays valid that long).
    private static let currentDefaultHandle = Locked<DispatcherHandle?>(nil)

    /// The handle of the current default dispatcher (borrowed).
    static func forCurrentDefault() -> HandleObject {
        let current = Dispatchers.currentDefault
        if let builtIn = builtInHandle(for: current) { return builtIn }
        if let host = current as? HostDispatcher { return host }
        let (handle, replaced) = currentDefaultHandle.withLock { cached -> (DispatcherHandle, DispatcherHandle?) in
            if let cached, cached.dispatcher === current { return (cached, nil) }
            let previous = cached
            let made = DispatcherHandle(current)
            cached = made
            return (made, previous)
        }
        withExtendedLifetime(replaced) {}
        return handle
    }

    /// Remembers `handle` as the C face of the default it was just made (so
    /// `vow_dispatcher_default()` hands the same handle back).
    static func rememberAsDefault(_ handle: DispatcherHandle) {
        let replaced = currentDefaultHandle.withLock { cached -> DispatcherHandle? in
            let previous = cached
            cached = handle
            return previous
        }
        withExtendedLifetime(replaced) {}
    }

    /// Forgets the handle made for `dispatcher` as a default (a test loop being released: the
    /// handle must not keep the loop's dispatcher for the rest of the process).
    static func forgetDefaultHandle(of dispatcher: any Dispatcher) {
        let forgotten = currentDefaultHandle.withLock { cached -> DispatcherHandle? in
            guard let handle = cached, handle.dispatcher === dispatcher else { return nil }
            cached = nil
            return handle
        }
        withExtendedLifetime(forgotten) {}
    }

    static func builtInHandle(for dispatcher: any Dispatcher) -> DispatcherHandle? {
        if dispatcher === Dispatchers.librarySerial { return librarySerial }
        if dispatcher === BackgroundDispatcher.shared { return background }
        if dispatcher === InlineDispatcher.shared { return inline }
        if dispatcher === DefaultDispatcher.shared { return defaultPlaceholder }
        return nil
    }
}

/// What a `vow_dispatcher *` points at: a host's loop, or a Swift dispatcher shown to C.
enum CDispatcherObject {
    case host(HostDispatcher)
    case swift(DispatcherHandle)
}

/// The object behind a `vow_dispatcher *` (borrowed), or nil for NULL or a handle of
/// another kind. (Exact type checks: both classes are final.)
func dispatcherObject(_ pointer: OpaquePointer?, in function: StaticString) -> CDispatcherObject? {
    guard let object = handle(pointer, .dispatcher, as: HandleObject.self, in: function) else { return nil }
    if ObjectIdentifier(type(of: object)) == ObjectIdentifier(HostDispatcher.self) {
        return .host(unsafeDowncast(object, to: HostDispatcher.self))
    }
    return .swift(unsafeDowncast(object, to: DispatcherHandle.self))
}

/// Runs `body` with the Swift dispatcher behind a `vow_dispatcher *`, borrowed for the call
/// (the caller's reference keeps it alive: no retain and release per call on the hot
/// `*_on` entry points); `fallback` for NULL or a handle of another kind.
@inline(__always)
func withDispatcherHandle<R>(_ pointer: OpaquePointer?, in function: StaticString,
                             else fallback: @autoclosure () -> R, _ body: (any Dispatcher) -> R) -> R {
    guard let unmanaged = unmanagedHandle(pointer, .dispatcher, as: HandleObject.self, in: function) else {
        return fallback()
    }
    return unmanaged._withUnsafeGuaranteedRef { object in
        if ObjectIdentifier(type(of: object)) == ObjectIdentifier(HostDispatcher.self) {
            return body(unsafeDowncast(object, to: HostDispatcher.self))
        }
        return body(unsafeDowncast(object, to: DispatcherHandle.self).dispatcher)
    }
}

/// The Swift dispatcher behind a `vow_dispatcher *` (borrowed), or nil for NULL or a
/// handle of another kind.
func dispatcherHandle(_ pointer: OpaquePointer?, in function: StaticString) -> (any Dispatcher)? {
    switch dispatcherObject(pointer, in: function) {
    case .host(let host)?: return host
    case .swift(let wrapper)?: return wrapper.dispatcher
    case nil: return nil
    }
}

/// The dispatcher a C call runs on: none named (a plain form: the default dispatcher) or
/// the `d` of an `_on` form, which must be a live `vow_dispatcher *`.
enum CDispatcherArgument {
    case plain
    case on(OpaquePointer?)

    /// The dispatcher; nil (with a diagnostic naming `function`) for an `_on` form whose
    /// `d` is NULL or not a `vow_dispatcher *`.
    @inline(__always)
    func dispatcher(in function: StaticString) -> (any Dispatcher)? {
        switch self {
        case .plain: return DefaultDispatcher.shared
        case .on(let d): return dispatcherHandle(d, in: function)
        }
    }
}

extension VowRuntime {
    /// The Swift face of a C `vow_dispatcher *`: a dispatcher made with
    /// `vow_dispatcher_new` is itself a `Dispatcher`; a Swift dispatcher that was handed to
    /// C comes back as itself. The handle is borrowed; the returned dispatcher holds its
    /// own reference (the host's `destroy` runs only when Swift lets go too). nil for NULL
    /// or a pointer that is not a live `vow_dispatcher` (a line on standard error says
    /// which).
    public static func dispatcher(unsafeHandle: OpaquePointer?) -> (any Dispatcher)? {
        dispatcherHandle(unsafeHandle, in: "VowRuntime.dispatcher(unsafeHandle:)")
    }

    /// The C face of a Swift dispatcher: a `vow_dispatcher *` with a +1 reference that the
    /// receiver releases with `vow_dispatcher_release` (a built-in ignores the release).
    /// A dispatcher that came from C is handed back as its own handle; `.default` stands
    /// for the default at the time a callback is registered, as in Swift.
    public static func unsafeRetainedHandle(for dispatcher: any Dispatcher) -> OpaquePointer {
        if let builtIn = DispatcherHandle.builtInHandle(for: dispatcher) { return builtIn.borrowedHandle }
        if let host = dispatcher as? HostDispatcher { return host.retainedHandle }
        return DispatcherHandle(dispatcher).retainedHandle
    }
}

// MARK: Entry points

@c @implementation
func vowface_dispatcher_new(_ submit: (@convention(c) (UnsafeMutableRawPointer?, vow_job?, UnsafeMutableRawPointer?) -> Void)?,
                               _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guard let submit else {
        destroy?(ctx)
        return nil
    }
    return HostDispatcher(submit: submit, ctx: ctx, destroy: destroy).retainedHandle
}

@c @implementation
func vowface_dispatcher_new_with_timers(
    _ submit: (@convention(c) (UnsafeMutableRawPointer?, vow_job?, UnsafeMutableRawPointer?) -> Void)?,
    _ arm: vow_timer_arm?, _ cancel: vow_timer_cancel?,
    _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
) -> OpaquePointer? {
    guard let submit, let arm else {
        destroy?(ctx)
        return nil
    }
    return HostDispatcher(submit: submit, arm: arm, cancel: cancel, ctx: ctx, destroy: destroy).retainedHandle
}

@c @implementation
func vowface_dispatcher_default() -> OpaquePointer? {
    let current = DispatcherHandle.forCurrentDefault()
    DefaultHold.replace(with: current)
    return current.borrowedHandle
}

@c @implementation
func vowface_dispatcher_background() -> OpaquePointer? {
    DispatcherHandle.background.borrowedHandle
}

@c @implementation
func vowface_dispatcher_inline() -> OpaquePointer? {
    DispatcherHandle.inline.borrowedHandle
}

@c @implementation
func vowface_dispatcher_retain(_ d: OpaquePointer?) -> OpaquePointer? {
    switch dispatcherObject(d, in: "vow_dispatcher_retain") {
    case .host(let host)?: _ = Unmanaged.passUnretained(host).retain()
    case .swift(let wrapper)?: if !wrapper.isBuiltIn { _ = Unmanaged.passUnretained(wrapper).retain() }
    case nil: return nil
    }
    return d
}

@c @implementation
func vowface_dispatcher_release(_ d: OpaquePointer?) {
    switch dispatcherObject(d, in: "vow_dispatcher_release") {
    case .host(let host)?: Unmanaged.passUnretained(host).release()
    case .swift(let wrapper)?: if !wrapper.isBuiltIn { Unmanaged.passUnretained(wrapper).release() }
    case nil: break
    }
}

@c @implementation
func vowface_set_default_dispatcher(_ d: OpaquePointer?) {
    // This thread no longer uses what vow_dispatcher_default handed it (dropped after the
    // switch, so a host dispatcher's destroy can run once nothing else holds it).
    defer { DefaultHold.replace(with: nil) }
    guard let d else {
        Dispatchers.setDefault(nil)
        return
    }
    switch dispatcherObject(d, in: "vow_set_default_dispatcher") {
    case .host(let host)?:
        Dispatchers.setDefault(host)
    case .swift(let wrapper)?:
        // As in Swift, the library's queue and the `.default` placeholder restore the default.
        Dispatchers.setDefault(wrapper.dispatcher)
        if !wrapper.isBuiltIn { DispatcherHandle.rememberAsDefault(wrapper) }
    case nil:
        break
    }
}

/// What makes `vow_dispatcher_default()`'s borrowed answer safe: each thread holds (+1)
/// the dispatcher it was last handed, until it asks again, sets the default, or ends. So
/// a `vow_set_default_dispatcher` on another thread, which drops the setting's reference,
/// cannot free a dispatcher this thread is still passing to `vow_then_on` or retaining.
/// Built-ins live as long as the process and are not held. Only its own thread touches a
/// thread's slot (a pthread key whose destructor releases the hold when the thread ends).
private enum DefaultHold {
    static func replace(with object: HandleObject?) {
        let held: HandleObject?
        if let handle = object as? DispatcherHandle, handle.isBuiltIn { held = nil } else { held = object }
        slot.replace(with: held)
    }

    /// Each thread's hold.
    private static let slot = ThreadSlot()
}
