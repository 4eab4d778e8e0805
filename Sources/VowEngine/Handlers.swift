/// The two words a promise shares between its pending and its settled state.
///
/// A pending promise needs its handler list and what it waits on (its upstream, or the
/// rarely used `Extras`); a settled one needs its value (`StoredValue`'s bits and type) and
/// nothing else. So `Core` keeps two raw words that change meaning when it settles:
///
/// | word | pending | settled |
/// |---|---|---|
/// | `handlersOrBits` | the handler list: 0, a `Continuation` or a `HandlerArray` (retained) | the value's bits |
/// | `backOrType` | what it waits on: 0, the upstream `Core`, an `Extras`, or (a combinator's result) its `GatherState`, which holds the inputs (retained) | the value's type |
///
/// Each pending word is a plain object reference (retained by hand, never a tagged
/// payload), so leak checkers (valgrind, LeakSanitizer) see every object a live promise
/// holds. Everything here is called with the promise's lock held while it is pending;
/// settling (`Core.settleAndSchedule`) takes both words out before it stores the value in
/// them, and nothing puts an object back once the promise is settled.
extension Core {
    // MARK: The handler list (pending)

    /// True if a continuation is registered.
    @inlinable @inline(__always)
    final var hasHandlers: Bool { handlersOrBits != 0 }

    /// Appends `continuation` (the list holds it).
    @inlinable @inline(__always)
    final func appendHandler(_ continuation: Continuation) {
        let current = handlersOrBits
        guard current != 0 else {
            handlersOrBits = retainedWord(continuation)
            return
        }
        if isInstance(current, of: HandlerArray.self) {
            Unmanaged<HandlerArray>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
                ._withUnsafeGuaranteedRef { $0.items.append(continuation) }
        } else {
            // The word's reference to the first continuation moves into the array.
            let first = unsafeDowncast(unretainedObject(current).takeRetainedValue(), to: Continuation.self)
            handlersOrBits = retainedWord(HandlerArray([first, continuation]))
        }
    }

    /// Moves the list out, leaving it empty.
    @inlinable @inline(__always)
    final func takeHandlers() -> HandlerList {
        let current = handlersOrBits
        handlersOrBits = 0
        return HandlerList(takingWord: current)
    }

    /// Puts `list` back into an empty slot (the slot takes over its reference).
    @usableFromInline
    final func putHandlers(_ list: consuming HandlerList) {
        handlersOrBits = list.storage.map(retainedWord) ?? 0
    }

    /// Removes every registration of `continuation`; true if there was one.
    final func removeHandler(_ continuation: Continuation) -> Bool {
        var list = takeHandlers()
        let found = list.remove(continuation)
        putHandlers(list)
        return found
    }

    /// True if the list is not empty and every registration is an adopter (see
    /// `HandlerList.consistsOfAdopters`).
    final var handlersConsistOfAdopters: Bool {
        let current = handlersOrBits
        guard current != 0 else { return false }
        if isInstance(current, of: HandlerArray.self) {
            return Unmanaged<HandlerArray>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
                ._withUnsafeGuaranteedRef { $0.items.allSatisfy(HandlerList.isAdopter) }
        }
        return Unmanaged<Continuation>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
            ._withUnsafeGuaranteedRef(HandlerList.isAdopter)
    }

    /// Schedules `continuation`, registered on this promise, which has settled: a
    /// combinator's registration is told which of its inputs settled (`GatherState`,
    /// registered on many), every other continuation is scheduled.
    @inline(__always)
    final func scheduleSettled(_ continuation: Continuation) {
        if let gather = GatherState.exactly(continuation) {
            gather.inputSettled(self)
        } else {
            continuation.schedule()
        }
    }

    // MARK: What it waits on (pending)

    /// Sets the upstream of a new promise that waits on nothing yet.
    @inlinable @inline(__always)
    final func setFirstUpstream(_ upstream: Core) {
        backOrType = retainedWord(upstream)
    }

    /// Makes a new combinator result wait on the inputs of `state`, its registration.
    final func setGathering(_ state: GatherState) {
        backOrType = retainedWord(state)
    }

    /// The promise this one waits on (the source of its link, or the promise it adopted;
    /// a combinator's first input).
    @inline(__always)
    final var upstream: Core? {
        unretainedUpstream?.takeUnretainedValue()
    }

    /// `upstream` without taking a reference: the caller holds the lock, and the promise
    /// holds what it waits on until then.
    @inline(__always)
    final var unretainedUpstream: Unmanaged<Core>? {
        let current = backOrType
        guard current != 0 else { return nil }
        if isInstance(current, of: Extras.self) {
            let extras = Unmanaged<Extras>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
            return extras._withUnsafeGuaranteedRef { $0.upstream.map(Unmanaged.passUnretained) }
        }
        if _slowPath(isInstance(current, of: GatherState.self)) {
            let state = Unmanaged<GatherState>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
            return state._withUnsafeGuaranteedRef { $0.inputs.first.map(Unmanaged.passUnretained) }
        }
        return Unmanaged<Core>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
    }

    /// The inputs of the `GatherState` a combinator result's back word holds.
    final func gatheredInputs(_ word: UInt) -> [Core] {
        Unmanaged<GatherState>.fromOpaque(UnsafeRawPointer(bitPattern: word)!).takeUnretainedValue().inputs
    }

    /// Sets the upstream, returning the previous one (to be released outside the lock).
    @usableFromInline
    final func replaceUpstream(with upstream: Core?) -> Core? {
        if backOrType != 0, isInstance(backOrType, of: GatherState.self) { _ = extras() }
        if let extras = existingExtras {
            let previous = extras.upstream
            extras.upstream = upstream
            return previous
        }
        let current = backOrType
        backOrType = upstream.map(retainedWord) ?? 0
        guard current != 0 else { return nil }
        return unsafeDowncast(unretainedObject(current).takeRetainedValue(), to: Core.self)
    }

    /// The extras, made if needed (pending promises only).
    final func extras() -> Extras {
        if let extras = existingExtras { return extras }
        let extras = Extras()
        let current = backOrType
        if current != 0 {
            if isInstance(current, of: GatherState.self) {
                // A combinator's result: its inputs move into the extras (the registration
                // stays on them).
                let inputs = gatheredInputs(current)
                extras.upstream = inputs.first
                extras.moreUpstreams = inputs.dropFirst()
                unretainedObject(current).release()
            } else {
                // The word's reference to the upstream moves into the extras.
                extras.upstream = unsafeDowncast(unretainedObject(current).takeRetainedValue(), to: Core.self)
            }
        }
        backOrType = retainedWord(extras)
        return extras
    }

    /// The extras if there are any.
    @inlinable
    final var existingExtras: Extras? {
        let current = backOrType
        guard current != 0 else { return nil }
        // (Not a combinator's `GatherState` either.)
        guard isInstance(current, of: Extras.self) else { return nil }
        return Unmanaged<Extras>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue()
    }

    /// After settling: lets go of the word of what the promise waited on (taken out under
    /// the lock by `settleAndSchedule`): its upstream, or its extras and all they hold.
    @inline(__always)
    static func releaseBack(_ word: UInt) {
        if word != 0 { unretainedObject(word).release() }
    }

    /// After settling by cancellation: what the promise waited on, as the upstreams to
    /// carry the request to and the cancel handlers to run.
    static func released(fromBack word: UInt) -> Released {
        guard word != 0 else { return Released() }
        let object = unretainedObject(word).takeRetainedValue()
        if let extras = Extras.exactly(object) {
            return Released(upstream: extras.upstream, moreUpstreams: extras.moreUpstreams,
                            cancelHandlers: extras.cancelHandlers)
        }
        if let state = object as? GatherState {
            return Released(upstream: state.inputs.first, moreUpstreams: state.inputs.dropFirst())
        }
        return Released(upstream: unsafeDowncast(object, to: Core.self))
    }

    /// Lets go of both words of a pending promise that is being freed: the handlers
    /// without recursing down the chain, and (for a forwarded promise, the only one that
    /// holds its upstream without being in its handler list) the upstream the same way.
    @usableFromInline
    final func releasePendingWords(forwarded: Bool) {
        if hasHandlers { ThreadState.release(takeHandlers()) }
        let current = backOrType
        guard current != 0 else { return }
        backOrType = 0
        if forwarded {
            // Moved into a list, never bound to a local that would drop it here (after the
            // drain, by a recursion down the chain).
            ThreadState.release(HandlerList(unretainedObject(current).takeRetainedValue()))
        } else {
            unretainedObject(current).release()
        }
    }
}

/// A +1 reference to `object` as a word (see `Core.handlersOrBits`).
@inlinable @inline(__always)
func retainedWord(_ object: AnyObject) -> UInt {
    UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())
}

/// True if the non-zero `word` refers to an object of exactly the class `type` (not a
/// subclass): one load of the object's isa and a compare.
@inlinable @inline(__always)
func isInstance(_ word: UInt, of type: AnyClass) -> Bool {
    UnsafeRawPointer(bitPattern: word)!.load(as: UnsafeRawPointer.self) == unsafeBitCast(type, to: UnsafeRawPointer.self)
}

/// The object a non-zero word refers to, not retained.
@inlinable @inline(__always)
func unretainedObject(_ word: UInt) -> Unmanaged<AnyObject> {
    Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word)!)
}

/// A handler list moved out of a promise: nil, one `Continuation`, or a `HandlerArray`.
/// Most promises have one handler, which is stored directly. Owned: it holds its
/// continuations until it is dropped or scheduled.
@usableFromInline
struct HandlerList {
    /// nil, a `Continuation`, or a `HandlerArray`.
    @usableFromInline var storage: AnyObject?

    @inlinable
    init(_ storage: AnyObject?) { self.storage = storage }

    /// The list a pending promise's word held (a +1 reference or 0), taking it over.
    @inlinable @inline(__always)
    init(takingWord word: UInt) {
        storage = word == 0 ? nil : unretainedObject(word).takeRetainedValue()
    }

    /// The empty list.
    @inlinable
    static var none: HandlerList { HandlerList(nil) }

    @inlinable
    var isEmpty: Bool { storage == nil }

    /// Appends `continuation`.
    @inlinable
    mutating func append(_ continuation: Continuation) {
        guard let current = storage else {
            storage = continuation
            return
        }
        if let array = HandlerArray.exactly(current) {
            array.items.append(continuation)
        } else {
            storage = HandlerArray([unsafeDowncast(current, to: Continuation.self), continuation])
        }
    }

    /// Removes every registration of `continuation`; true if there was one.
    mutating func remove(_ continuation: Continuation) -> Bool {
        guard let current = storage else { return false }
        if let array = HandlerArray.exactly(current) {
            let before = array.items.count
            array.items.removeAll { $0 === continuation }
            if array.items.isEmpty { storage = nil }
            return array.items.count != before
        }
        guard current === continuation else { return false }
        storage = nil
        return true
    }

    /// Schedules every continuation, in order, after `source` (the promise that held the
    /// list) settled. Called outside every lock.
    @inline(__always)
    consuming func scheduleAll(after source: Core) {
        guard let current = storage else { return }
        if let array = HandlerArray.exactly(current) {
            for continuation in array.items { source.scheduleSettled(continuation) }
        } else {
            source.scheduleSettled(unsafeDowncast(current, to: Continuation.self))
        }
    }

    /// Calls `body` with each continuation, in order (no array is made).
    consuming func forEach(_ body: (Continuation) -> Void) {
        guard let current = storage else { return }
        if let array = HandlerArray.exactly(current) {
            for continuation in array.items { body(continuation) }
        } else {
            body(unsafeDowncast(current, to: Continuation.self))
        }
    }

    /// True if the list is not empty and every registration is an adopter: a promise that
    /// follows the promise holding the list (the only promises registered with the
    /// `adopting` flag set; a link registered on its source adopts only after its source
    /// settled and emptied the list). Read under the holder's lock.
    var consistsOfAdopters: Bool {
        guard let current = storage else { return false }
        if let array = HandlerArray.exactly(current) {
            return array.items.allSatisfy(HandlerList.isAdopter)
        }
        return HandlerList.isAdopter(unsafeDowncast(current, to: Continuation.self))
    }

    static func isAdopter(_ continuation: Continuation) -> Bool {
        continuation.tag == Core.promiseTag && continuation.flags.contains(.adopting)
    }

    /// The continuations, as an array (rare paths).
    var all: [Continuation] {
        guard let current = storage else { return [] }
        if let array = HandlerArray.exactly(current) { return array.items }
        return [unsafeDowncast(current, to: Continuation.self)]
    }
}

/// More than one registration: owned by the promise's handler list, touched under its
/// lock only.
@usableFromInline
final class HandlerArray: ExactlyTyped {
    @usableFromInline var items: [Continuation]

    @inlinable
    init(_ items: [Continuation]) { self.items = items }
}

/// A final class whose objects share a slot with objects of other classes (a handler
/// list's word, a promise's back word, a list of continuations) and are told apart by
/// `exactly(_:)`.
@usableFromInline
protocol ExactlyTyped: AnyObject {}

extension ExactlyTyped {
    /// `object` if its class is exactly this one (an exact type check: one load and a
    /// compare, where `as?` calls into the runtime).
    @inlinable @inline(__always)
    static func exactly(_ object: AnyObject) -> Self? {
        guard ObjectIdentifier(type(of: object)) == ObjectIdentifier(Self.self) else { return nil }
        return unsafeDowncast(object, to: Self.self)
    }
}

/// Rarely used state of a pending promise, out of line so a plain promise stays small.
/// It goes when the promise settles (see `Core.releaseBack`).
@usableFromInline final class Extras: ExactlyTyped {
    /// The promise this one waits on.
    @usableFromInline var upstream: Core?
    /// More promises it waits on (combinators wait on many: the rest of their inputs,
    /// sharing the inputs' array).
    @usableFromInline var moreUpstreams: ArraySlice<Core> = []
    /// The producer's cancel handlers (registered through the resolver of each face).
    @usableFromInline var cancelHandlers: [Continuation] = []
    /// The serial dispatcher whose job will settle this promise (thenable assimilation),
    /// for deadlock detection.
    @usableFromInline var settler: ObjectIdentifier?
    /// The starter of a lazy promise that has not started (see `Core+Lazy.swift`).
    var lazyStart: LazyStart?

    @usableFromInline init() {}
}

/// What a promise lets go of when it settles: released by the caller outside the lock, or,
/// for a cancellation, the upstreams to carry it to and the cancel handlers to run.
@usableFromInline package struct Released {
    @usableFromInline var upstream: Core?
    @usableFromInline var moreUpstreams: ArraySlice<Core> = []
    @usableFromInline var cancelHandlers: [Continuation] = []

    @inlinable
    init(upstream: Core? = nil, moreUpstreams: ArraySlice<Core> = [], cancelHandlers: [Continuation] = []) {
        self.upstream = upstream
        self.moreUpstreams = moreUpstreams
        self.cancelHandlers = cancelHandlers
    }

    /// Every upstream.
    @usableFromInline var upstreams: [Core] {
        guard let upstream else { return Array(moreUpstreams) }
        return [upstream] + moreUpstreams
    }
}
