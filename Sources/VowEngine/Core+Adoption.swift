/// Adoption: a promise that follows another (Promises/A+ 2.3.2: resolving with a promise,
/// a link whose body returned a promise, a resolver that adopted one).
///
/// The follower registers itself on the source (as an adopter: scheduled inline, it
/// settles as the source did, with the same value or error). Cycles are refused: a promise
/// that would end up waiting on itself is rejected with the cycle error.
///
/// ## Collapsing adoption chains
///
/// A loop whose every step returns the next step's promise (`step(k)` is
/// `value(k).then { step(k - 1) }`) builds a chain of adoptions: the outermost promise `A`
/// follows step 1's promise `X`, which follows step 2's, and so on. Registered the plain
/// way, each promise sits in the handler list of the next and holds it as its upstream,
/// so the whole chain stays alive until the innermost step settles. The engine collapses
/// it instead (as Bluebird does):
///
/// - The rule: when a promise `X` starts following `Y` while every registration on `X`
///   is an adopter (a promise that only follows `X`), and `X` has no cancel handler of
///   its own, `X` hands its adopters over to the end of `Y`'s chain (`Y` itself unless
///   `Y` is forwarded in turn): each adopter's upstream becomes that end and it
///   registers there, in the order it had on `X`. `X` is then *forwarded*: it keeps `Y`
///   as its upstream but is registered nowhere, so unless somebody else holds it, it is
///   freed now, and so is every middle step of the loop. The outermost promise always
///   waits on the step that runs now; memory stays constant however long the loop runs.
/// - Observing a forwarded promise (attaching anything to it, `isPending`, reading its
///   value or error, waiting) makes it rejoin: it takes the end of its chain as its
///   upstream and registers there, or settles at once if the end already has
///   (`rejoin()`). No walk recurses: the end is found by a loop, and a chain of forwarded
///   promises is freed through the per-thread deferred releases.
/// - What does not change: each adopter settles with the same value or error as before,
///   inline when the end settles; handlers registered on one promise run in their order;
///   unhandled rejections are reported once per branch (a promise that was handed over
///   had handlers); cancelling the outermost promise removes it from the end it waits
///   on, and carries the request to the step running now and its producer's cancel
///   handlers when nothing else needs them.
/// - What does: the promises in the middle no longer stand between the outermost one
///   and the end. Cancelling a middle promise that someone kept settles that promise
///   only; its former adopters keep following the end (a promise with a cancel handler,
///   or with any registration that is not an adopter, never forwards, so a middle that
///   anyone chained on or could be cancelled from a producer keeps the plain rules).
extension Core {
    /// Makes this promise follow `source`. The caller has the right to settle this promise
    /// (it claimed the resolver, or runs the link's body). Rejects with the cycle error if
    /// `source` is this promise or waits on it. Does nothing if this promise is settled.
    /// Collapses the chain when every registration on this promise is an adopter (see
    /// above).
    @usableFromInline package final func follow(_ source: Core) {
        if source === self || source.waits(on: self) {
            reject(EngineError.cycle)
            return
        }
        var flags = lock()
        guard !flags.contains(.settled) else {
            unlock(flags)
            return
        }
        let previous = replaceUpstream(with: source)
        flags.insert(.adopting)
        if handlersConsistOfAdopters, existingExtras?.cancelHandlers.isEmpty ?? true {
            flags.insert(.forwarded)
            let adopters = takeHandlers()
            unlock(flags)
            withExtendedLifetime(previous) {}
            handOver(adopters, to: source)
            return
        }
        unlock(flags)
        withExtendedLifetime(previous) {}
        source.attach(self)
    }

    /// Moves `adopters` (taken from this promise, which is now forwarded to `source`) to
    /// the end of `source`'s chain. An adopter cancelled meanwhile stays behind: if every
    /// adopter was, this promise registers on `source` as usual and is cancelled, as
    /// `dependentGone` would have done for the last of them.
    final func handOver(_ adopters: consuming HandlerList, to source: Core) {
        let end = source.adoptionEnd()
        var moved = false
        adopters.forEach { continuation in
            let adopter = unsafeDowncast(continuation, to: Core.self)
            let flags = adopter.lock()
            let pending = !flags.contains(.settled) && adopter.upstream === self
            let previous = pending ? adopter.replaceUpstream(with: end) : nil
            adopter.unlock(flags)
            withExtendedLifetime(previous) {}
            guard pending else { return }
            moved = true
            end.attach(adopter)
            // Cancelled between the move and the registration: its own `dependentGone`
            // may have looked for it before it was there.
            if adopter.flags.contains(.cancelled), end.dependentGone(adopter) { end.cancel() }
        }
        guard !moved else { return }
        var flags = lock()
        flags.remove(.forwarded)
        unlock(flags)
        source.attach(self)
        cancel()
    }

    /// The end of the chain of forwarded promises that starts here: the first one that is
    /// settled or not forwarded (a loop, no recursion).
    final func adoptionEnd() -> Core {
        var current: Core = self
        while true {
            let flags = current.lock()
            let next = flags.contains(.forwarded) && !flags.contains(.settled) ? current.upstream : nil
            current.unlock(flags)
            guard let next else { return current }
            current = next
        }
    }

    /// True if this promise, or a promise it waits on through its chain of upstreams, is
    /// `target` (a walk over pending promises only, no recursion).
    ///
    /// Each step looks at the next promise while the current one is locked (the current
    /// one holds it then), without taking a reference: when the next one is `target` or
    /// settled, the walk ends there (the common case: a promise just made, waiting on a
    /// settled one). Only a pending next promise is retained and walked to; `self` is
    /// walked from as the caller holds it.
    @usableFromInline final func waits(on target: Core) -> Bool {
        var current = Unmanaged.passUnretained(self)
        var retained = false
        while true {
            let next: Unmanaged<Core>?
            let found: Bool
            (found, next) = current._withUnsafeGuaranteedRef { promise in
                let flags = promise.lock()
                guard !flags.contains(.settled), let peeked = promise.unretainedUpstream else {
                    promise.unlock(flags)
                    return (false, nil)
                }
                let (isTarget, isSettled) = peeked._withUnsafeGuaranteedRef { next in
                    (next === target, next.flags.contains(.settled))
                }
                if isTarget || isSettled {
                    promise.unlock(flags)
                    return (isTarget, nil)
                }
                _ = peeked.retain()
                promise.unlock(flags)
                return (false, peeked)
            }
            if retained { current.release() }
            guard let next else { return found }
            current = next
            retained = true
        }
    }

    /// A continuation attaches to a forwarded promise: it is registered here, and the
    /// promise rejoins the end of its chain (see above) so that it settles.
    @usableFromInline final func attachToForwarded(_ continuation: Continuation, countsAsHandler: Bool) {
        var flags = lock()
        if countsAsHandler { flags.insert(.hadHandlers) }
        if flags.contains(.settled) {
            unlock(flags)
            scheduleSettled(continuation)
            return
        }
        appendHandler(continuation)
        unlock(flags)
        rejoin()
    }

    /// An observer reads a forwarded promise (see `observedFlags`): it rejoins, and the
    /// flags are read again.
    @usableFromInline final func rejoinForObserver() -> Flags {
        rejoin()
        return flags
    }

    /// A forwarded promise registers on the end of its chain, which becomes its upstream
    /// (the forwarded promises between are let go), or settles at once as the end did.
    /// Does nothing if it is no longer forwarded (another thread rejoined it first).
    final func rejoin() {
        var flags = lock()
        guard flags.contains(.forwarded), !flags.contains(.settled), let source = upstream else {
            unlock(flags)
            return
        }
        flags.remove(.forwarded)
        unlock(flags)
        let end = source.adoptionEnd()
        flags = lock()
        let previous = !flags.contains(.settled) && upstream === source ? replaceUpstream(with: end) : nil
        unlock(flags)
        flags = []
        withExtendedLifetime(previous) {}
        if end.flags.contains(.settled) {
            settle(like: end)
        } else {
            end.attach(self)
        }
    }
}
