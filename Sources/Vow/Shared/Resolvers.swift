/// What a `vow_resolver *` points at: the right to settle one pending promise. Three kinds:
///
/// - The resolver of `vow_promise_pending` lives inside its promise (the engine's
///   `ResolvableCore`: promise and resolver in one allocation). The handle is an interior
///   pointer tagged `primaryResolver`; the resolver counts its own references and applies
///   the broken-promise rule when the last one goes.
/// - `PrimaryResolver`: the same rights as an object of its own, for a promise the engine
///   made (a lazy producer's).
/// - `OnceResolver`, handed to a thenable class's `call_then` (Promises/A+ 2.3.3.3).
///
/// The first two settle through the promise's own resolver state (`Core.fulfilFromResolver`,
/// `resolveFromResolver`), so `VOW_EALREADY` comes from the engine. The entry points see
/// every kind through `CResolverRef`. Any thread may use any kind; the engine settles under
/// its own lock.
class CResolver: HandleObject, @unchecked Sendable {
    // @unchecked: immutable after `init`; `Core` is thread-safe.

    /// The promise this resolver settles.
    let core: Core

    init(_ core: Core) {
        self.core = core
        super.init(tag: .resolver)
    }

    /// `vow_resolver_fulfill`: false if the resolver was already used.
    func fulfill(_ value: VowValue) -> Bool {
        core.fulfilAsPrimary(value)
    }

    /// `vow_resolver_reject`: false if the resolver was already used.
    func reject(_ error: VowErrorBox) -> Bool {
        core.rejectFromResolver(error)
    }

    /// `vow_resolver_resolve`: the resolution procedure; false if already used.
    func resolve(_ value: VowValue) -> Bool {
        core.resolveAsPrimary(value)
    }

    /// `vow_resolver_is_used` (and its 0.1 name, `vow_resolver_is_settled`).
    var isUsed: Bool {
        core.isResolverUsed
    }
}

/// A primary resolver as an object of its own (see `CResolver`).
final class PrimaryResolver: CResolver, @unchecked Sendable {
    // @unchecked: see `CResolver`.
    deinit {
        // Borrowed: the resolver holds the promise for as long as this runs.
        Unmanaged.passUnretained(core)._withUnsafeGuaranteedRef { $0.breakIfResolverUnused() }
    }
}

extension Core {
    /// Fulfils through the promise's own resolver state: false if the resolver was used. A
    /// value that holds this very promise (`VowValue.reaches`) rejects it with the cycle
    /// error.
    @inline(__always)
    func fulfilAsPrimary(_ value: VowValue) -> Bool {
        if value.reaches(self) { return rejectFromResolver(EngineError.cycle) }
        return fulfilFromResolver(value)
    }

    /// The resolution procedure through the promise's own resolver state.
    func resolveAsPrimary(_ value: VowValue) -> Bool {
        guard value.needsProcedure else { return fulfilAsPrimary(value) }
        return resolveFromResolver(value, as: value.resolution)
    }
}

/// A `vow_resolver *`, checked, borrowed from the caller (whose reference keeps it alive).
enum CResolverRef {
    /// The resolver inside the promise of `vow_promise_pending`.
    case inPromise(ResolvableCore)
    /// A resolver object.
    case object(CResolver)

    /// The promise the resolver settles.
    var core: Core {
        switch self {
        case .inPromise(let core): return core
        case .object(let resolver): return resolver.core
        }
    }

    /// `vow_resolver_fulfill`: false if the resolver was already used.
    @inline(__always)
    func fulfill(_ value: VowValue) -> Bool {
        switch self {
        case .inPromise(let core): return core.fulfilAsPrimary(value)
        case .object(let resolver): return resolver.fulfill(value)
        }
    }

    /// `vow_resolver_reject`: false if the resolver was already used.
    func reject(_ error: VowErrorBox) -> Bool {
        switch self {
        case .inPromise(let core): return core.rejectFromResolver(error)
        case .object(let resolver): return resolver.reject(error)
        }
    }

    /// `vow_resolver_resolve`: the resolution procedure; false if already used.
    func resolve(_ value: VowValue) -> Bool {
        switch self {
        case .inPromise(let core): return core.resolveAsPrimary(value)
        case .object(let resolver): return resolver.resolve(value)
        }
    }

    /// `vow_resolver_is_used`.
    var isUsed: Bool {
        switch self {
        case .inPromise(let core): return core.isResolverUsed
        case .object(let resolver): return resolver.isUsed
        }
    }
}

/// A `vow_resolver *` checked and decoded, nothing retained.
enum UnmanagedResolver {
    case inPromise(Unmanaged<ResolvableCore>)
    case object(Unmanaged<CResolver>)

    /// Checks that `pointer` is a live resolver handle of either form; NULL is nil
    /// silently, anything else nil with the diagnostic of `handle(_:_:as:in:)`.
    @inline(__always)
    init?(_ pointer: OpaquePointer?, in function: StaticString) {
        guard let pointer else { return nil }
        let raw = UnsafeRawPointer(pointer)
        let found = raw.load(fromByteOffset: handleTagOffset, as: UInt32.self)
        if found == HandleTag.primaryResolver.rawValue {
            let core = ResolvableCore.promise(fromResolverHandle: raw)
            guard isThisEnginesObject(UnsafeRawPointer(core.toOpaque()), .resolver, in: function) else { return nil }
            self = .inPromise(core)
        } else if found == HandleTag.resolver.rawValue {
            guard isThisEnginesObject(raw, .resolver, in: function) else { return nil }
            self = .object(Unmanaged.fromOpaque(raw))
        } else {
            reportWrongHandle(found: found, expected: .resolver, in: function)
            return nil
        }
    }

    /// Runs `body` with the resolver borrowed.
    @inline(__always)
    func withBorrowed<R>(_ body: (CResolverRef) -> R) -> R {
        switch self {
        case .inPromise(let core): return core._withUnsafeGuaranteedRef { body(.inPromise($0)) }
        case .object(let resolver): return resolver._withUnsafeGuaranteedRef { body(.object($0)) }
        }
    }

    /// `vow_resolver_retain`.
    func retain() {
        switch self {
        case .inPromise(let core): core._withUnsafeGuaranteedRef { $0.retainResolver() }
        case .object(let resolver): _ = resolver.retain()
        }
    }

    /// `vow_resolver_release`: the last release of a primary resolver applies the
    /// broken-promise rule.
    func release() {
        switch self {
        case .inPromise(let core): ResolvableCore.releaseResolver(of: core)
        case .object(let resolver): resolver.release()
        }
    }
}

/// Runs `body` with the resolver behind a `vow_resolver *`, borrowed for the call;
/// `fallback` for NULL or a handle of another kind.
@inline(__always)
func withResolverHandle<R>(_ pointer: OpaquePointer?, in function: StaticString,
                           else fallback: @autoclosure () -> R, _ body: (CResolverRef) -> R) -> R {
    guard let resolver = UnmanagedResolver(pointer, in: function) else { return fallback() }
    return resolver.withBorrowed(body)
}

/// The resolver behind a `vow_resolver *` (retained by the returned value), or nil.
func resolverHandle(_ pointer: OpaquePointer?, in function: StaticString) -> CResolverRef? {
    withResolverHandle(pointer, in: function, else: nil) { $0 }
}

/// A once-only resolver for the thenable procedure (handed to a class's `call_then`): a
/// fresh resolver per call, gated by its own `OnceFlag`, settling through the engine's
/// resolve/reject pair. The first settle wins, later ones answer `VOW_EALREADY`, and a
/// throw from `call_then` after it counts for nothing. Released unused, it rejects the
/// promise with `VOW_ERROR_BROKEN` too.
final class OnceResolver: CResolver, @unchecked Sendable {
    // @unchecked: immutable after `init`; `once` is atomic.
    let once = OnceFlag()
    private let resolveOnce: @Sendable (Any) -> Void
    private let rejectOnce: @Sendable (any Error) -> Void

    init(for core: Core, resolve: @escaping @Sendable (Any) -> Void,
         reject: @escaping @Sendable (any Error) -> Void) {
        resolveOnce = resolve
        rejectOnce = reject
        super.init(core)
    }

    deinit {
        if once.claim() {
            rejectOnce(EngineError.broken(at: core, "the resolver handed to a thenable's then was released before it was used"))
        }
    }

    override func fulfill(_ value: VowValue) -> Bool {
        guard once.claim() else { return false }
        // A plain value fulfils as it is: a PROMISE or THENABLE must not be adopted here.
        if value.reaches(core) {
            core.reject(EngineError.cycle)
        } else {
            core.fulfil(value)
        }
        return true
    }

    override func reject(_ error: VowErrorBox) -> Bool {
        guard once.claim() else { return false }
        rejectOnce(error)
        return true
    }

    override func resolve(_ value: VowValue) -> Bool {
        guard once.claim() else { return false }
        resolveOnce(value)
        return true
    }

    /// Claims the resolver for a throw from `call_then`: true if the throw counts (nothing
    /// settled through this resolver before).
    func claimForThrow() -> Bool {
        once.claim()
    }

    override var isUsed: Bool {
        once.isUsed || !core.isPending
    }
}
