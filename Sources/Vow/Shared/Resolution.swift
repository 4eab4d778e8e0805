// The resolution procedure as the Swift and C faces see values: which of them are promises
// (adopted), which may be thenables (assimilated), and which are plain values (fulfilled
// with as they are). The engine runs the procedure; this is where values are classified.

extension Resolution {
    /// How the procedure treats `x`: C values say it themselves (a PROMISE is adopted, a
    /// THENABLE assimilated), `Promise` and `AnyPromise` are adopted, another `Thenable`
    /// is assimilated, anything else fulfils.
    static func classifying(_ x: Any) -> Resolution {
        // C values are the common case on the C face: a class cast, no conformance lookup.
        if let value = x as? VowValue { return value.resolution }
        if let resolvable = x as? any Resolvable { return resolvable.resolution }
        if let thenable = x as? any Thenable { return .assimilate(SwiftThenableSource(thenable)) }
        return .fulfil
    }
}

extension Core {
    /// The Promises/A+ resolution procedure [[Resolve]](self, x), for a link or the
    /// once-only callbacks of a thenable. The caller has the right to settle.
    func resolveProcedure(_ x: Any) {
        resolve(x, as: Resolution.classifying(x))
    }
}

/// A Swift `Thenable` (that is not a promise of this library) seen by the procedure.
struct SwiftThenableSource: ThenableSource, @unchecked Sendable {
    // @unchecked: the thenable is used once, from one job.
    let thenable: any Thenable

    init(_ thenable: any Thenable) { self.thenable = thenable }

    func fulfilmentValue() -> StoredValue { StoredValue(dynamic: thenable) }

    func resolution(of y: Any) -> Resolution { Resolution.classifying(y) }

    func lookUpThen() -> Result<ThenMethod?, any Error> {
        let thenable = self.thenable
        return .success(ThenMethod { _, resolve, reject in
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
