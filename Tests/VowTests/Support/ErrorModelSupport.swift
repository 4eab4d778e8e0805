import Dispatch
import Synchronization
import Testing
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

/// Namespace of the error-model tests (unhandled errors and cancellation).
///
/// Every suite of this folder is nested here, so `swift test --filter ErrorModel` selects
/// them all, and the helpers below cannot clash with helpers of other test folders.
enum ErrorModel {}

extension ErrorModel {
    /// The one suite whose tests set a process-wide setting (the unhandled-error handler,
    /// the default dispatcher), serialized: no two of its tests change a setting at the
    /// same time, and none does while an unhandled-error test counts reports or drains the
    /// default dispatcher. Every other suite leaves the settings alone: code under test
    /// that needs another default uses a scope (`VowRuntime.withDefaultDispatcher`,
    /// `withUnhandledErrorHandler`), which no other thread sees. Their tests may still
    /// observe a setting this suite made meanwhile (their `.default` work may run on this
    /// suite's serial queue for a moment), which is why the replacements here behave as
    /// the library's own does.
    @Suite("Process-wide settings", .serialized) struct ProcessWideSettings {}
}

extension ErrorModel {
    /// True when the suite runs under ThreadSanitizer (see `Stress`).
    static var underTSan: Bool { Stress.underTSan }

    /// `count`, or a tenth of it under TSan (see `Stress.iterations`).
    static func scaled(_ count: Int) -> Int { Stress.iterations(count) }

    // MARK: Counters

    /// A thread-safe counter. Tests share it with callbacks that run on other threads.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)

        init() {}

        func increment() {
            value.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }

        var count: Int { value.load(ordering: .sequentiallyConsistent) }
    }

    /// Bumps `counter` when released: proves that whoever held it (a closure) let it go.
    final class DeinitTracker: Sendable {
        let counter: Counter

        init(_ counter: Counter) { self.counter = counter }

        deinit { counter.increment() }

        /// Something to call from a closure so that it captures the tracker.
        func touch() {}
    }

    // MARK: Errors that only one test recognises

    /// An error carrying a token unique to the test that made it. The unhandled-error
    /// handler is process-wide and other suites drop rejected promises at the same time,
    /// so tests count only reports of this type carrying their own token.
    struct TokenError: CancellableError, CustomStringConvertible {
        let token: String
        let index: Int
        let isCancelled: Bool

        init(_ token: String, _ index: Int = 0, cancelled: Bool = false) {
            self.token = token
            self.index = index
            self.isCancelled = cancelled
        }

        var description: String {
            "TokenError(\(token)#\(index)\(isCancelled ? ", cancelled" : ""))"
        }
    }

    private static let tokenSerial = Atomic<Int>(0)

    /// A string no other test (in this process) uses.
    static func makeToken() -> String {
        let serial = tokenSerial.wrappingAdd(1, ordering: .relaxed).newValue
        return "em\(serial)x\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    }

    /// The token of `error` if it is a `TokenError`.
    static func token(of error: any Error) -> String? {
        (error as? TokenError)?.token
    }

    // MARK: Bounded waiting

    /// Polls `condition` every millisecond for up to `seconds`; returns its last value.
    @discardableResult
    static func poll(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        eventually(within: seconds, condition)
    }

    /// Waits at most `seconds` for `promise` to settle. nil: it did not (the test then
    /// fails instead of hanging). The wait counts as handling a rejection, like `wait()`.
    /// (The bounded wait of Waiting.swift, with nil for its time-out.)
    static func outcome<T>(of promise: Promise<T>, within seconds: Double = 5) -> Result<T, any Error>? {
        try? VowTests.outcome(of: promise, within: seconds)
    }

    /// The error `promise` settles with within `seconds`, or nil if it fulfils or stays pending.
    static func error<T>(of promise: Promise<T>, within seconds: Double = 5) -> (any Error)? {
        if case .failure(let error)? = outcome(of: promise, within: seconds) { return error }
        return nil
    }

    /// The value `promise` fulfils with within `seconds`, or nil.
    static func value<T: Sendable>(of promise: Promise<T>, within seconds: Double = 5) -> T? {
        if case .success(let value)? = outcome(of: promise, within: seconds) { return value }
        return nil
    }

    /// Lets everything already queued on the default dispatcher (and on the library's own
    /// serial queue) run, and the jobs that ran be released. Two rounds: a serial queue
    /// releases a batch of jobs after running the whole batch, so the second round starts
    /// only after the first batch was freed. The suites that replace the process-wide
    /// default run in `ProcessWideSettings`, one at a time with the unhandled-error tests
    /// that drain, so those see every `.default` job drained. A test outside that suite may
    /// have had a `.default` job sent to a replacement meanwhile, which this does not wait
    /// for: such tests drain only after they waited for what they expect (`poll`), so a
    /// late job can hide an extra run from them, never fail them.
    static func drainDefault() {
        for _ in 0..<2 {
            _ = outcome(of: Promise<Void>.value(()).then(on: VowRuntime.librarySerial) { _ in })
            _ = outcome(of: Promise<Void>.value(()).then { _ in })
        }
    }

    // MARK: Threads

    /// Starts a POSIX thread running `body` (a real thread: unlike Dispatch's pool, it
    /// cannot be starved by other threads that spin). See Threads.swift.
    static func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        VowTests.startThread(body)
    }

    /// Runs `body(index)` on `count` threads at once and waits for all of them.
    /// Every body must end by itself (bounded loops, waits with deadlines).
    static func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let threads = (0..<count).map { index in startThread { body(index) } }
        for thread in threads { pthread_join(thread, nil) }
    }

    /// A reusable barrier for a fixed number of threads, with a deadline so that a broken
    /// build fails instead of hanging.
    final class Barrier: Sendable {
        private let parties: Int
        private let arrived = Atomic<Int>(0)

        init(parties: Int) { self.parties = parties }

        /// Waits until all parties reached their `generation`-th call (1-based).
        /// Returns false if that took more than `seconds`.
        func arriveAndWait(generation: Int, seconds: Double = 10) -> Bool {
            arrived.wrappingAdd(1, ordering: .sequentiallyConsistent)
            let target = generation * parties
            var spins = 0
            let clock = ContinuousClock()
            let deadline = clock.now + .milliseconds(Int(seconds * 1000))
            while arrived.load(ordering: .sequentiallyConsistent) < target {
                spins += 1
                if spins % 64 == 0 {
                    sched_yield()
                    if clock.now >= deadline { return false }
                }
            }
            return true
        }
    }

    // MARK: A serial dispatcher held shut

    /// A `SerialDispatcher` whose first job blocks until `open()`: work submitted to it
    /// waits in its queue, so a test can act (cancel) before that work starts.
    final class BlockedQueue: Sendable {
        let queue = SerialDispatcher(label: "em.blocked")
        private let gate = DispatchSemaphore(value: 0)

        init() {
            let started = DispatchSemaphore(value: 0)
            let gate = self.gate
            queue.dispatch {
                started.signal()
                _ = gate.wait(timeout: .now() + .seconds(10))
            }
            _ = started.wait(timeout: .now() + .seconds(5))
        }

        func open() { gate.signal() }

        /// Waits (bounded) until everything submitted so far has run.
        func drain() -> Bool {
            let done = DispatchSemaphore(value: 0)
            queue.dispatch { done.signal() }
            return done.wait(timeout: .now() + .seconds(5)) == .success
        }
    }
}
