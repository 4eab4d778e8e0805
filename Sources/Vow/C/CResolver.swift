/// The object behind a `vow_resolver *`: the right to settle one pending promise.
///
/// Two modes:
/// - primary (`vow_promise_pending`): settles through the promise's own resolver state
///   (`Core.fulfilFromResolver`, `resolveFromResolver`), so `VOW_EALREADY` comes from the
///   engine. Its deinit applies the broken-promise rule (`Core.breakIfResolverUnused`).
/// - once-only (handed to a thenable class's `call_then`, Promises/A+ 2.3.3.3): a fresh
///   resolver per call, gated by its own `OnceFlag`: the first settle wins, later ones
///   answer `VOW_EALREADY`, and a throw from `call_then` after it counts for nothing.
///   Released unused, it rejects the promise with `VOW_ERROR_BROKEN` too.
///
/// Any thread may use either kind; the engine settles under its own lock.
final class CResolver: HandleObject, @unchecked Sendable {
    // @unchecked: immutable after `init`; `once` is atomic and `Core` thread-safe.

    /// The promise this resolver settles.
    let core: Core
    /// nil for a primary resolver.
    let once: OnceFlag?
    private let resolveOnce: (@Sendable (Any) -> Void)?
    private let rejectOnce: (@Sendable (any Error) -> Void)?

    /// A primary resolver for `core`.
    init(primary core: Core) {
        self.core = core
        once = nil
        resolveOnce = nil
        rejectOnce = nil
        super.init(tag: .resolver)
    }

    /// A once-only resolver for the thenable procedure settling `core` through the
    /// engine's `resolve` / `reject` pair.
    init(onceFor core: Core, resolve: @escaping @Sendable (Any) -> Void,
         reject: @escaping @Sendable (any Error) -> Void) {
        self.core = core
        once = OnceFlag()
        resolveOnce = resolve
        rejectOnce = reject
        super.init(tag: .resolver)
    }

    deinit {
        if let once {
            if once.claim() {
                rejectOnce!(EngineError.broken(at: core, "the resolver handed to a thenable's then was released before it was used"))
            }
        } else {
            core.breakIfResolverUnused()
        }
    }

    /// `vow_resolver_fulfill`: false if the resolver was already used.
    func fulfill(_ value: VowValue) -> Bool {
        guard let once else { return core.fulfilFromResolver(value) }
        guard once.claim() else { return false }
        // The engine's resolve runs the procedure; a plain value fulfils as it is, and a
        // PROMISE or THENABLE must not be adopted here, so settle directly.
        core.fulfil(value)
        return true
    }

    /// `vow_resolver_reject`: false if the resolver was already used.
    func reject(_ error: VowErrorBox) -> Bool {
        guard let once else { return core.rejectFromResolver(error) }
        guard once.claim() else { return false }
        rejectOnce!(error)
        return true
    }

    /// `vow_resolver_resolve`: the resolution procedure; false if already used.
    func resolve(_ value: VowValue) -> Bool {
        guard let once else { return core.resolveFromResolver(value, as: value.resolution) }
        guard once.claim() else { return false }
        resolveOnce!(value)
        return true
    }

    /// Claims a once-only resolver for a throw from `call_then`: true if the throw counts
    /// (nothing settled through this resolver before).
    func claimForThrow() -> Bool {
        once?.claim() ?? false
    }

    /// `vow_resolver_is_settled`.
    var isUsed: Bool {
        guard let once else { return core.isResolverUsed }
        return once.isUsed || !core.isPending
    }
}
