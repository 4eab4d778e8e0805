import Synchronization

/// The promise object: every face's promise type (typed, untyped, the C handle) is a view
/// of one.
///
/// State machine: pending, then fulfilled with a value or rejected with an error, once.
/// The state lives in one place: the flags of `word` (`settled`, `rejected`, ...) say which
/// state it is. Two more words hold what that state needs (`Handlers.swift`): while
/// pending, the handler list and what the promise waits on; once settled, the value or
/// error (`bits` and `valueType`, see `StoredValue`). Everything mutable is guarded by the
/// lock bit of `word`, and no user code runs while it is held: settling moves the handler
/// list out under the lock and schedules the handlers after unlocking; each handler runs
/// on its own dispatcher.
///
/// Size: the object header (16 bytes), `tag` and `word` (8), the two words (16): 40 bytes,
/// the smallest block but one that malloc hands out. A link adds its body; a promise with
/// its resolver inside (`ResolvableCore`) adds 8 bytes.
///
/// This file: state, settling (one path) and attaching. Elsewhere: the link primitive
/// (`Core+Link.swift`), adoption (`Core+Adoption.swift`), the resolution procedure
/// (`Core+Resolution.swift`), cancellation (`Core+Cancellation.swift`), waiting and
/// deadlock detection (`Core+Waiting.swift`), lazy promises (`Core+Lazy.swift`).
///
/// References: a promise's handler list holds the continuations waiting on it (links and
/// adopters are themselves promises), and a pending promise holds the promise it waits on
/// (`upstream`) until it settles. The resulting cycle is broken when either side settles,
/// and a pending promise always settles eventually (a resolver released unused rejects it
/// with the broken-promise error).
///
/// Unhandled errors: a promise that is freed rejected, that never had a handler attached
/// (it is the end of its branch) and whose rejection no waiter saw, reports its error once
/// to the process-wide handler, from `deinit`, on the thread that drops the last reference.
@usableFromInline package class Core: Continuation, @unchecked Sendable {
    // @unchecked: every mutable stored property is read and written with the lock bit of
    // `word` held, or (the value, once `settled` is set) read only after an acquiring load
    // of the flags saw it settled, after which it never changes.

    /// Pending: the continuations registered on this promise, in order (a retained
    /// `Continuation` or `HandlerArray`, or 0). Settled: the value or error (see
    /// `StoredValue`). See `Handlers.swift`.
    @exclusivity(unchecked) @usableFromInline final var handlersOrBits: UInt = 0
    /// Pending: the promise this one waits on, or the rarely used `Extras` (which then
    /// hold it), retained, or 0. Settled: the type of the value (`any Error` when
    /// rejected).
    @exclusivity(unchecked) @usableFromInline final var backOrType: UInt = 0

    /// The value or error of a settled promise (see `StoredValue`).
    @inlinable @inline(__always)
    final var bits: UInt { handlersOrBits }

    /// The type of the value of a settled promise (`any Error` when rejected).
    @inlinable @inline(__always)
    final var valueType: Any.Type { unsafeBitCast(backOrType, to: Any.Type.self) }

    /// A pending promise.
    @inlinable
    package init() {
        super.init(tag: Core.promiseTag)
    }

    /// A settled promise holding `stored` (rejected if `rejected`).
    @inlinable
    package init(settledWith stored: consuming StoredValue, rejected: Bool) {
        let (bits, type, storage) = stored.release()
        handlersOrBits = bits
        backOrType = unsafeBitCast(type, to: UInt.self)
        var flags = Flags.settled.union(.storing(storage))
        if rejected { flags.insert(.rejected) }
        super.init(tag: Core.promiseTag)
        word.store(flags.rawValue, ordering: .relaxed)
    }

    /// A promise fulfilled with `value`.
    @inlinable
    package convenience init<T>(fulfilled value: T) {
        self.init(settledWith: StoredValue(value), rejected: false)
    }

    /// A promise rejected with `error`.
    @inlinable
    package convenience init(rejected error: any Error) {
        self.init(settledWith: StoredValue(error: error), rejected: true)
    }

    deinit {
        let flags = self.flags
        if flags.contains(.settled) {
            // One test for the rare cases: a rejection, a debug record, a face cache.
            if _slowPath(flags.rawValue & Flags.rareWhenFreed.rawValue != 0) {
                // Debug mode: the promise leaves the census before its memory goes (its
                // record goes with it, to the report).
                let record = flags.contains(.debugged) ? DebugRegistry.remove(self) : nil
                if flags.contains(.faceCached) { FaceCaches.remove(self) }
                if flags.contains(.rejected), flags.isDisjoint(with: .handledSomehow) {
                    UnhandledErrors.report(StoredValue.load((any Error).self, bits: bits, storage: .object), record)
                }
            }
            StoredValue.destroy(bits: bits, type: valueType, storage: flags.storage)
        } else {
            if flags.contains(.debugged) { _ = DebugRegistry.remove(self) }
            if flags.contains(.faceCached) { FaceCaches.remove(self) }
            // Pending and unreachable (nothing will settle it): free what the handlers hold
            // without recursing down the chain; a forwarded promise's upstream too (see
            // `releasePendingWords`).
            releasePendingWords(forwarded: flags.contains(.forwarded))
        }
    }

    // MARK: Observing (no lock: the flags say settled, and the value never changes then)

    /// The flags as an observer sees them: a forwarded promise that is still pending (its
    /// adopters were handed on, see `Core+Adoption.swift`) rejoins its chain first, so it
    /// reads settled once the end of the chain is. One branch when not forwarded.
    @inlinable @inline(__always)
    final var observedFlags: Flags {
        let flags = self.flags
        if _slowPath(flags.rawValue & Flags.settledOrForwarded.rawValue == Flags.forwarded.rawValue) {
            return rejoinForObserver()
        }
        return flags
    }

    @inlinable
    package final var isPending: Bool { !observedFlags.contains(.settled) }

    @inlinable
    package final var isFulfilled: Bool { observedFlags.isFulfilled }

    @inlinable
    package final var isRejected: Bool { observedFlags.contains(.rejected) }

    /// True if the promise was settled by cancellation.
    @inlinable
    package final var wasCancelled: Bool { observedFlags.contains(.cancelled) }

    /// True if the promise is fulfilled with a value of exactly type `T`. (With `load`, the
    /// way generic code reads a value: neither makes an `Optional<T>`, whose metadata
    /// generic code would have to look up on every call.)
    @inlinable @inline(__always)
    package final func holds<T>(_ type: T.Type) -> Bool {
        observedFlags.isFulfilled
            && ObjectIdentifier(valueType) == ObjectIdentifier(T.self)
    }

    /// The value; the caller checked `holds(T.self)`.
    @inlinable
    package final func load<T>(_ type: T.Type) -> T {
        StoredValue.load(T.self, bits: bits, storage: flags.storage)
    }

    /// The object the promise is fulfilled with if it is a `T`, unretained: valid while
    /// this promise lives (it holds the object). For faces whose values are objects (C's
    /// values): no retain and release per read.
    @inlinable @inline(__always)
    package final func heldObject<T: AnyObject>(_ type: T.Type) -> Unmanaged<T>? {
        guard holds(T.self) else { return nil }
        return Unmanaged<T>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }

    /// The value as a `T`, or nil if the promise is not fulfilled or holds another type.
    @inlinable
    final func value<T>(as type: T.Type) -> T? {
        let flags = observedFlags
        guard flags.isFulfilled,
              ObjectIdentifier(valueType) == ObjectIdentifier(T.self) else { return nil }
        return StoredValue.load(T.self, bits: bits, storage: flags.storage)
    }

    /// The error, or nil unless rejected.
    @inlinable
    package final var error: (any Error)? {
        guard observedFlags.contains(.rejected) else { return nil }
        return StoredValue.load((any Error).self, bits: bits, storage: .object)
    }

    /// The value as an `Any`, or nil unless fulfilled.
    @usableFromInline package final var anyValue: Any? {
        let flags = observedFlags
        guard flags.isFulfilled else { return nil }
        return StoredValue.anyValue(bits: bits, type: valueType, storage: flags.storage)
    }

    /// The type of the value, or nil unless fulfilled.
    @usableFromInline final var fulfilledType: Any.Type? {
        isFulfilled ? valueType : nil
    }

    /// The outcome as an untyped snapshot, or nil while pending.
    @usableFromInline final var outcome: Outcome? {
        let flags = observedFlags
        guard flags.contains(.settled) else { return nil }
        if flags.contains(.rejected) { return .rejected(error!) }
        return .fulfilled(anyValue!)
    }

    /// A +1 copy of what this settled promise holds (its value or error).
    @usableFromInline final func storedCopy() -> StoredValue {
        StoredValue.copy(bits: bits, type: valueType, storage: flags.storage)
    }

    // MARK: Attaching

    /// Registers `continuation`. If the promise is already settled it is scheduled at once
    /// (on its dispatcher, never inline unless that is the inline dispatcher).
    /// `countsAsHandler`: false for waiters, which do not make this promise stop being the
    /// end of its branch (a wait that timed out handled nothing).
    @usableFromInline
    package final func attach(_ continuation: Continuation, countsAsHandler: Bool = true) {
        var flags = lock()
        if countsAsHandler { flags.insert(.hadHandlers) }
        if flags.contains(.lazy) { return attachStartingLazy(continuation, flags) }
        if flags.contains(.settled) {
            unlock(flags)
            scheduleSettled(continuation)
            return
        }
        if flags.contains(.forwarded) {
            unlock(flags)
            attachToForwarded(continuation, countsAsHandler: countsAsHandler)
            return
        }
        appendHandler(continuation)
        unlock(flags)
    }

    /// Removes `continuation` if it is still registered (a waiter that gave up). Returns
    /// true if it was found.
    @discardableResult
    @usableFromInline final func detach(_ continuation: Continuation) -> Bool {
        let flags = lock()
        let found = !flags.contains(.settled) && removeHandler(continuation)
        unlock(flags)
        return found
    }

    // MARK: Settling

    /// Settles the promise with `stored` if it is pending: the one settle path, which every
    /// other way of settling (fulfil, reject, adopt, cancel) goes through.
    ///
    /// `viaResolver`: the resolver settles; it fails once the resolver was used up by
    /// adopting. `cancelled`: the cancellation error; the upstreams and cancel handlers
    /// are handed to the caller (`Core.cancel` carries the request on) instead of dropped.
    /// Returns false (and destroys `stored`) if the promise was already settled.
    @usableFromInline @discardableResult
    package final func settle(_ stored: consuming StoredValue, rejected: Bool,
                              viaResolver: Bool = false) -> Bool {
        guard let back = settleAndSchedule(stored, rejected: rejected, viaResolver: viaResolver, cancelled: false) else {
            return false
        }
        Core.releaseBack(back)
        return true
    }

    /// The settle path for a cancellation; returns nil if already settled, else what the
    /// promise let go of.
    @usableFromInline package final func settle(_ stored: consuming StoredValue, rejected: Bool, viaResolver: Bool,
                                                cancelled: Bool) -> Released? {
        guard let back = settleAndSchedule(stored, rejected: rejected, viaResolver: viaResolver, cancelled: cancelled) else {
            return nil
        }
        return Core.released(fromBack: back)
    }

    /// The one settle path: stores `stored` in place of the two pending words under the
    /// lock, then schedules the handlers it took out. Returns the word of what the promise
    /// waited on (a +1 reference or 0), for the caller to let go of outside the lock, or
    /// nil (destroying `stored`) if the promise was settled already.
    @inline(__always)
    final func settleAndSchedule(_ stored: consuming StoredValue, rejected: Bool, viaResolver: Bool,
                                 cancelled: Bool) -> UInt? {
        var flags = lock()
        guard !flags.contains(.settled), !(viaResolver && flags.contains(.resolverUsed)) else {
            unlock(flags)
            return nil
        }
        let handlers = handlersOrBits
        let back = backOrType
        let (newBits, type, storage) = stored.release()
        handlersOrBits = newBits
        backOrType = unsafeBitCast(type, to: UInt.self)
        flags.formUnion(Flags.settled.union(.storing(storage)))
        if rejected { flags.insert(.rejected) }
        if cancelled { flags.insert(.cancelled) }
        unlock(flags)
        HandlerList(takingWord: handlers).scheduleAll(after: self)
        return back
    }

    /// Fulfils the promise with `value` if it is pending.
    @inlinable @inline(__always) @discardableResult
    package final func fulfil<T>(_ value: T) -> Bool {
        settle(StoredValue(value), rejected: false)
    }

    /// Rejects the promise with `error` if it is pending.
    @inlinable @discardableResult
    package final func reject(_ error: any Error) -> Bool {
        settle(StoredValue(error: error), rejected: true)
    }

    /// Settles the promise as `source` (settled) did: the same value or the same error
    /// (the identity of what it holds is kept: the same object, the same error box).
    @usableFromInline @discardableResult
    package final func settle(like source: Core) -> Bool {
        settle(source.storedCopy(), rejected: source.isRejected)
    }

    /// Settles the promise from an untyped outcome (the value stored as its dynamic type).
    @discardableResult
    @usableFromInline package final func settle(_ outcome: Outcome, viaResolver: Bool = false) -> Bool {
        switch outcome {
        case .fulfilled(let value): return settle(StoredValue(dynamic: value), rejected: false, viaResolver: viaResolver)
        case .rejected(let error): return settle(StoredValue(error: error), rejected: true, viaResolver: viaResolver)
        }
    }

    /// Settles from a body's result: its value fulfils, a throw rejects.
    @inlinable
    package final func settle<T>(from body: () throws -> T) {
        do {
            fulfil(try body())
        } catch {
            reject(error)
        }
    }

    /// What a face keeps with this settled promise (the C face: the C form of its value
    /// or error, so every read hands out the same handle): the object made by `make` the
    /// first time (outside every lock; if two threads race, the first stored wins and both
    /// get it). Kept in `FaceCaches` until the promise is freed.
    package final func faceCache<Cache: AnyObject>(_ make: () -> Cache) -> Cache {
        if flags.contains(.faceCached), let cached = FaceCaches.cache(of: self) as? Cache { return cached }
        return FaceCaches.store(make(), for: self)
    }

    /// Records that a waiter saw the rejection (it counts as handled).
    @usableFromInline package final func markHandled() {
        var flags = lock()
        flags.insert(.handled)
        unlock(flags)
    }

    // MARK: The resolver's rights

    /// Settles through the resolver: fails if settled or if the resolver was used up by
    /// adopting (C: `VOW_EALREADY`).
    @inlinable @inline(__always) @discardableResult
    package final func fulfilFromResolver<T>(_ value: T) -> Bool {
        settle(StoredValue(value), rejected: false, viaResolver: true)
    }

    /// Rejects through the resolver (see `fulfilFromResolver`).
    @discardableResult
    @usableFromInline package final func rejectFromResolver(_ error: any Error) -> Bool {
        settle(StoredValue(error: error), rejected: true, viaResolver: true)
    }

    /// Marks the resolver as used up by an adoption. False if settled or already used.
    @usableFromInline package final func claimResolver() -> Bool {
        var flags = lock()
        guard !flags.contains(.settled), !flags.contains(.resolverUsed) else {
            unlock(flags)
            return false
        }
        flags.insert(.resolverUsed)
        unlock(flags)
        return true
    }

    /// True once the resolver can no longer settle the promise: it is settled, or the
    /// resolver adopted a promise or thenable that is still pending.
    @usableFromInline package final var isResolverUsed: Bool {
        let flags = self.flags
        return flags.contains(.settled) || flags.contains(.resolverUsed)
    }

    /// True when the resolver was used up by adopting and the promise is still pending.
    @usableFromInline final var isAdoptingForResolver: Bool {
        let flags = self.flags
        return !flags.contains(.settled) && flags.contains(.resolverUsed)
    }

    /// The broken-promise rule: called when the last reference to an unused resolver goes.
    @usableFromInline package final func breakIfResolverUnused() {
        let flags = self.flags
        guard !flags.contains(.settled), !flags.contains(.resolverUsed) else { return }
        settle(StoredValue(error: EngineError.broken(at: self)), rejected: true, viaResolver: true)
    }

    // MARK: As a continuation

    /// A plain promise in a handler list is an adopter: it settles inline as its
    /// upstream did. (Links override this.)
    @usableFromInline package override func run() {
        settleFromUpstream()
    }

    @usableFromInline override var dependentPromise: Core? { self }

    /// The serial dispatcher whose job will settle this promise, if one will (links say
    /// theirs), for deadlock detection. The caller holds the lock.
    @usableFromInline var settlingDispatcher: ObjectIdentifier? { nil }

    /// Settles like the upstream this promise adopted (which has settled).
    @usableFromInline final func settleFromUpstream() {
        let flags = lock()
        let source = flags.contains(.settled) ? nil : upstream
        unlock(flags)
        if let source { settle(like: source) }
    }
}

/// The face caches of settled promises (`Core.faceCache`), by promise, out of line: a
/// promise has no word to spare for them once settled, and only a face reading a value
/// that another face produced (C reading a Swift value or error) makes one.
///
/// Locking: the table's lock may be taken with no promise lock held, and a promise's lock
/// inside it (to set `faceCached`), never the reverse; no cache is released under it.
enum FaceCaches {
    private static let table = Locked<[ObjectIdentifier: AnyObject]>([:])

    /// The cache of `promise`, if it has one.
    static func cache(of promise: Core) -> AnyObject? {
        table.withLock { $0[ObjectIdentifier(promise)] }
    }

    /// Keeps `made` for `promise` unless another thread kept one first; returns the one
    /// kept.
    static func store<Cache: AnyObject>(_ made: Cache, for promise: Core) -> Cache {
        let kept = table.withLock { table -> AnyObject in
            let key = ObjectIdentifier(promise)
            if let existing = table[key] { return existing }
            table[key] = made
            var flags = promise.lock()
            flags.insert(.faceCached)
            promise.unlock(flags)
            return made
        }
        // Another face's cache type under the same promise cannot happen: one face makes them.
        return kept as? Cache ?? made
    }

    /// Takes `promise`'s cache off (it is being freed); the cache is released after the
    /// lock. Never inlined: `deinit` calls it behind a flag test.
    @inline(never)
    static func remove(_ promise: Core) {
        let removed = table.withLock { $0.removeValue(forKey: ObjectIdentifier(promise)) }
        withExtendedLifetime(removed) {}
    }
}

/// An untyped outcome, for the untyped faces and tests.
@usableFromInline package enum Outcome: @unchecked Sendable {
    // @unchecked: values travel between threads in promises (see `StoredValue`).
    case fulfilled(Any)
    case rejected(any Error)
}

extension StoredValue {
    /// Stores the value inside `value` as its dynamic type (an `Int` in an `Any` is stored
    /// as an `Int`).
    @usableFromInline package init(dynamic value: Any) {
        func make<T>(_ typed: T) -> StoredValue { StoredValue(typed) }
        self = _openExistential(value, do: make)
    }
}
