import Synchronization

/// What the Promises/A+ resolution procedure does with a value `x`.
enum Resolution {
    /// `x` is a promise: adopt its state (2.3.2).
    case adopt(Core)
    /// `x` may be a thenable: look `then` up once and call it (2.3.3).
    case assimilate(any ThenableSource)
    /// Fulfil with `x` as it is (2.3.4).
    case fulfil
}

/// A value that knows how the resolution procedure treats it (promises, C values).
protocol Resolvable {
    var resolution: Resolution { get }
}

/// Something that may have a `then` method: a Swift `Thenable` or a C object described by
/// a `vow_thenable_class`.
protocol ThenableSource: Sendable {
    /// Looks the then-method up (once per resolution, A+ 2.3.3.1).
    /// `.success(nil)`: not a thenable, fulfil with the object itself.
    func lookUpThen() -> Result<ThenMethod?, any Error>
    /// The value a promise is fulfilled with when `lookUpThen` finds no method.
    var fulfilmentValue: Any { get }
}

/// A looked-up then-method, ready to be called once with a resolve/reject pair.
struct ThenMethod: @unchecked Sendable {
    // @unchecked: the call is made once, from a job on the default dispatcher.
    let call: (_ resolve: @escaping @Sendable (Any) -> Void,
               _ reject: @escaping @Sendable (any Error) -> Void) throws -> Void

    /// The same call, also told which promise is being resolved: set by sources that need
    /// it (a C thenable's once-only resolver registers `vow_resolver_on_cancel` handlers on
    /// that promise); nil for the others.
    let targeted: ((_ target: Core,
                    _ resolve: @escaping @Sendable (Any) -> Void,
                    _ reject: @escaping @Sendable (any Error) -> Void) throws -> Void)?

    init(call: @escaping (_ resolve: @escaping @Sendable (Any) -> Void,
                          _ reject: @escaping @Sendable (any Error) -> Void) throws -> Void) {
        self.call = call
        targeted = nil
    }

    /// A method that needs the promise being resolved. Called without one (through
    /// `call`), it throws a library error instead of running.
    init(targeted: @escaping (_ target: Core,
                              _ resolve: @escaping @Sendable (Any) -> Void,
                              _ reject: @escaping @Sendable (any Error) -> Void) throws -> Void) {
        self.targeted = targeted
        call = { _, _ in
            throw VowError(.type, "this then-method must be called by the engine's resolution procedure")
        }
    }

    /// What the engine calls: `targeted` if set, else `call`.
    func invoke(resolving target: Core,
                _ resolve: @escaping @Sendable (Any) -> Void,
                _ reject: @escaping @Sendable (any Error) -> Void) throws {
        if let targeted {
            try targeted(target, resolve, reject)
        } else {
            try call(resolve, reject)
        }
    }
}

/// The state shared by the resolve/reject pair handed to a thenable's `then`: the first
/// call wins; if the thenable releases both callbacks without calling either, the promise
/// can never settle, so it is rejected with the broken-promise error (as a resolver
/// released unused would be) instead of hanging and keeping its chain alive.
final class ThenableCallbacks: Sendable {
    let target: Core
    let once = OnceFlag()

    init(target: Core) { self.target = target }

    deinit {
        if once.claim() {
            target.settle(.rejected(VowError(.broken, "a thenable released its callbacks without calling either")))
        }
    }
}

/// Lets only the first of several callers through (the once-only resolver pair of A+ 2.3.3.3.3).
final class OnceFlag: Sendable {
    private let used = Atomic<Bool>(false)
    init() {}
    /// True for the first caller only.
    func claim() -> Bool {
        !used.exchange(true, ordering: .acquiringAndReleasing)
    }
    var isUsed: Bool { used.load(ordering: .acquiring) }
}

extension Core {
    /// Classifies `x` for the resolution procedure.
    static func resolution(of x: Any) -> Resolution {
        // C values are the common case on the C face: a class cast, no conformance lookup.
        if let value = x as? VowValue { return value.resolution }
        if let resolvable = x as? any Resolvable { return resolvable.resolution }
        if let thenable = x as? any Thenable { return .assimilate(SwiftThenableSource(thenable)) }
        return .fulfil
    }

    /// The Promises/A+ resolution procedure [[Resolve]](self, x), run by a link or by
    /// the once-only callbacks of a thenable. The caller owns the right to settle.
    func resolveProcedure(_ x: Any) {
        resolve(x, as: Core.resolution(of: x))
    }

    /// The procedure once `x` was classified (callers that know `x`'s type classify it
    /// without the dynamic protocol casts of `resolution(of:)`).
    func resolve(_ x: Any, as resolution: Resolution) {
        switch resolution {
        case .adopt(let source): follow(source)
        case .assimilate(let thenable): assimilate(thenable)
        case .fulfil: settle(.fulfilled(x))
        }
    }

    /// `vow_resolver_resolve` / `Resolver.resolve(procedure)`: the procedure through the
    /// resolver. Returns false if the resolver was already used.
    func resolveFromResolver(_ x: Any) -> Bool {
        switch Core.resolution(of: x) {
        case .adopt(let source):
            guard claimResolver() else { return false }
            follow(source)
        case .assimilate(let thenable):
            guard claimResolver() else { return false }
            assimilate(thenable)
        case .fulfil:
            return settleFromResolver(.fulfilled(x))
        }
        return true
    }

    /// Promises/A+ 2.3.3: in a job on the default dispatcher (never inline), look `then` up
    /// once, call it with a once-only pair, ignore everything after the first settle, and
    /// treat a throw after settling as nothing.
    func assimilate(_ source: any ThenableSource) {
        let queue = Vow.currentDefaultDispatcher
        setSettler(queue)
        submitJob(Job(body: { [self] _ in
            switch source.lookUpThen() {
            case .failure(let error):
                self.settle(.rejected(error))
            case .success(nil):
                self.settle(.fulfilled(source.fulfilmentValue))
            case .success(let method?):
                let pair = ThenableCallbacks(target: self)
                do {
                    try method.invoke(resolving: self, { y in
                        if pair.once.claim() { pair.target.resolveProcedure(y) }
                    }, { error in
                        if pair.once.claim() { pair.target.settle(.rejected(error)) }
                    })
                } catch {
                    if pair.once.claim() { self.settle(.rejected(error)) }
                }
            }
        }, outcome: .fulfilled(())), to: queue)
    }
}

/// A Swift `Thenable` (that is not a promise of this library) seen by the procedure.
struct SwiftThenableSource: ThenableSource, @unchecked Sendable {
    // @unchecked: the thenable is used once, from one job.
    let thenable: any Thenable

    init(_ thenable: any Thenable) { self.thenable = thenable }

    var fulfilmentValue: Any { thenable }

    func lookUpThen() -> Result<ThenMethod?, any Error> {
        let thenable = self.thenable
        return .success(ThenMethod { resolve, reject in
            callThen(thenable, resolve, reject)
        })
    }
}

private func callThen<T: Thenable>(_ thenable: T,
                                   _ resolve: @escaping @Sendable (Any) -> Void,
                                   _ reject: @escaping @Sendable (any Error) -> Void) {
    thenable.then({ value in resolve(value) }, { reason in reject(ThenableReason.error(for: reason)) })
}

/// A rejection reason that is not an `Error` (a thenable may reject with anything).
/// The seed `then(_:_:)` hands the original reason back to its error callback.
struct ThenableReason: Error, @unchecked Sendable {
    // @unchecked: the reason is immutable here and only handed back.
    let reason: Any?

    static func error(for reason: Any?) -> any Error {
        if let error = reason as? any Error { return error }
        return ThenableReason(reason: reason)
    }

    /// What a seed-style error callback receives for `error`.
    static func reason(for error: any Error) -> Any? {
        let error = unboxError(error)
        if let wrapped = error as? ThenableReason { return wrapped.reason }
        return error
    }
}
