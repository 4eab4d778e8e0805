import Synchronization

/// The Promises/A+ resolution procedure, as far as the engine runs it. Faces classify
/// their values (they know which of their values are promises or thenables) and the engine
/// adopts, assimilates or fulfils.

/// What the resolution procedure does with a value `x`.
@usableFromInline package enum Resolution {
    /// `x` is a promise: adopt its state (2.3.2).
    case adopt(Core)
    /// `x` may be a thenable: look `then` up once and call it (2.3.3).
    case assimilate(any ThenableSource)
    /// Fulfil with `x` as it is (2.3.4).
    case fulfil
}

/// A value that knows how the resolution procedure treats it (the faces' promise types,
/// C values).
package protocol Resolvable {
    var resolution: Resolution { get }
}

/// Something that may have a `then` method: a thenable of one of the faces (a conforming
/// Swift type, or a foreign object with a table of callbacks). The face that made it says how the values it resolves with are
/// classified.
@usableFromInline package protocol ThenableSource: Sendable {
    /// Looks the then-method up (once per resolution, A+ 2.3.3.1).
    /// `.success(nil)`: not a thenable, fulfil with `fulfilmentValue`.
    func lookUpThen() -> Result<ThenMethod?, any Error>
    /// What the promise is fulfilled with when `lookUpThen` finds no method.
    func fulfilmentValue() -> StoredValue
    /// How the procedure treats a value `y` the thenable resolved with (A+ 2.3.3.3.1).
    func resolution(of y: Any) -> Resolution
}

/// A looked-up then-method, ready to be called once with a resolve/reject pair.
@usableFromInline package struct ThenMethod: @unchecked Sendable {
    // @unchecked: the call is made once, from a job on the default dispatcher.
    @usableFromInline package typealias Call = (_ target: Core,
                              _ resolve: @escaping @Sendable (Any) -> Void,
                              _ reject: @escaping @Sendable (any Error) -> Void) throws -> Void

    /// The call; `target` is the promise being resolved (a C thenable's once-only resolver
    /// registers cancel handlers on it).
    @usableFromInline let call: Call

    @usableFromInline package init(_ call: @escaping Call) {
        self.call = call
    }
}

/// The state shared by the resolve/reject pair handed to a thenable's `then`: the first
/// call wins; if the thenable releases both callbacks without calling either, the promise
/// can never settle, so it is rejected with the broken-promise error (as a resolver
/// released unused would be) instead of hanging and keeping its chain alive.
@usableFromInline final class ThenableCallbacks: Sendable {
    @usableFromInline let target: Core
    @usableFromInline let once = OnceFlag()

    @usableFromInline init(target: Core) { self.target = target }

    deinit {
        if once.claim() {
            target.reject(EngineError.broken(at: target, "a thenable released its callbacks without calling either"))
        }
    }
}

/// Lets only the first of several callers through (the once-only resolver pair of
/// Promises/A+ 2.3.3.3.3).
@usableFromInline package final class OnceFlag: Sendable {
    private let used = Atomic<Bool>(false)
    @usableFromInline package init() {}
    /// True for the first caller only.
    @usableFromInline package func claim() -> Bool {
        !used.exchange(true, ordering: .acquiringAndReleasing)
    }
    @usableFromInline package var isUsed: Bool { used.load(ordering: .acquiring) }
}

extension Core {
    /// The procedure once `x` was classified: adopts, assimilates, or fulfils with `x`
    /// (stored as its dynamic type). The caller has the right to settle this promise.
    @usableFromInline package final func resolve(_ x: Any, as resolution: Resolution) {
        switch resolution {
        case .adopt(let source): follow(source)
        case .assimilate(let thenable): assimilate(thenable)
        case .fulfil: settle(StoredValue(dynamic: x), rejected: false)
        }
    }

    /// The procedure through the resolver (the faces' `resolve`): adopting
    /// or assimilating uses the resolver up. Returns false if it was already used.
    @usableFromInline package final func resolveFromResolver(_ x: Any, as resolution: Resolution) -> Bool {
        switch resolution {
        case .adopt(let source):
            guard claimResolver() else { return false }
            follow(source)
        case .assimilate(let thenable):
            guard claimResolver() else { return false }
            assimilate(thenable)
        case .fulfil:
            return settle(StoredValue(dynamic: x), rejected: false, viaResolver: true)
        }
        return true
    }

    /// Promises/A+ 2.3.3: in a job on the default dispatcher (never inline), look `then` up
    /// once, call it with a once-only pair, ignore everything after the first settle, and
    /// treat a throw after settling as nothing.
    @usableFromInline final func assimilate(_ source: any ThenableSource) {
        let queue = Dispatchers.currentDefault
        let settler = ObjectIdentifier(queue)
        var flags = lock()
        if !flags.contains(.settled) { extras().settler = settler }
        unlock(flags)
        flags = []
        submitContinuation(ClosureJob { [self] in
            switch source.lookUpThen() {
            case .failure(let error):
                self.reject(error)
            case .success(nil):
                self.settle(source.fulfilmentValue(), rejected: false)
            case .success(let method?):
                let pair = ThenableCallbacks(target: self)
                do {
                    try method.call(self, { y in
                        if pair.once.claim() { pair.target.resolve(y, as: source.resolution(of: y)) }
                    }, { error in
                        if pair.once.claim() { pair.target.reject(error) }
                    })
                } catch {
                    if pair.once.claim() { self.reject(error) }
                }
            }
        }, to: queue)
    }
}
