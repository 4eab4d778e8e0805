/// The object behind a `vow_resolver *`: the right to settle one pending promise.
///
/// Two kinds, both `CResolver`s:
/// - `PrimaryResolver` (`vow_promise_pending`): settles through the promise's own resolver
///   state (`Core.fulfilFromResolver`, `resolveFromResolver`), so `VOW_EALREADY` comes
///   from the engine. Its deinit applies the broken-promise rule
///   (`Core.breakIfResolverUnused`). One word of its own: a pending C promise stays small.
/// - `OnceResolver`, handed to a thenable class's `call_then` (Promises/A+ 2.3.3.3).
///
/// Any thread may use either kind; the engine settles under its own lock.
class CResolver: HandleObject, @unchecked Sendable {
    // @unchecked: immutable after `init`; `Core` is thread-safe.

    /// The promise this resolver settles.
    let core: Core

    init(_ core: Core) {
        self.core = core
        super.init(tag: .resolver)
    }

    /// `vow_resolver_fulfill`: false if the resolver was already used. A value that holds
    /// this resolver's own promise (`VowValue.reaches`) rejects it with the cycle error.
    func fulfill(_ value: VowValue) -> Bool {
        if value.reaches(core) { return core.rejectFromResolver(EngineError.cycle) }
        return Unmanaged.passUnretained(core)._withUnsafeGuaranteedRef { $0.fulfilFromResolver(value) }
    }

    /// `vow_resolver_reject`: false if the resolver was already used.
    func reject(_ error: VowErrorBox) -> Bool {
        core.rejectFromResolver(error)
    }

    /// `vow_resolver_resolve`: the resolution procedure; false if already used.
    func resolve(_ value: VowValue) -> Bool {
        guard value.needsProcedure else { return fulfill(value) }
        return core.resolveFromResolver(value, as: value.resolution)
    }

    /// `vow_resolver_is_used` (and its 0.1 name, `vow_resolver_is_settled`).
    var isUsed: Bool {
        core.isResolverUsed
    }
}

/// The resolver `vow_promise_pending` hands out.
final class PrimaryResolver: CResolver, @unchecked Sendable {
    // @unchecked: see `CResolver`.
    deinit {
        // Borrowed: the resolver holds the promise for as long as this runs.
        Unmanaged.passUnretained(core)._withUnsafeGuaranteedRef { $0.breakIfResolverUnused() }
    }
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
