/// The right to settle one pending promise.
///
/// The first call that settles wins; later ones are ignored. If the last reference to a
/// resolver goes away while its promise is still pending (and it adopted nothing), the
/// promise is rejected with `VowError.Code.broken`: a forgotten resolver never hangs a
/// chain. All methods may be called from any thread.
public final class Resolver<T: Sendable>: Sendable {
    @usableFromInline
    let core: Core

    @usableFromInline
    init(core: Core) { self.core = core }

    deinit {
        // Borrowed: the resolver holds the promise for as long as this runs.
        Unmanaged.passUnretained(core)._withUnsafeGuaranteedRef { $0.breakIfResolverUnused() }
    }

    /// Fulfils the promise with `value`.
    @inlinable
    public func fulfill(_ value: T) {
        core.fulfilFromResolver(value)
    }

    /// Rejects the promise with `error`.
    public func reject(_ error: any Error) {
        core.rejectFromResolver(error)
    }

    /// Settles the promise from a `Result`.
    public func resolve(_ result: Result<T, any Error>) {
        switch result {
        case .success(let value): fulfill(value)
        case .failure(let error): reject(error)
        }
    }

    /// For completion-handler APIs: an error rejects, otherwise a value fulfils; neither
    /// rejects with `VowError.Code.type`.
    public func resolve(_ value: T?, _ error: (any Error)?) {
        if let error {
            reject(error)
        } else if let value {
            fulfill(value)
        } else {
            reject(VowError(.type, "resolve(value, error) was called with neither a value nor an error"))
        }
    }

    /// Makes the promise follow `promise` (adopting its eventual state). Uses the resolver
    /// up; resolving a promise with itself (or a chain leading back to it) rejects it with
    /// `VowError.Code.cycle`.
    public func resolve(_ promise: Promise<T>) {
        guard core.claimResolver() else { return }
        core.follow(promise.core)
    }

    /// Registers work to run when cancellation reaches this promise (someone called
    /// `cancel()` on it or on everything that depends on it): stop the timer, close the
    /// socket. Runs once, on the default dispatcher; queued at once if the promise was
    /// already cancelled; dropped if the promise settles otherwise.
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        core.onCancel(body)
    }

    /// True once cancellation reached this promise.
    public var isCancelled: Bool { core.wasCancelled }

    /// True while the promise can still be settled through this resolver.
    public var isPending: Bool { !core.isResolverUsed }
}
