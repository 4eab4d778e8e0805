import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// PromiseKit's settings (`conf`), mapped onto Vow's.
///
/// - `Q`: the default queues. Vow has one default dispatcher for every callback
///   (`VowRuntime.defaultDispatcher`, shared with C); setting `Q.map` sets it (`nil`: inline,
///   `.vowDefault`: Vow's own serial queue). `Q.return` must equal `Q.map`: a different
///   `return` queue is not honoured, and setting one writes a line on standard error. Until
///   set, `Q` reads `(.vowDefault, .vowDefault)`: the default is Vow's queue, never the main
///   queue (MIGRATION.md: a Linux program does not drain the main queue).
/// - `catchPolicy`: the policy of `catch { }` without one (default
///   `.allErrorsExceptCancellation`). `recover` receives every error whatever it says (Vow's
///   rule).
/// - `logHandler`: kept, so code that sets it compiles, but Vow reports what PromiseKit
///   logged through its own channels and never calls it: a resolver dropped unused rejects
///   its promise with `VowError.Code.broken` (not `.pendingPromiseDeallocated`),
///   `cauterize()` hands the error to `VowRuntime.unhandledErrorHandler` (not
///   `.cauterized`), and `wait()` detects the waits that could never end (it throws
///   `VowError.Code.deadlock`) instead of warning about the main thread.
///
/// Thread-safe (PromiseKit's was not): reading and setting `conf` takes a lock.
public struct PMKConfiguration: Sendable {
    /// The default queues, `(map, return)`. Setting `conf` with a new `map` sets Vow's
    /// default dispatcher, `VowRuntime.defaultDispatcher`, for C, C++ and Swift alike: `nil`
    /// makes it `.inline`, a queue makes it that queue, `.vowDefault` gives back Vow's own
    /// serial queue. `return` must be the same queue as `map` (Vow has one default
    /// dispatcher): a different one is not honoured, and setting it writes a line on
    /// standard error. `(.vowDefault, .vowDefault)` until set.
    public var Q: (map: DispatchQueue?, return: DispatchQueue?) = (map: .vowDefault, return: .vowDefault)
    /// The policy of a `catch` given no `policy:` (default `.allErrorsExceptCancellation`:
    /// a cancellation passes by, as in PromiseKit). It does not change `recover`, which
    /// receives every error unless given a policy (Vow's rule).
    public var catchPolicy: CatchPolicy = .allErrorsExceptCancellation
    /// Kept so that code which sets it compiles; Vow never calls it. What PromiseKit logged
    /// here, Vow reports through its own channels (see ``PMKConfiguration``). The default is
    /// PromiseKit's, which prints each event.
    public var logHandler: @Sendable (LogEvent) -> Void = { event in
        switch event {
        case .waitOnMainThread:
            print("PromiseKit: warning: `wait()` called on main thread!")
        case .pendingPromiseDeallocated:
            print("PromiseKit: warning: pending promise deallocated")
        case .pendingGuaranteeDeallocated:
            print("PromiseKit: warning: pending guarantee deallocated")
        case .cauterized(let error):
            print("PromiseKit:cauterized-error: \(error)")
        }
    }

    /// The settings a program starts with: `Q` is `(.vowDefault, .vowDefault)` (Vow's own
    /// serial queue, where PromiseKit's was the main queue), `catchPolicy` is
    /// `.allErrorsExceptCancellation`, `logHandler` is PromiseKit's, which prints.
    public init() {}
}

/// The events `PMKConfiguration.logHandler` receives (PromiseKit's cases; see
/// `PMKConfiguration` for which ones Vow reports elsewhere).
public enum LogEvent: Sendable {
    /// PromiseKit's warning that `wait()` blocked the main thread. Vow never sends it:
    /// `wait()` throws `VowError.Code.deadlock` where it detects a wait that could never
    /// end.
    case waitOnMainThread
    /// PromiseKit's warning that a promise was released with its resolver unused. Vow never
    /// sends it: the promise rejects with `VowError.Code.broken`.
    case pendingPromiseDeallocated
    /// PromiseKit's warning that a guarantee was released with its resolve function uncalled.
    /// Vow never sends it: the guarantee rejects with `VowError.Code.broken`.
    case pendingGuaranteeDeallocated
    /// PromiseKit's record of an error `cauterize()` swallowed. Vow never sends it:
    /// `cauterize()` hands the error (a cancellation excepted) to
    /// `VowRuntime.unhandledErrorHandler`.
    case cauterized(any Error)
}

/// PromiseKit's settings. Setting `Q.map` sets Vow's default dispatcher.
public var conf: PMKConfiguration {
    get { Settings.stored.withLock { $0 } }
    set { Settings.apply(newValue) }
}

@usableFromInline
enum Settings {
    static let stored = Mutex(PMKConfiguration())
    /// `conf.catchPolicy == .allErrors`, read on every `catch { }` without a policy.
    static let catchesAll = Atomic<Bool>(false)

    /// `conf.catchPolicy` (one relaxed load).
    @usableFromInline
    static var catchPolicy: CatchPolicy {
        catchesAll.load(ordering: .relaxed) ? .allErrors : .allErrorsExceptCancellation
    }

    static func apply(_ configuration: PMKConfiguration) {
        let previous = stored.withLock { current -> PMKConfiguration in
            let previous = current
            current = configuration
            return previous
        }
        catchesAll.store(configuration.catchPolicy == .allErrors, ordering: .relaxed)
        let (map, ret) = configuration.Q
        if !sameQueue(map, previous.Q.map) {
            VowRuntime.defaultDispatcher = dispatcher(map)
        }
        if !sameQueue(ret, map) {
            writeStandardError("VowPromiseKit: conf.Q.return differs from conf.Q.map; Vow has one default "
                               + "dispatcher, conf.Q.map is used for every callback")
        }
    }
}

/// Whether two `conf.Q` entries are the same queue. On Linux `DispatchQueue.main` and
/// `.global()` give a new wrapper object each time: those are recognised by their labels.
func sameQueue(_ a: DispatchQueue?, _ b: DispatchQueue?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a === b || (a.label == b.label && a.label.hasPrefix("com.apple."))
}

/// One line on standard error, in one write.
func writeStandardError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
