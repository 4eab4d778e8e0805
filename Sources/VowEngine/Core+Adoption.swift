import Synchronization

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
    /// `source` is this promise or waits on it. Does nothing if this promise is settled,
    /// except that a promise cancelled meanwhile (while the body that made `source` ran)
    /// lets `source` go under the upstream rule.
    /// Collapses the chain when every registration on this promise is an adopter (see
    /// above).
    @usableFromInline package final func follow(_ source: Core) {
        let epoch = AdoptionEpoch.current
        if source === self || source.waits(on: self) {
            reject(EngineError.cycle)
            return
        }
        var flags = lock()
        guard !flags.contains(.settled) else {
            unlock(flags)
            // Cancelled while the body that returned `source` ran: nobody here wants it
            // any more, so it is let go under the upstream rule (cancelled unless
            // something else waits on it), as it would have been had it been adopted
            // before the cancellation.
            if flags.contains(.cancelled) { source.cancelIfUnwanted() }
            return
        }
        let previous = replaceUpstream(with: source)
        flags.insert(.adopting)
        if handlersConsistOfAdopters, existingExtras?.cancelHandlers.isEmpty ?? true {
            flags.insert(.forwarded)
            let adopters = takeHandlers()
            unlock(flags)
            withExtendedLifetime(previous) {}
            if AdoptionEpoch.closedCycle(following: source, from: self, since: epoch) {
                // Not forwarded after all: the adopters hear the cycle error from here.
                var flags = lock()
                flags.remove(.forwarded)
                unlock(flags)
                reject(EngineError.cycle)
                adopters.scheduleAll(after: self)
                return
            }
            handOver(adopters, to: source)
            return
        }
        unlock(flags)
        withExtendedLifetime(previous) {}
        if AdoptionEpoch.closedCycle(following: source, from: self, since: epoch) {
            reject(EngineError.cycle)
            return
        }
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

    /// True if `target` is reached from this promise through what pending promises wait
    /// on: a promise's upstream, every input of a combinator's result (its
    /// `GatherState`), the extra upstreams in its `Extras`, and the promises its producer
    /// made and waits on (`producerInputs`: a bounded combinator's pending inputs, a
    /// retry's running attempt). A walk over pending promises
    /// only, no recursion; no lock is held while another is taken, and no user code runs.
    ///
    /// A chain (each promise waits on at most one: nearly every walk) is walked as a
    /// chain: each step looks at the next promise while the current one is locked (the
    /// current one holds it then), without taking a reference, and when the next one is
    /// `target` or settled the walk ends there (the common case: a promise just made,
    /// waiting on a settled one); only a pending next promise is retained and walked to.
    /// From the first promise that waits on more than one, the walk goes on as a graph
    /// search (`WaitGraph`): every promise reached is held and visited once, so a shared
    /// input or a lattice of combinators costs one visit per promise, not one per path.
    @usableFromInline @inline(__always) final func waits(on target: Core) -> Bool {
        var current = Unmanaged.passUnretained(self)
        var retained = false
        while true {
            let step = current._withUnsafeGuaranteedRef { $0.chainStep(toward: target) }
            switch step {
            case .next(let next):
                if retained { current.release() }
                current = next
                retained = true
            case .end(let found):
                if retained { current.release() }
                return found
            case .branches:
                let promise = retained ? current.takeRetainedValue() : current.takeUnretainedValue()
                return WaitGraph(from: promise).reaches(target)
            }
        }
    }

    /// A step of the chain walk of `waits(on:)`: the common case (a pending promise whose
    /// back word is its upstream) inline, the others in `otherChainStep`.
    @inline(__always)
    private final func chainStep(toward target: Core) -> ChainStep {
        let flags = lock()
        let word = backOrType
        guard !flags.contains(.settled), word != 0, !isInstance(word, of: Extras.self),
              !isInstance(word, of: GatherState.self) else {
            return otherChainStep(toward: target, flags)
        }
        return peek(Unmanaged<Core>.fromOpaque(UnsafeRawPointer(bitPattern: word)!), toward: target, flags)
    }

    /// `chainStep` for a settled promise, one that waits on no promise (unless it is a
    /// bounded combinator's result: its inputs live in its run), or whose back word is its
    /// `Extras` or a combinator's `GatherState`. Called with the lock held (`flags`);
    /// unlocks.
    @inline(never)
    private final func otherChainStep(toward target: Core, _ flags: Flags) -> ChainStep {
        let word = backOrType
        if flags.contains(.settled) || word == 0 {
            unlock(flags)
            return !flags.contains(.settled) && flags.contains(.hasProducerInputs) ? .branches : .end(found: false)
        }
        if isInstance(word, of: Extras.self) {
            let extras = Unmanaged<Extras>.fromOpaque(UnsafeRawPointer(bitPattern: word)!).takeUnretainedValue()
            if extras.moreUpstreams.isEmpty, let upstream = extras.upstream {
                return peek(Unmanaged.passUnretained(upstream), toward: target, flags)
            }
            let branches = !extras.moreUpstreams.isEmpty
            unlock(flags)
            return branches || flags.contains(.hasProducerInputs) ? .branches : .end(found: false)
        }
        unlock(flags)
        return .branches  // a combinator's result
    }

    /// The end of a chain step: `peeked` (held by this promise, whose lock is held with
    /// `flags`) is looked at without a reference; only a pending promise that is not the
    /// target is retained, for the walk to go on to. Unlocks.
    @inline(__always)
    private final func peek(_ peeked: Unmanaged<Core>, toward target: Core, _ flags: Flags) -> ChainStep {
        let (isTarget, isSettled) = peeked._withUnsafeGuaranteedRef { next in
            (next === target, next.flags.contains(.settled))
        }
        if isTarget || isSettled {
            unlock(flags)
            return .end(found: isTarget)
        }
        _ = peeked.retain()
        unlock(flags)
        return .next(peeked)
    }

    /// One step of the graph search (`WaitGraph`): what this promise waits on, read under
    /// its lock (a bounded combinator's pending inputs under its run's lock, after this
    /// one's is released).
    final func waitStep(toward target: Core) -> WaitStep {
        let flags = lock()
        guard !flags.contains(.settled) else {
            unlock(flags)
            return .done
        }
        let word = backOrType
        let single: Unmanaged<Core>
        if word == 0 {
            unlock(flags)
            return flags.contains(.hasProducerInputs) ? .many(producerInputs) : .done
        } else if isInstance(word, of: Extras.self) {
            let extras = Unmanaged<Extras>.fromOpaque(UnsafeRawPointer(bitPattern: word)!).takeUnretainedValue()
            if _slowPath(!extras.moreUpstreams.isEmpty) {
                let (upstream, more) = (extras.upstream, extras.moreUpstreams)
                unlock(flags)
                return .many((upstream.map { [$0] } ?? []) + more)
            }
            guard let upstream = extras.upstream else {
                unlock(flags)
                return flags.contains(.hasProducerInputs) ? .many(producerInputs) : .done
            }
            single = Unmanaged.passUnretained(upstream)
        } else if _slowPath(isInstance(word, of: GatherState.self)) {
            let inputs = gatheredInputs(word)
            unlock(flags)
            return .many(inputs)
        } else {
            single = Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word)!)
        }
        let (isTarget, isSettled) = single._withUnsafeGuaranteedRef { next in
            (next === target, next.flags.contains(.settled))
        }
        if isTarget || isSettled {
            unlock(flags)
            return isTarget ? .found : .done
        }
        _ = single.retain()
        unlock(flags)
        return .one(single)
    }

    /// The promises this one's producer made and waits on, which no word of the promise
    /// holds (the `hasProducerInputs` flag says it has some): a bounded combinator's
    /// pending inputs, a retry's running attempt. Read without this promise's lock held;
    /// the producer's own lock guards them.
    final var producerInputs: [Core] {
        (self as? any ProducerInputs)?.inputsMade ?? []
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

/// A step of the chain walk of `Core.waits(on:)`.
enum ChainStep {
    /// The walk ends: found the target, or no pending promise to go on to.
    case end(found: Bool)
    /// The one pending promise this one waits on, retained for the walk.
    case next(Unmanaged<Core>)
    /// It waits on more than one: the graph search takes over.
    case branches
}

/// What one step of the graph search (`WaitGraph`) found a promise waiting on.
enum WaitStep {
    /// No pending promise (it is settled, waits on no promise, or on one that settled).
    case done
    /// The target.
    case found
    /// One pending promise, retained for the walk.
    case one(Unmanaged<Core>)
    /// More than one (some may have settled): a combinator's inputs, extra upstreams, a
    /// bounded combinator's pending inputs.
    case many([Core])
}

/// The graph search of `Core.waits(on:)`, once a promise that waits on more than one was
/// reached: every promise visited is held here until the walk ends (so no identifier is
/// reused meanwhile) and visited once; `pending` holds those still to look at. Out of the
/// chain walk's way: a chain never makes one.
final class WaitGraph {
    private var visited: [ObjectIdentifier: Core] = [:]
    private var pending: [Core] = []

    /// Starts at `promise`.
    init(from promise: Core) {
        visit(promise)
    }

    /// True if `target` is reached from the first promise.
    func reaches(_ target: Core) -> Bool {
        while let promise = pending.popLast() {
            switch promise.waitStep(toward: target) {
            case .done: break
            case .found: return true
            case .one(let next): visit(next.takeRetainedValue())
            case .many(let upstreams): if visit(upstreams, target) { return true }
            }
        }
        return false
    }

    /// Adds `promise` to look at, unless it was visited.
    private func visit(_ promise: Core) {
        guard visited.updateValue(promise, forKey: ObjectIdentifier(promise)) == nil else { return }
        pending.append(promise)
    }

    /// Adds the pending ones of `upstreams` to look at; true if one of them is `target`.
    private func visit(_ upstreams: [Core], _ target: Core) -> Bool {
        for upstream in upstreams {
            if upstream === target { return true }
            if !upstream.flags.contains(.settled) { visit(upstream) }
        }
        return false
    }
}

/// A promise settled by a producer that waits on promises it made, which no word of the
/// promise holds (it carries the `hasProducerInputs` flag): a bounded combinator's result
/// (`LimitedResult`), a retry's (`RetryResult`).
protocol ProducerInputs: AnyObject {
    /// The promises the producer made and waits on now, read under the producer's lock.
    var inputsMade: [Core] { get }
}

/// Cycles that two threads close at once. `follow` checks for a cycle before it publishes
/// its new upstream, so two promises that adopt each other on two threads at the same
/// time could each pass the check and end up waiting on each other forever. Every follow
/// of a pending source counts itself here after publishing its upstream (one atomic
/// add); a follow that finds the count moved since it started its check (another follow
/// published meanwhile) walks again, now that both upstreams are visible, and rejects
/// with the cycle error if it closed one. Of two follows that close a cycle together, the
/// one that counts last always sees the other: either its count moved, or the other
/// published before it checked (the count's release and acquire order the upstream
/// words). Without another follow in flight, the price is the add.
enum AdoptionEpoch {
    /// How many follows of a pending source published their upstream.
    private static let published = Atomic<UInt>(0)

    /// Read before a follow's first check.
    @inline(__always)
    static var current: UInt { published.load(ordering: .acquiring) }

    /// Counts a follow of `source` by `follower` that published its upstream, and tells
    /// whether it closed a cycle that the first check (made at `epoch`) could not see.
    @inline(__always)
    static func closedCycle(following source: Core, from follower: Core, since epoch: UInt) -> Bool {
        guard !source.flags.contains(.settled) else { return false }  // a settled source waits on nothing
        let before = published.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        return before != epoch && source.waits(on: follower)
    }
}
