/// What a promise keeps in one word: nothing, the one object it usually holds, or a rarer
/// object that holds more (`HandlerList`, `Back`).
///
/// One word, always a plain object reference (never a tagged enum payload): leak checkers
/// (valgrind, LeakSanitizer) must see every object a live promise holds.
@usableFromInline
package protocol OneWordSlot {
    /// `storage` as it is: nil, the usual object, or the holder of more.
    init(_ storage: AnyObject?)
}

extension OneWordSlot {
    /// The empty slot.
    @inlinable
    package static var none: Self { Self(nil) }
}

/// The continuations registered on a pending promise, in registration order. Most
/// promises have one, which is stored directly; more go in a `HandlerArray`.
@usableFromInline
package struct HandlerList: OneWordSlot {
    /// nil, a `Continuation`, or a `HandlerArray`.
    @usableFromInline var storage: AnyObject?

    @inlinable
    package init(_ storage: AnyObject?) { self.storage = storage }

    @inlinable
    package var isEmpty: Bool { storage == nil }

    /// Appends `continuation`.
    @inlinable
    package mutating func append(_ continuation: Continuation) {
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
    package mutating func remove(_ continuation: Continuation) -> Bool {
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

    /// Moves the list out, leaving it empty.
    @inlinable
    package mutating func take() -> HandlerList {
        let taken = self
        storage = nil
        return taken
    }

    /// Schedules every continuation, in order. Called outside every lock.
    @inlinable
    package consuming func scheduleAll() {
        guard let current = storage else { return }
        if let array = HandlerArray.exactly(current) {
            for continuation in array.items { continuation.schedule() }
        } else {
            unsafeDowncast(current, to: Continuation.self).schedule()
        }
    }

    /// Calls `body` with each continuation, in order (no array is made).
    package consuming func forEach(_ body: (Continuation) -> Void) {
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
    package var consistsOfAdopters: Bool {
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
    package var all: [Continuation] {
        guard let current = storage else { return [] }
        if let array = HandlerArray.exactly(current) { return array.items }
        return [unsafeDowncast(current, to: Continuation.self)]
    }
}

/// More than one registration: owned by the promise's handler list, touched under its
/// lock only.
@usableFromInline
package final class HandlerArray {
    @usableFromInline var items: [Continuation]

    @inlinable
    init(_ items: [Continuation]) { self.items = items }

    /// `object` if it is a `HandlerArray` (an exact type check: one load and a compare,
    /// where `as?` calls into the runtime).
    @inlinable @inline(__always)
    static func exactly(_ object: AnyObject) -> HandlerArray? {
        guard ObjectIdentifier(type(of: object)) == ObjectIdentifier(HandlerArray.self) else { return nil }
        return unsafeDowncast(object, to: HandlerArray.self)
    }
}

/// What a pending promise holds besides its handlers: the promise it waits on, or (rarely)
/// an `Extras` object that holds it with the rest.
@usableFromInline
package struct Back: OneWordSlot {
    /// nil, the upstream `Core`, or an `Extras`.
    @usableFromInline var storage: AnyObject?

    @inlinable
    package init(_ storage: AnyObject?) { self.storage = storage }

    /// Just an upstream.
    @inlinable
    package static func one(_ upstream: Core) -> Back { Back(upstream) }

    /// The promise this one waits on (the source of its link, or the promise it adopted).
    @inlinable
    package var upstream: Core? {
        guard let current = storage else { return nil }
        if let extras = Extras.exactly(current) { return extras.upstream }
        return unsafeDowncast(current, to: Core.self)
    }

    /// Sets the upstream, returning the previous one (to be released outside the lock).
    @inlinable
    package mutating func replaceUpstream(with upstream: Core?) -> Core? {
        if let extras = existingExtras {
            let previous = extras.upstream
            extras.upstream = upstream
            return previous
        }
        let previous = storage.map { unsafeDowncast($0, to: Core.self) }
        storage = upstream
        return previous
    }

    /// The extras, made if needed.
    package mutating func extras() -> Extras {
        if let extras = existingExtras { return extras }
        let extras = Extras()
        extras.upstream = storage.map { unsafeDowncast($0, to: Core.self) }
        storage = extras
        return extras
    }

    /// The extras if there are any.
    @inlinable
    package var existingExtras: Extras? {
        storage.flatMap(Extras.exactly)
    }

    /// On settling: lets go of the upstreams and cancel handlers (the caller releases them
    /// outside the lock, or carries a cancellation on); keeps the rest of the extras.
    @inlinable
    package mutating func takeOnSettle() -> Released {
        guard let current = storage else { return Released() }
        if let extras = Extras.exactly(current) { return extras.takeOnSettle() }
        storage = nil
        return Released(upstream: unsafeDowncast(current, to: Core.self))
    }
}

/// Rarely used state of a promise, out of line so a plain promise stays small.
@usableFromInline package final class Extras {
    /// The promise this one waits on.
    @usableFromInline package var upstream: Core?
    /// More promises it waits on (combinators wait on many).
    @usableFromInline package var moreUpstreams: [Core] = []
    /// The producer's cancel handlers (registered through the resolver of each face).
    @usableFromInline package var cancelHandlers: [Continuation] = []
    /// The serial dispatcher whose job will settle this promise (thenable assimilation),
    /// for deadlock detection.
    @usableFromInline package var settler: ObjectIdentifier?
    /// What a face keeps with this promise (the C face: the C forms of its value and
    /// error, so every read hands out the same handle).
    @usableFromInline package var faceCache: AnyObject?
    /// Where the promise was made (debug mode).
    @usableFromInline package var debug: DebugRecord?
    /// The starter of a lazy promise that has not started (see `Core+Lazy.swift`).
    package var lazyStart: LazyStart?

    @usableFromInline package init() {}

    /// `object` if it is an `Extras` (an exact type check, see `HandlerArray.exactly`).
    @inlinable @inline(__always)
    static func exactly(_ object: AnyObject) -> Extras? {
        guard ObjectIdentifier(type(of: object)) == ObjectIdentifier(Extras.self) else { return nil }
        return unsafeDowncast(object, to: Extras.self)
    }

    @usableFromInline
    func takeOnSettle() -> Released {
        let released = Released(upstream: upstream, moreUpstreams: moreUpstreams, cancelHandlers: cancelHandlers)
        upstream = nil
        moreUpstreams = []
        cancelHandlers = []
        settler = nil
        return released
    }
}

/// What a promise lets go of when it settles: released by the caller outside the lock, or,
/// for a cancellation, the upstreams to carry it to and the cancel handlers to run.
@usableFromInline package struct Released {
    @usableFromInline package var upstream: Core?
    @usableFromInline package var moreUpstreams: [Core] = []
    @usableFromInline package var cancelHandlers: [Continuation] = []

    @inlinable
    package init(upstream: Core? = nil, moreUpstreams: [Core] = [], cancelHandlers: [Continuation] = []) {
        self.upstream = upstream
        self.moreUpstreams = moreUpstreams
        self.cancelHandlers = cancelHandlers
    }

    /// Every upstream.
    @usableFromInline package var upstreams: [Core] {
        guard let upstream else { return moreUpstreams }
        return [upstream] + moreUpstreams
    }
}
