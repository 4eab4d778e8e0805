import Synchronization

/// How a promise settled: with a value or with an error.
///
/// Values are untyped here (one engine serves `Promise<T>`, `AnyPromise` and C); the typed
/// face casts. A value that came from C is a `VowValue`, an error from C a `VowErrorBox`:
/// both keep their identity through the engine.
@usableFromInline
enum Outcome: @unchecked Sendable {
    // @unchecked: values of any type travel between threads here, as in every promise
    // library; `Promise<T>` is only `Sendable` when `T` is, which is where Swift checks it.
    case fulfilled(Any)
    case rejected(any Error)
}

/// One callback registered on a promise.
@usableFromInline
struct Handler {
    @usableFromInline
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

    @usableFromInline
    init(dispatcher: any Dispatcher, dependent: Core?, kind: Kind, body: @escaping @Sendable (Outcome) -> Void) {
        self.dispatcher = dispatcher
        self.dependent = dependent
        self.kind = kind
        self.body = body
    }
}

/// A handler's body paired with the outcome it receives: the unit of work a dispatcher runs.
struct Job: @unchecked Sendable {
    // @unchecked: `Outcome` is unchecked (see there); the body is @Sendable.
    let body: @Sendable (Outcome) -> Void
    let outcome: Outcome
    /// The promise this job would settle, if any: cancelled when a dispatcher drops the
    /// job without running it, so the chain behind it ends instead of hanging (and frees).
    let dependent: Core?

    @inline(__always)
    init(body: @escaping @Sendable (Outcome) -> Void, outcome: Outcome, dependent: Core? = nil) {
        self.body = body
        self.outcome = outcome
        self.dependent = dependent
    }

    @inline(__always)
    func run() { body(outcome) }
}

/// Hands a job to a dispatcher that is not the library's own: runs it at most once, and if
/// the dispatcher releases it without running it (the `Dispatcher` contract allows
/// dropping work), cancels the promise the job would have settled.
final class JobGuard: @unchecked Sendable {
    // @unchecked: `job` is immutable; `ran` is atomic.
    private let job: Job
    private let ran = Atomic<Bool>(false)

    init(_ job: Job) { self.job = job }

    func run() {
        guard !ran.exchange(true, ordering: .acquiringAndReleasing) else { return }
        job.run()
    }

    deinit {
        if !ran.load(ordering: .acquiring) { job.dependent?.cancel() }
    }
}
