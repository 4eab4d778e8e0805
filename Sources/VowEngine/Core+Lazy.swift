/// Lazy promises: a pending promise whose producer starts only when somebody wants the
/// outcome (Hydra's lazy promise).
///
/// A lazy promise carries the `lazy` flag and keeps its starter (`LazyStart`) in its
/// extras. The first continuation that attaches (a handler, an adopter, a waiter, an
/// awaiting task) clears the flag and hands the starter to its dispatcher, after the
/// continuation is registered; the starter then runs the producer once with the promise.
/// The cost for every other promise is the one flag test in `attach`, on flags it holds
/// anyway.
///
/// Cancelled before it started, the producer never runs: the starter is also registered
/// as a cancel handler, so it is released (and what the producer captured with it) as the
/// cancellation's handlers run. Dropped before it started, the promise frees the starter
/// with its extras. Either way the producer's captures are released exactly once.
///
/// Ownership: the starter holds the promise only once it is started (it must keep the
/// promise alive until the producer has it), so an unstarted lazy promise that nobody
/// references is freed as usual.
extension Core {
    /// A pending lazy promise whose `producer` runs once, on `dispatcher` (the `.default`
    /// placeholder is resolved now), when the first continuation attaches. The producer
    /// receives the promise to settle it (the face wraps it in its resolver).
    package static func lazy(on dispatcher: any Dispatcher,
                             _ producer: @escaping @Sendable (Core) -> Void) -> Core {
        let core = Core()
        let resolved = Dispatchers.resolve(dispatcher)
        let starter = LazyStart(on: resolved, producer)
        var flags = core.lock()
        let extras = core.extras()
        extras.lazyStart = starter
        extras.cancelHandlers.append(starter)
        // Deadlock detection: a wait on this promise from a job of `resolved` (if serial)
        // could never let the producer run.
        extras.settler = ObjectIdentifier(resolved)
        flags.insert(.lazy)
        core.unlock(flags)
        return core
    }

    /// The hook of `attach` for a lazy promise (the lock held, `flags` as locked, the
    /// `lazy` flag set): registers `continuation`, clears the flag and starts the
    /// producer. A lazy promise settled unstarted (cancelled: settling leaves the flag, to
    /// keep the settle path free of it) only schedules `continuation`.
    @usableFromInline final func attachStartingLazy(_ continuation: Continuation, _ flags: Flags) {
        var flags = flags
        flags.remove(.lazy)
        if flags.contains(.settled) {
            unlock(flags)
            scheduleSettled(continuation)
            return
        }
        appendHandler(continuation)
        let extras = self.extras()
        let starter = extras.lazyStart
        extras.lazyStart = nil
        extras.cancelHandlers.removeAll { $0 === starter }
        starter?.promise = self
        unlock(flags)
        starter?.submit()
    }

    /// True while this promise is lazy and its producer has not started (nor will: it
    /// may have been cancelled first).
    final var isLazyUnstarted: Bool { flags.contains(.lazy) }

    /// After the producer returned: the promise is no longer settled by a job of the
    /// dispatcher it ran on (it may settle from anywhere now), so waits stop counting it
    /// for deadlock detection.
    fileprivate final func lazyProducerReturned(from dispatcher: ObjectIdentifier) {
        let flags = lock()
        if !flags.contains(.settled), let extras = existingExtras, extras.settler == dispatcher { extras.settler = nil }
        unlock(flags)
    }
}

/// The starter of a lazy promise (see above). Also a cancel handler of its promise while
/// unstarted: run as one (the promise was cancelled), it only lets go of the producer.
///
/// Threads: `promise` is set under the promise's lock before `submit`; `run` (or
/// `dropped`) is called once by the dispatcher, or once as a cancel handler, never both
/// (the start removes it from the cancel handlers under the same lock).
final class LazyStart: Continuation, @unchecked Sendable {
    // @unchecked: see above.
    private let dispatcher: any Dispatcher
    private var producer: (@Sendable (Core) -> Void)?
    /// The promise, once started (nil while the starter is only a cancel handler).
    fileprivate var promise: Core?

    init(on dispatcher: any Dispatcher, _ producer: @escaping @Sendable (Core) -> Void) {
        self.dispatcher = dispatcher
        self.producer = producer
        super.init(tag: Continuation.continuationTag)
    }

    fileprivate func submit() {
        submitContinuation(self, to: dispatcher)
    }

    override func run() {
        let producer = self.producer
        self.producer = nil
        guard let promise else { return }
        self.promise = nil
        if promise.isPending, let producer {
            producer(promise)
            promise.lazyProducerReturned(from: ObjectIdentifier(dispatcher))
        }
    }

    /// The dispatcher dropped the start: the producer never runs, and the promise is
    /// cancelled so that what waits on it ends.
    override func dropped() {
        producer = nil
        let promise = self.promise
        self.promise = nil
        promise?.cancel()
    }
}
