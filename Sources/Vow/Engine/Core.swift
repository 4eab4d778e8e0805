/// The promise object that `Promise<T>`, `AnyPromise` and C's `vow_promise` are views of.
///
/// State machine: pending, then fulfilled or rejected once. Everything mutable is guarded
/// by `lock`, and no user code runs while it is held: settling moves the handler list out
/// under the lock and schedules the handlers after releasing it; each handler runs on its
/// own dispatcher.
///
/// References: a handler holds the promise it settles (its dependent), and a dependent
/// holds its upstream (for cancellation) until it settles. The resulting cycle is broken
/// when either side settles, and a pending promise always settles eventually (a resolver
/// released unused rejects it with the broken-promise error).
///
/// Unhandled errors: a core that is deallocated rejected, that never had a handler
/// attached (it is the end of its branch) and whose rejection was never observed by a
/// waiter, reports its error once to the process-wide handler, from `deinit`, on the
/// thread that drops the last reference.
@usableFromInline
final class Core: HandleObject, @unchecked Sendable {
    // @unchecked: every mutable stored property is read and written under `lock` only.

    enum State {
        case pending
        case fulfilled(Any)
        case rejected(any Error)
    }

    struct Flags: OptionSet {
        let rawValue: UInt8
        /// A handler was attached at some point: this promise is not the end of a branch.
        static let hadHandlers = Flags(rawValue: 1 << 0)
        /// Its rejection was observed by a waiter (`wait()`, `vow_wait`).
        static let handled = Flags(rawValue: 1 << 1)
        /// Its resolver was used up by adopting a promise or thenable.
        static let resolverUsed = Flags(rawValue: 1 << 2)
        /// It was settled by cancellation.
        static let cancelled = Flags(rawValue: 1 << 3)
        /// It is settled (`outcome` is set). Checked instead of pattern-matching `outcome`,
        /// which copies the value through its value witnesses.
        static let settled = Flags(rawValue: 1 << 4)
        /// It is rejected.
        static let rejected = Flags(rawValue: 1 << 5)
    }

    let lock = VowLock()
    /// nil while pending; the outcome once settled. Stored as the `Outcome` handlers
    /// receive, so settling and attaching copy it once.
    @exclusivity(unchecked) private var outcome: Outcome?
    @exclusivity(unchecked) private var firstHandler: Handler?
    @exclusivity(unchecked) private var moreHandlers: [Handler] = []
    /// The promise this one waits on (the source of its link, or the promise it adopted).
    @exclusivity(unchecked) private var upstream: Core?
    /// The serial dispatcher whose job will settle this promise, for deadlock detection.
    @exclusivity(unchecked) private var settlerID: ObjectIdentifier?
    @exclusivity(unchecked) private var flags: Flags = []
    /// Dependents attached and not yet cancelled; at zero after a cancellation, the
    /// request travels further upstream.
    @exclusivity(unchecked) private var liveDependents: Int32 = 0
    @exclusivity(unchecked) private var extras: Extras?

    /// Rarely used state, kept out of line so a plain link stays small.
    final class Extras {
        var cancelHandlers: [@Sendable () -> Void] = []
        var moreUpstreams: [Core] = []
    }

    init() {
        super.init(tag: .promise)
    }

    init(fulfilled value: Any) {
        outcome = .fulfilled(value)
        flags = .settled
        super.init(tag: .promise)
    }

    init(rejected error: any Error) {
        outcome = .rejected(error)
        flags = [.settled, .rejected]
        super.init(tag: .promise)
    }

    /// A pending promise that will be settled by a link from `upstream` running on
    /// `dispatcher`.
    init(dependingOn upstream: Core, settledOn dispatcher: any Dispatcher) {
        self.upstream = upstream
        if dispatcher === Vow.librarySerial {
            settlerID = ObjectIdentifier(dispatcher)
        } else if dispatcher !== InlineDispatcher.shared && dispatcher.isSerial {
            settlerID = ObjectIdentifier(dispatcher)
        }
        super.init(tag: .promise)
    }

    /// A pending promise waiting on several promises (combinators).
    init(dependingOnAll upstreams: [Core]) {
        if let first = upstreams.first {
            upstream = first
            if upstreams.count > 1 {
                let extras = Extras()
                extras.moreUpstreams = Array(upstreams.dropFirst())
                self.extras = extras
            }
        }
        super.init(tag: .promise)
    }

    deinit {
        if flags.contains(.rejected), flags.isDisjoint(with: [.hadHandlers, .handled]),
           case .rejected(let error)? = outcome {
            UnhandledErrors.report(error)
        }
        if firstHandler != nil {
            // Pending and unreachable (a dispatcher dropped the job that would settle it):
            // free what the handlers hold without recursing down the chain.
            var handlers = moreHandlers
            handlers.append(firstHandler!)
            firstHandler = nil
            moreHandlers = []
            ThreadState.release(handlers)
        }
    }

    // MARK: Observing

    var snapshot: State {
        lock.lock()
        let current = outcome
        lock.unlock()
        switch current {
        case nil: return .pending
        case .fulfilled(let value)?: return .fulfilled(value)
        case .rejected(let error)?: return .rejected(error)
        }
    }

    @usableFromInline
    var isPending: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !flags.contains(.settled)
    }

    var wasCancelled: Bool {
        lock.withLock { flags.contains(.cancelled) }
    }

    /// Records that a waiter observed the rejection (it counts as handled).
    func markHandled() {
        lock.withLock { _ = flags.insert(.handled) }
    }

    // MARK: Attaching

    /// Registers a handler. If the promise is already settled the handler is scheduled at
    /// once (on its dispatcher, never inline unless that dispatcher is `.inline`).
    /// `consuming`: the handler is moved into the list (or into the job), not copied; a
    /// copy would retain and later release its dispatcher, dependent and closure.
    @usableFromInline
    func attach(_ handler: consuming Handler) {
        lock.lock()
        flags.insert(.hadHandlers)
        if handler.dependent != nil { liveDependents += 1 }
        guard flags.contains(.settled), let settled = outcome else {
            if firstHandler == nil {
                firstHandler = handler
            } else {
                moreHandlers.append(handler)
            }
            lock.unlock()
            return
        }
        lock.unlock()
        schedule(handler, settled)
    }

    /// Moves the handler list out. Caller holds the lock.
    private func takeHandlers() -> (Handler?, [Handler]) {
        let taken = (firstHandler, moreHandlers)
        firstHandler = nil
        moreHandlers = []
        return taken
    }

    // MARK: Settling

    /// Settles the promise if it is pending, whoever holds its resolver (used by links,
    /// adoption, combinators). Returns false if it was already settled.
    @usableFromInline @discardableResult
    func settle(_ outcome: Outcome) -> Bool {
        settle(outcome, asResolver: false)
    }

    /// Settles through the resolver: fails if the promise is settled or its resolver was
    /// used up by adopting another promise (C: `VOW_EALREADY`).
    func settleFromResolver(_ outcome: Outcome) -> Bool {
        settle(outcome, asResolver: true)
    }

    private func settle(_ outcome: Outcome, asResolver: Bool) -> Bool {
        lock.lock()
        guard !flags.contains(.settled), !(asResolver && flags.contains(.resolverUsed)) else {
            lock.unlock()
            return false
        }
        self.outcome = outcome
        flags.insert(.settled)
        if case .rejected = outcome { flags.insert(.rejected) }
        let (first, more) = takeHandlers()
        let oldUpstream = upstream
        upstream = nil
        let oldExtras = extras
        extras = nil
        lock.unlock()
        if let first { schedule(first, outcome) }
        for handler in more { schedule(handler, outcome) }
        // Released here, outside the lock: dropped cancel handlers (their C destroy runs),
        // and the upstream references.
        withExtendedLifetime((oldUpstream, oldExtras)) {}
        return true
    }

    /// Marks the resolver as used up by an adoption. Returns false if the promise is
    /// settled or the resolver was already used.
    func claimResolver() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !flags.contains(.settled), !flags.contains(.resolverUsed) else { return false }
        flags.insert(.resolverUsed)
        return true
    }

    /// True once the resolver may no longer settle the promise (C: `vow_resolver_is_settled`).
    var isResolverUsed: Bool {
        lock.lock()
        defer { lock.unlock() }
        if !flags.contains(.settled) { return flags.contains(.resolverUsed) }
        return true
    }

    /// The broken-promise rule: called when the last reference to an unused resolver goes.
    func breakIfResolverUnused() {
        lock.lock()
        let unused: Bool
        unused = !flags.contains(.settled) && !flags.contains(.resolverUsed)
        lock.unlock()
        if unused {
            settle(.rejected(VowError(.broken, "the resolver was released before it settled its promise")))
        }
    }

    // MARK: Adoption

    /// Makes this promise follow `source` (adopting its eventual state). The caller has
    /// claimed the resolver or owns this promise. Rejects with the cycle error if `source`
    /// is this promise or waits on it.
    @usableFromInline
    func follow(_ source: Core) {
        if source === self || source.waits(on: self) {
            settle(.rejected(VowError(.cycle, "a promise was resolved with itself, or with a chain that leads back to it")))
            return
        }
        lock.lock()
        guard !flags.contains(.settled) else {
            lock.unlock()
            return
        }
        let previous = upstream
        upstream = source
        settlerID = nil
        lock.unlock()
        withExtendedLifetime(previous) {}
        source.attach(Handler(dispatcher: InlineDispatcher.shared, dependent: self, kind: .link) { [self] outcome in
            self.settle(outcome)
        })
    }

    /// True if this promise, or a promise it waits on through its chain of upstreams,
    /// is `target` (a walk over pending promises only).
    private func waits(on target: Core) -> Bool {
        var current: Core = self
        while true {
            current.lock.lock()
            let next: Core?
            next = current.flags.contains(.settled) ? nil : current.upstream
            current.lock.unlock()
            guard let next else { return false }
            if next === target { return true }
            current = next
        }
    }

    /// Marks this promise as settled by a job on `dispatcher` (thenable assimilation),
    /// for deadlock detection.
    func setSettler(_ dispatcher: any Dispatcher) {
        let id = dispatcher.isSerial ? ObjectIdentifier(dispatcher) : nil
        lock.withLock { settlerID = id }
    }

    /// Deadlock detection: true if settling this promise needs a job on the serial
    /// dispatcher `id`, either for this promise or for one it waits on.
    func settlementNeeds(_ id: ObjectIdentifier) -> Bool {
        var current: Core = self
        while true {
            current.lock.lock()
            guard !current.flags.contains(.settled) else {
                current.lock.unlock()
                return false
            }
            let settler = current.settlerID
            let next = current.upstream
            current.lock.unlock()
            if settler == id { return true }
            guard let next else { return false }
            current = next
        }
    }

    // MARK: Cancellation

    /// Cancels this promise if it is pending: rejects it with the cancellation error at
    /// once (its handlers are scheduled, its cancel handlers run on the default
    /// dispatcher), then carries the request upstream, to every promise it waits on that
    /// has no other live dependent. Iterative: a cancellation travelling up a long chain
    /// does not recurse.
    func cancel() {
        var work: [Core] = [self]
        while let core = work.popLast() {
            guard let upstreams = core.settleAsCancelled() else { continue }
            for source in upstreams where source.dependentGone(core) {
                work.append(source)
            }
        }
    }

    /// If pending: rejects with the cancellation error and returns the upstreams to notify.
    private func settleAsCancelled() -> [Core]? {
        lock.lock()
        guard !flags.contains(.settled) else {
            lock.unlock()
            return nil
        }
        let error = VowError.cancelledError
        outcome = .rejected(error)
        flags.formUnion([.cancelled, .settled, .rejected])
        let (first, more) = takeHandlers()
        var upstreams: [Core] = []
        if let upstream { upstreams.append(upstream) }
        upstream = nil
        let oldExtras = extras
        extras = nil
        lock.unlock()
        if let oldExtras {
            upstreams.append(contentsOf: oldExtras.moreUpstreams)
            let queue = Vow.currentDefaultDispatcher
            for handler in oldExtras.cancelHandlers {
                submitJob(Job(body: { _ in handler() }, outcome: .fulfilled(())), to: queue)
            }
        }
        let outcome = Outcome.rejected(error)
        if let first { schedule(first, outcome) }
        for handler in more { schedule(handler, outcome) }
        return upstreams
    }

    /// `dependent` no longer needs this promise (it was cancelled, or a race it fed has
    /// settled). Its value/error callbacks are removed (their captures, and a C context's
    /// `destroy`, are released); a `finally` stays. Returns true if this promise is pending
    /// and now has no live dependent, so the cancellation should reach it.
    func dependentGone(_ dependent: Core) -> Bool {
        var removed: [Handler] = []
        lock.lock()
        // `dependent` may appear several times (`when([a, a, a])`): each of its handlers was
        // counted as a live dependent, so each one found is subtracted.
        var found: Int32 = 0
        if let first = firstHandler, first.dependent === dependent {
            found += 1
            if first.kind == .link {
                removed.append(first)
                firstHandler = moreHandlers.isEmpty ? nil : moreHandlers.removeFirst()
            } else {
                firstHandler = Handler(dispatcher: first.dispatcher, dependent: nil, kind: first.kind, body: first.body)
            }
        }
        if !moreHandlers.isEmpty {
            var index = 0
            while index < moreHandlers.count {
                let handler = moreHandlers[index]
                if handler.dependent === dependent {
                    found += 1
                    if handler.kind == .link {
                        removed.append(moreHandlers.remove(at: index))
                        continue
                    }
                    moreHandlers[index] = Handler(dispatcher: handler.dispatcher, dependent: nil, kind: handler.kind, body: handler.body)
                }
                index += 1
            }
        }
        liveDependents -= found
        var shouldCancel = false
        if !flags.contains(.settled), found > 0, liveDependents <= 0 { shouldCancel = true }
        lock.unlock()
        withExtendedLifetime(removed) {}
        return shouldCancel
    }

    /// Tells every upstream this promise waited on that it no longer needs them (used when
    /// a race settles: its losers are cancelled under the upstream rule).
    func releaseUpstreams(_ upstreams: [Core]) {
        for source in upstreams where source.dependentGone(self) {
            source.cancel()
        }
    }

    /// Registers a producer's cancel handler. Runs once on the default dispatcher when
    /// this promise is cancelled; at once (queued) if it already was; dropped if the
    /// promise settled otherwise.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        switch flags.contains(.settled) {
        case false:
            if extras == nil { extras = Extras() }
            extras!.cancelHandlers.append(handler)
            lock.unlock()
        case true:
            let cancelled = flags.contains(.cancelled)
            lock.unlock()
            if cancelled {
                submitJob(Job(body: { _ in handler() }, outcome: .fulfilled(())), to: Vow.currentDefaultDispatcher)
            }
        }
    }
}
