import Synchronization

/// The link: the one thing every chaining operator of every face does.
///
/// `source.link(on: dispatcher, body)` makes the derived promise, which carries its own
/// callback (`body`) and dispatcher: one object per link. The source's handler list holds
/// it; when the source settles the link is scheduled on its dispatcher and runs `body`,
/// which settles the link. The link owns the rest of the protocol, so no face repeats it:
/// the pending check (a cancelled link never runs a value/error body), the cancellation
/// bookkeeping (a link counts as a dependent of its source), disposing the body exactly
/// once (after it ran, or as soon as it is certain it never will), and adoption (a body
/// may make the link follow another promise; the link then settles inline as that one
/// does).
@usableFromInline package protocol LinkBody {
    /// Runs once, on the link's dispatcher, after `source` settled, and settles `link`
    /// from it (fulfil, reject, `settle(like:)`, `follow`, the resolution procedure).
    /// `source` is nil only for a cleanup body whose link was cancelled first (there is
    /// nothing left to settle then).
    ///
    /// `mutating` only so the engine can call it on the body in place (no copy of the
    /// body, and of the closure it holds, per run); it is called once.
    mutating func run(from source: Core?, settling link: Core)

    /// Cleanup bodies (`finally`) run even when their link was cancelled; other bodies
    /// never run then.
    static var isCleanup: Bool { get }

    /// Lets go of what the body captured (a C callback's `destroy` runs here). The engine
    /// calls it once: right after `run`, or as soon as it is certain `run` never will
    /// (the link was cancelled before it ran, a dispatcher dropped it, it was freed).
    mutating func dispose()

    /// The dispatcher of a link whose flags name none (`OnDispatcher`), moved out as the
    /// link is scheduled (under its lock). Other bodies hold none and are never asked.
    mutating func takeDispatcher() -> any Dispatcher

    /// The identity of the dispatcher the body holds, for deadlock detection and a host's
    /// jobs (nil: none). `mutating` only so the engine reads it where the body lies: the
    /// link's overrides are not specialized for `Body`, and a non-mutating read copies the
    /// body first (its value witnesses: some 140 instructions a read, measured).
    var heldDispatcher: ObjectIdentifier? { mutating get }
}

extension LinkBody {
    @inlinable
    package static var isCleanup: Bool { false }

    @inlinable
    package mutating func takeDispatcher() -> any Dispatcher {
        preconditionFailure("Link: a link without a placement flag has an OnDispatcher body")
    }

    @inlinable
    package var heldDispatcher: ObjectIdentifier? { nil }
}

/// A derived promise that carries its callback: see `LinkBody`.
///
/// Threads: made and attached by the caller of the operator; `schedule` runs on the thread
/// that settles the source; `run` on the dispatcher. `body` is touched only by whoever
/// claimed it (the `bodyTaken` flag, set under the lock): `run` or the disposal path.
///
/// Where it runs: a link on the library's own serial queue or inline (nearly every link)
/// says so with a flag (`onLibraryQueue`, `onInline`) and holds no dispatcher, so it is a
/// `Core` and its body, nothing more (56 bytes with a Swift closure, 72 with a C
/// callback). A link on any other dispatcher has an `OnDispatcher` body, which holds it.
@usableFromInline final class Link<Body: LinkBody>: Core, @unchecked Sendable {
    // @unchecked: see `Core`; `body` is owned by whoever set `bodyTaken`.

    @exclusivity(unchecked) @usableFromInline var body: Body

    /// A link that runs where `placement` says: `.onLibraryQueue`, `.onInline`, or
    /// nowhere the flags can name (empty: `body` is an `OnDispatcher`).
    @inlinable
    init(source: Core, placement: Flags, body: consuming Body) {
        self.body = body
        super.init()
        setFirstUpstream(source)
        word.store(placement.rawValue, ordering: .relaxed)
    }

    deinit {
        if !flags.contains(.bodyTaken) { body.dispose() }
    }

    @usableFromInline override func schedule() {
        var flags = lock()
        if flags.contains(.adopting) {
            unlock(flags)
            InlineDispatcher.run(self)
            return
        }
        // Handed to its dispatcher once; and not at all once its body was claimed: a
        // cancellation that got there first is disposing the body on its own thread,
        // outside the lock, so the body (its dispatcher included) is not touched here,
        // and a job would find nothing to run.
        guard !flags.contains(.scheduled), !flags.contains(.bodyTaken) else {
            unlock(flags)
            return
        }
        flags.insert(.scheduled)
        if flags.contains(.onLibraryQueue) {
            unlock(flags)
            Dispatchers.librarySerial.submit(self)
        } else if flags.contains(.onInline) {
            unlock(flags)
            InlineDispatcher.run(self)
        } else {
            // Only the dispatcher is touched here (a disposal may be letting go of the
            // callback meanwhile).
            let dispatcher = body.takeDispatcher()
            unlock(flags)
            flags = []
            submitContinuation(self, to: dispatcher)
        }
    }

    @usableFromInline override func run() {
        var flags = lock()
        if flags.contains(.adopting) {
            let source = flags.contains(.settled) ? nil : upstream
            unlock(flags)
            if let source { settle(like: source) }
            return
        }
        guard !flags.contains(.bodyTaken) else {
            unlock(flags)
            return
        }
        flags.insert(.bodyTaken)
        let pending = !flags.contains(.settled)
        let source = pending ? upstream : nil
        unlock(flags)
        if pending || Body.isCleanup {
            body.run(from: source, settling: self)
        }
        body.dispose()
    }

    /// The dispatcher released the link without running it: its body never runs (it is
    /// disposed) and the link is cancelled, so the chain behind it ends.
    ///
    /// Through the per-thread inline queue: a dispatcher may drop work inside `dispatch`,
    /// and cancelling schedules the next link, which it drops again; queued, a long chain
    /// on such a dispatcher ends in a loop instead of a recursion.
    @usableFromInline override func dropped() {
        cancelAsDropped()
    }

    @usableFromInline override var isCleanupLink: Bool { Body.isCleanup }

    /// Disposes the body if nobody ran or disposed it yet (the link was cancelled and
    /// removed from its source, or dropped).
    @usableFromInline override func disposeUnrun() {
        var flags = lock()
        guard !flags.contains(.bodyTaken) else {
            unlock(flags)
            return
        }
        flags.insert(.bodyTaken)
        unlock(flags)
        body.dispose()
    }

    /// The serial dispatcher whose job will run this link's body, for deadlock detection
    /// (nil once it adopts; nil inline, which never marks a thread). The caller holds the
    /// lock.
    @usableFromInline override var settlingDispatcher: ObjectIdentifier? {
        let flags = self.flags
        if flags.contains(.adopting) || flags.contains(.onInline) { return nil }
        if flags.contains(.onLibraryQueue) { return ObjectIdentifier(Dispatchers.librarySerial) }
        return body.heldDispatcher
    }

    // MARK: Handed to a host's loop as its own job
    //
    // A dispatcher that hands each job to foreign code as an opaque pointer (a C host's
    // loop, `vow_dispatcher_new`: `submit(ctx, run, job)`, then `run(job)` or
    // `vow_job_drop(job)`) would need an object per job to carry what the job is and which
    // dispatcher it belongs to. A link scheduled on such a dispatcher knows both already:
    // it is the job, and its `OnDispatcher` body holds the dispatcher's identity from the
    // moment it is scheduled. So the dispatcher hands the link itself (with a reference the
    // host owns), and two flags of its word, set under its lock, say the rest:
    // `handedToHost` (set by `handToHost`, when handed over) and `hostFinished` (set by
    // `takeBackFromHost`, when the host runs or drops it). A link is scheduled once, so it
    // is handed over at most once; a second run or drop finds `hostFinished`, and a promise
    // that never was a job finds neither flag: both are refused. Threads: `handToHost` on
    // the submitting thread, `takeBackFromHost` on the thread that runs or drops the job;
    // both touch only the flags and the body's dispatcher identity, fixed once scheduled.

    @usableFromInline override func handToHost(from dispatcher: ObjectIdentifier) -> Bool {
        var flags = lock()
        // Only a link with an `OnDispatcher` body (no placement flag) holds a dispatcher.
        guard flags.contains(.scheduled), !flags.contains(.handedToHost), !flags.contains(.onLibraryQueue),
              !flags.contains(.onInline), body.heldDispatcher == dispatcher else {
            unlock(flags)
            return false
        }
        flags.insert(.handedToHost)
        unlock(flags)
        return true
    }

    @usableFromInline override func takeBackFromHost() -> ObjectIdentifier? {
        var flags = lock()
        guard flags.contains(.handedToHost), !flags.contains(.hostFinished) else {
            unlock(flags)
            return nil
        }
        flags.insert(.hostFinished)
        unlock(flags)
        // The identity was fixed when the link was scheduled (nothing writes it later).
        return body.heldDispatcher
    }


    @usableFromInline override var wasHandedToHost: Bool { flags.contains(.handedToHost) }
}

/// The body of a link on a dispatcher other than the library's queue and inline: `inner`
/// and the dispatcher (16 bytes more).
@usableFromInline struct OnDispatcher<Inner: LinkBody>: LinkBody {
    /// Where the body runs: the dispatcher (the `.default` placeholder already resolved)
    /// until the link is handed to it; from then on only its identity (for deadlock
    /// detection). The link lets go of the dispatcher when it schedules itself, because a
    /// dispatcher holding the queued link while the link holds the dispatcher would keep
    /// both alive if the dispatcher were abandoned with work queued. Touched under the
    /// link's lock.
    @usableFromInline var target: LinkTarget
    @usableFromInline var inner: Inner

    @inlinable
    init(_ dispatcher: any Dispatcher, _ inner: consuming Inner) {
        target = .waiting(dispatcher)
        self.inner = inner
    }

    /// The body of a link handed to `dispatcher` as it is made (`Core.linkOnSettled`).
    @inlinable
    init(scheduledOn dispatcher: any Dispatcher, _ inner: consuming Inner) {
        target = .scheduled(on: ObjectIdentifier(dispatcher))
        self.inner = inner
    }

    @inlinable
    static var isCleanup: Bool { Inner.isCleanup }

    @inlinable
    mutating func run(from source: Core?, settling link: Core) {
        inner.run(from: source, settling: link)
    }

    @inlinable
    mutating func dispose() { inner.dispose() }

    @inlinable
    mutating func takeDispatcher() -> any Dispatcher {
        // Moves the dispatcher out (no extra retain and release).
        var taken = LinkTarget.scheduled(on: ObjectIdentifier(InlineDispatcher.self))
        swap(&taken, &target)
        guard case .waiting(let dispatcher) = taken else {
            preconditionFailure("OnDispatcher: a link scheduled twice")
        }
        target = .scheduled(on: ObjectIdentifier(dispatcher))
        return dispatcher
    }

    @inlinable
    var heldDispatcher: ObjectIdentifier? { target.dispatcherIdentity }
}

/// Where a link on another dispatcher runs (see `OnDispatcher.target`).
@usableFromInline
enum LinkTarget {
    /// Not handed to its dispatcher yet.
    case waiting(any Dispatcher)
    /// Handed to the dispatcher with this identity.
    case scheduled(on: ObjectIdentifier)

    /// The dispatcher's identity. A thread marks itself as running only a serial
    /// dispatcher's job (`ThreadState.runningSerialDispatcher`), so comparing this
    /// identity with the mark needs no `isSerial` question.
    @usableFromInline
    var dispatcherIdentity: ObjectIdentifier {
        switch self {
        case .waiting(let dispatcher): return ObjectIdentifier(dispatcher)
        case .scheduled(let identity): return identity
        }
    }
}

extension Core {
    /// Disposes the body and cancels, through the per-thread inline queue (see
    /// `Link.dropped()`).
    final func cancelAsDropped() {
        InlineDispatcher.run(ClosureJob { [self] in
            self.disposeUnrun()
            self.cancel()
        })
    }

    /// The link primitive: registers `body` to run on `dispatcher` once this promise
    /// settles, and returns the derived promise, which `body` settles. `dispatcher` may be
    /// the `.default` placeholder: it is resolved now, when the link is made.
    ///
    /// `site`: where the face's caller asked for the link (debug mode records it, with the
    /// chain of this promise, before the link is attached; off, it costs one load and one
    /// branch).
    @inlinable @inline(__always)
    package final func link<Body: LinkBody>(on dispatcher: any Dispatcher, _ body: consuming Body,
                                            at site: Site = .unknown) -> Core {
        let placement = Dispatchers.linkPlacement(for: dispatcher)
        let link: Core = placement.isEmpty
            ? Link(source: self, placement: [], body: OnDispatcher(Dispatchers.resolve(dispatcher), body))
            : Link(source: self, placement: placement, body: body)
        if DebugMode.isOn { link.recordSite(site, from: self) }
        attach(link)
        return link
    }
}

extension Core {
    /// The link primitive for a settled source that has nothing left to record (it
    /// counts as handled already, as a shared settled promise does after its first
    /// link): the link is handed to its dispatcher at once, as `attach` would, without
    /// taking either lock (nobody else knows the new link yet). Otherwise the same as
    /// `link(on:_:at:)`. For operators whose source is such a promise
    /// (`Promise(on:work:)`, `vow_dispatch`): the one test is not paid by every link.
    @inlinable
    package final func linkOnSettled<Body: LinkBody>(on dispatcher: any Dispatcher, _ body: consuming Body,
                                                     at site: Site = .unknown) -> Core {
        let seen = flags
        guard seen.contains(.settled), seen.contains(.hadHandlers), !seen.contains(.lazy) else {
            return link(on: dispatcher, body, at: site)
        }
        let placement = Dispatchers.linkPlacement(for: dispatcher)
        if placement.isEmpty {
            let resolved = Dispatchers.resolve(dispatcher)
            let link = Link(source: self, placement: .scheduled, body: OnDispatcher(scheduledOn: resolved, body))
            if DebugMode.isOn { link.recordSite(site, from: self) }
            submitContinuation(link, to: resolved)
            return link
        }
        let link = Link(source: self, placement: placement.union(.scheduled), body: body)
        if DebugMode.isOn { link.recordSite(site, from: self) }
        if placement.contains(.onLibraryQueue) {
            Dispatchers.librarySerial.submit(link)
        } else {
            InlineDispatcher.run(link)
        }
        return link
    }
}

/// A link body that is a closure: for operators that need no typed storage of their own
/// (their closure captures what they need). `run` gets the source (nil: see `LinkBody`)
/// and the link to settle.
@usableFromInline package struct ClosureBody: LinkBody {
    @usableFromInline var body: (@Sendable (Core?, Core) -> Void)?

    @inlinable
    package init(_ body: @escaping @Sendable (_ source: Core?, _ link: Core) -> Void) {
        self.body = body
    }

    @inlinable
    package func run(from source: Core?, settling link: Core) {
        body?(source, link)
    }

    @inlinable
    package mutating func dispose() { body = nil }
}

/// A cleanup body (`finally`): runs `cleanup` whatever happened, also when the link was
/// cancelled, then settles the link as the source did.
@usableFromInline package struct CleanupBody: LinkBody {
    @usableFromInline var cleanup: (@Sendable () -> Void)?

    @inlinable
    package init(_ cleanup: @escaping @Sendable () -> Void) {
        self.cleanup = cleanup
    }

    @inlinable
    package static var isCleanup: Bool { true }

    @inlinable
    package func run(from source: Core?, settling link: Core) {
        cleanup?()
        if let source { link.settle(like: source) }
    }

    @inlinable
    package mutating func dispose() { cleanup = nil }
}
