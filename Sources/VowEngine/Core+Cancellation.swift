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
                let queue = Dispatchers.currentDefault
                for handler in released.cancelHandlers { submitContinuation(handler, to: queue) }
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
    @usableFromInline package final func dependentGone(_ dependent: Core) -> Bool {
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

    /// Tells every upstream this promise waited on that it no longer needs them (a race
    /// that settled, a timeout that fired): each is cancelled under the upstream rule.
    @usableFromInline package final func releaseUpstreams(_ upstreams: [Core]) {
        for source in upstreams where source.dependentGone(self) {
            source.cancel()
        }
    }

    /// Registers a producer's cancel handler: it runs once on the default dispatcher when
    /// this promise is cancelled; at once (queued) if it already was; it is dropped (its
    /// captures released) if the promise settles otherwise.
    @usableFromInline package final func onCancel(_ handler: @escaping @Sendable () -> Void) {
        var flags = lock()
        if !flags.contains(.settled) {
            extras().cancelHandlers.append(ClosureJob(handler))
            unlock(flags)
            return
        }
        unlock(flags)
        flags = []
        if wasCancelled {
            submitContinuation(ClosureJob(handler), to: Dispatchers.currentDefault)
        }
    }
}

extension Continuation {
    /// True if this registration keeps the promise it waits on wanted: it settles a
    /// dependent, unless it is a cleanup link whose promise was already cancelled.
    @usableFromInline package final var isLiveDependent: Bool {
        guard let dependent = dependentPromise else { return false }
        return !(isCleanupLink && dependent.flags.contains(.settled))
    }
}
