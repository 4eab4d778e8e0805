/// Cancellation (PromiseKit 2's rules, plus real cancellation): `cancel()` rejects a
/// pending promise with the cancellation error at once, then carries the request upstream,
/// to every promise it waits on that no other live dependent still needs; at the head of
/// the chain the producer's cancel handlers run, once, on the default dispatcher.
extension Core {
    /// Cancels this promise if it is pending (see above). Iterative: a cancellation
    /// travelling up a long chain does not recurse.
    @usableFromInline package final func cancel() {
        var work: [Core] = [self]
        while let core = work.popLast() {
            guard let released = core.settle(StoredValue(error: EngineError.cancelled), rejected: true,
                                              viaResolver: false, cancelled: true) else { continue }
            // A cancelled link's value/error body will never run: let it go now (a C
            // callback's destroy runs at once, not when its queued job comes up).
            if !core.isCleanupLink { core.disposeUnrun() }
            if !released.cancelHandlers.isEmpty {
                // "The default" is read here, when the cancellation arrives; a handler
                // registered for a dispatcher of its own goes there.
                let queue = Dispatchers.currentDefault
                for handler in released.cancelHandlers { submitCancelHandler(handler, defaultQueue: queue) }
            }
            if let upstream = released.upstream, upstream.dependentGone(core) { work.append(upstream) }
            for upstream in released.moreUpstreams where upstream.dependentGone(core) { work.append(upstream) }
        }
    }

    /// `dependent` no longer needs this promise (it was cancelled, or a race it fed has
    /// settled). Its value/error continuations are removed (and disposed: their captures,
    /// a C context's `destroy`, are released); a cleanup link stays (it still runs) but no
    /// longer counts. Returns true if this promise is pending and now has no live
    /// dependent, so the cancellation should reach it.
    @usableFromInline final func dependentGone(_ dependent: Core) -> Bool {
        let flags = lock()
        var removed: [Continuation] = []
        var found = false
        var live = false
        if !flags.contains(.settled), hasHandlers {
            var kept = HandlerList.none
            for continuation in takeHandlers().all {
                if continuation.dependentPromise === dependent {
                    found = true
                    if continuation.isCleanupLink {
                        kept.append(continuation)
                    } else {
                        removed.append(continuation)
                    }
                    continue
                }
                kept.append(continuation)
                if continuation.isLiveDependent { live = true }
            }
            putHandlers(kept)
        }
        unlock(flags)
        for continuation in removed { continuation.disposeUnrun() }
        return !flags.contains(.settled) && found && !live
    }

    /// Cancels this promise if it is pending and no registration keeps it wanted (no live
    /// dependent): a promise handed to one that no longer wants it (`follow` on a promise
    /// cancelled meanwhile).
    final func cancelIfUnwanted() {
        let flags = lock()
        var wanted = false
        if !flags.contains(.settled), hasHandlers {
            let handlers = takeHandlers()
            wanted = handlers.all.contains { $0.isLiveDependent }
            putHandlers(handlers)
        }
        unlock(flags)
        if !flags.contains(.settled), !wanted { cancel() }
    }

    /// Tells every upstream this promise waited on that it no longer needs them (a race
    /// that settled, a timeout that fired): each is cancelled under the upstream rule.
    @usableFromInline final func releaseUpstreams(_ upstreams: [Core]) {
        for source in upstreams where source.dependentGone(self) {
            source.cancel()
        }
    }

    /// Registers a producer's cancel handler: it runs once on the default dispatcher (as it
    /// is when the cancellation arrives) when this promise is cancelled; at once (queued) if
    /// it already was; it is dropped (its captures released) if the promise settles
    /// otherwise.
    @usableFromInline package final func onCancel(_ handler: @escaping @Sendable () -> Void) {
        addCancelHandler(ClosureJob(handler))
    }

    /// `onCancel(_:)` with the handler run on `dispatcher` (fixed now) instead of the
    /// default dispatcher as it is when the cancellation arrives. Dropped by `dispatcher`,
    /// the handler never runs and its captures are released.
    @usableFromInline package final func onCancel(on dispatcher: any Dispatcher,
                                                  _ handler: @escaping @Sendable () -> Void) {
        addCancelHandler(TargetedJob(ClosureJob(handler), on: dispatcher))
    }

    private final func addCancelHandler(_ job: Continuation) {
        var flags = lock()
        if !flags.contains(.settled) {
            extras().cancelHandlers.append(job)
            unlock(flags)
            return
        }
        unlock(flags)
        flags = []
        if wasCancelled {
            submitCancelHandler(job, defaultQueue: Dispatchers.currentDefault)
        }
    }
}

/// A cancel handler for a dispatcher of its own (`onCancel(on:_:)`): it is never run
/// itself; `submitCancelHandler` submits `job` to `target`. Freed unsubmitted (the promise
/// settled otherwise), it frees `job`, and so the handler's captures.
final class TargetedJob: Continuation, @unchecked Sendable {
    // @unchecked: immutable after init.
    let job: Continuation
    let target: any Dispatcher

    init(_ job: Continuation, on target: any Dispatcher) {
        self.job = job
        self.target = target
        super.init(tag: Continuation.continuationTag)
    }
}

/// Submits a cancel handler: to its own dispatcher (`TargetedJob`), or to `queue`, the
/// default dispatcher read when the cancellation arrived.
private func submitCancelHandler(_ handler: Continuation, defaultQueue queue: any Dispatcher) {
    if ObjectIdentifier(type(of: handler)) == ObjectIdentifier(TargetedJob.self) {
        let targeted = unsafeDowncast(handler, to: TargetedJob.self)
        submitContinuation(targeted.job, to: targeted.target)
    } else {
        submitContinuation(handler, to: queue)
    }
}

extension Continuation {
    /// True if this registration keeps the promise it waits on wanted: it settles a
    /// dependent, unless it is a cleanup link whose promise was already cancelled.
    @usableFromInline final var isLiveDependent: Bool {
        guard let dependent = dependentPromise else { return false }
        return !(isCleanupLink && dependent.flags.contains(.settled))
    }
}
