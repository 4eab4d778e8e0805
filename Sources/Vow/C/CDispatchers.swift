import CVow

// Dispatchers (vow.h, "Dispatchers"). A `vow_dispatcher *` is either a `HostDispatcher`
// (made by `vow_dispatcher_new`: the host's loop) or a `DispatcherHandle` (a Swift
// dispatcher shown to C: the three built-ins, or any other).

/// A dispatcher backed by a host's event loop: C's `vow_dispatcher_new`.
///
/// `dispatch` hands the work to the host's `submit(ctx, run, job)`: `job` is a retained box
/// around the work, `run` a static trampoline that the host calls exactly once, later, in
/// submission order, on its loop's thread. The trampoline marks that thread as running
/// this (serial) dispatcher for the duration of the job, so a `vow_wait` inside it that
/// needs a later job of this dispatcher reports a deadlock instead of hanging. `submit` is
/// never called under a library lock. The host's `destroy(ctx)` runs in `deinit`, when the
/// last reference (C's, the default setting's, or a registered callback's) goes.
final class HostDispatcher: HandleObject, Dispatcher, @unchecked Sendable {
    // @unchecked: immutable; the host vouches that `submit` may be called from any thread
    // with `ctx` (header, vow_dispatcher_new).
    typealias Submit = @convention(c) (UnsafeMutableRawPointer?, vow_job?, UnsafeMutableRawPointer?) -> Void

    private let submit: Submit
    private let ctx: UnsafeMutableRawPointer?
    private let destroy: CDestroy?

    init(submit: @escaping Submit, ctx: UnsafeMutableRawPointer?, destroy: CDestroy?) {
        self.submit = submit
        self.ctx = ctx
        self.destroy = destroy
        super.init(tag: .dispatcher)
    }

    deinit { destroy?(ctx) }

    /// FIFO, one job at a time: the host's promise.
    var isSerial: Bool { true }

    func dispatch(_ work: @escaping @Sendable () -> Void) {
        let job = HostJob(work: work, dispatcher: ObjectIdentifier(self))
        submit(ctx, runHostJob, Unmanaged.passRetained(job).toOpaque())
    }
}

/// One piece of work handed to a host's `submit`, retained until the host runs it.
private final class HostJob {
    let work: @Sendable () -> Void
    let dispatcher: ObjectIdentifier

    init(work: @escaping @Sendable () -> Void, dispatcher: ObjectIdentifier) {
        self.work = work
        self.dispatcher = dispatcher
    }
}

/// The `run` a host calls with a job: runs it once (marking the thread as running its
/// dispatcher) and releases it.
private let runHostJob: vow_job = { raw in
    guard let raw else { return }
    let job = Unmanaged<HostJob>.fromOpaque(raw).takeRetainedValue()
    let state = ThreadState.current
    let outer = state.runningSerialDispatcher
    state.runningSerialDispatcher = job.dispatcher
    job.work()
    state.runningSerialDispatcher = outer
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

    static let librarySerial = DispatcherHandle(Vow.librarySerial, builtIn: true)
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
        let current = Vow.currentDefaultDispatcher
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

    static func builtInHandle(for dispatcher: any Dispatcher) -> DispatcherHandle? {
        if dispatcher === Vow.librarySerial { return librarySerial }
        if dispatcher === BackgroundDispatcher.shared { return background }
        if dispatcher === InlineDispatcher.shared { return inline }
        if dispatcher === DefaultDispatcher.shared { return defaultPlaceholder }
        return nil
    }
}

/// The Swift dispatcher behind a `vow_dispatcher *` (borrowed), or nil for NULL or a
/// handle of another kind.
func dispatcherHandle(_ pointer: OpaquePointer?, in function: StaticString) -> (any Dispatcher)? {
    guard let object = handle(pointer, .dispatcher, as: HandleObject.self, in: function) else { return nil }
    if let host = object as? HostDispatcher { return host }
    return (object as? DispatcherHandle)?.dispatcher
}

extension Vow {
    /// The Swift face of a C `vow_dispatcher *`: a dispatcher made with
    /// `vow_dispatcher_new` is itself a `Dispatcher`; a Swift dispatcher that was handed to
    /// C comes back as itself. The handle is borrowed; the returned dispatcher holds its
    /// own reference (the host's `destroy` runs only when Swift lets go too). nil for NULL
    /// or a pointer that is not a live `vow_dispatcher` (a line on standard error says
    /// which).
    public static func dispatcher(unsafeHandle: OpaquePointer?) -> (any Dispatcher)? {
        dispatcherHandle(unsafeHandle, in: "Vow.dispatcher(unsafeHandle:)")
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
public func vow_dispatcher_new(_ submit: (@convention(c) (UnsafeMutableRawPointer?, vow_job?, UnsafeMutableRawPointer?) -> Void)?,
                               _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guard let submit else {
        destroy?(ctx)
        return nil
    }
    return HostDispatcher(submit: submit, ctx: ctx, destroy: destroy).retainedHandle
}

@c @implementation
public func vow_dispatcher_default() -> OpaquePointer? {
    DispatcherHandle.forCurrentDefault().borrowedHandle
}

@c @implementation
public func vow_dispatcher_background() -> OpaquePointer? {
    DispatcherHandle.background.borrowedHandle
}

@c @implementation
public func vow_dispatcher_inline() -> OpaquePointer? {
    DispatcherHandle.inline.borrowedHandle
}

@c @implementation
public func vow_dispatcher_retain(_ d: OpaquePointer?) -> OpaquePointer? {
    guard let object = handle(d, .dispatcher, as: HandleObject.self, in: "vow_dispatcher_retain") else { return nil }
    if (object as? DispatcherHandle)?.isBuiltIn != true {
        _ = Unmanaged.passUnretained(object).retain()
    }
    return d
}

@c @implementation
public func vow_dispatcher_release(_ d: OpaquePointer?) {
    guard let object = handle(d, .dispatcher, as: HandleObject.self, in: "vow_dispatcher_release") else { return }
    if (object as? DispatcherHandle)?.isBuiltIn != true {
        Unmanaged.passUnretained(object).release()
    }
}

@c @implementation
public func vow_set_default_dispatcher(_ d: OpaquePointer?) {
    guard let d else {
        Vow.setDefaultDispatcher(nil)
        return
    }
    guard let object = handle(d, .dispatcher, as: HandleObject.self, in: "vow_set_default_dispatcher") else { return }
    if let host = object as? HostDispatcher {
        Vow.setDefaultDispatcher(host)
    } else if let wrapper = object as? DispatcherHandle {
        // As in Swift, the library's queue and the `.default` placeholder restore the default.
        Vow.setDefaultDispatcher(wrapper.dispatcher)
        if !wrapper.isBuiltIn { DispatcherHandle.rememberAsDefault(wrapper) }
    }
}
