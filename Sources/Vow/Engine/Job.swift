/// How a promise settled: with a value or with an error.
///
/// Values are untyped here (one engine serves `Promise<T>`, `AnyPromise` and C); the typed
/// face casts. A value that came from C is a `VowValue`, an error from C a `VowErrorBox`:
/// both keep their identity through the engine.
enum Outcome: @unchecked Sendable {
    // @unchecked: values of any type travel between threads here, as in every promise
    // library; `Promise<T>` is only `Sendable` when `T` is, which is where Swift checks it.
    case fulfilled(Any)
    case rejected(any Error)
}

/// One callback registered on a promise.
struct Handler {
    enum Kind: UInt8 {
        /// A value/error callback feeding `dependent`; removed when `dependent` is cancelled.
        case link
        /// A `finally` callback: it still runs once the source settles, even if
        /// `dependent` was cancelled (it is cleanup).
        case cleanup
        /// An observer with no derived promise (`wait()`, `await`, an adoption).
        case observer
    }

    /// Where `body` runs.
    let dispatcher: any Dispatcher
    /// The promise this callback settles (counts as a dependent for cancellation).
    let dependent: Core?
    let kind: Kind
    /// Receives the outcome; runs on `dispatcher`, never under a lock.
    let body: @Sendable (Outcome) -> Void
}

/// A handler's body paired with the outcome it receives: the unit of work a dispatcher runs.
struct Job: @unchecked Sendable {
    // @unchecked: `Outcome` is unchecked (see there); the body is @Sendable.
    let body: @Sendable (Outcome) -> Void
    let outcome: Outcome

    @inline(__always)
    func run() { body(outcome) }
}
