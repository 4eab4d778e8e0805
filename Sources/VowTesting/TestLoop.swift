import Vow
import VowEngine
import VowTestLoop

/// A serial dispatcher and a clock in one, for tests: virtual time, and work that runs only
/// when the test says so.
///
/// ```swift
/// @Test func slowServerTimesOut() {
///     TestLoop.with { loop in
///         let reply = server.fetch().timeout(seconds: 30)
///         loop.advance(by: 29)
///         #expect(reply.isPending)
///         loop.advance(by: 1)                       // microseconds, not 30 s
///         #expect(reply.isRejected)
///         loop.assertNoPendingPromises()
///     }
/// }
/// ```
///
/// **Installed.** While the loop is installed on a thread (`install()` … `uninstall()`, or
/// `TestLoop.with { loop in … }`), on that thread:
/// - every Vow timer reads the loop's clock: `after(seconds:)`, `timeout(seconds:)`,
///   `delay(seconds:)`, `retry(times:delay:)`, and C's `vow_after`, `vow_timeout`,
///   `vow_delay`, `vow_retry` called there (a timer keeps the clock of the call that asked
///   for it, even if it starts later on another thread);
/// - `.default` stands for the loop, so the callbacks registered there run when the test
///   runs the loop;
/// - the promises made there are listed by `pendingPromises` and
///   `assertNoPendingPromises()` (their sites are recorded as in debug mode).
///
/// The loop runs its work on the thread that calls `advance(by:)`, `advance(to:)` or
/// `runUntilIdle()`, and only then: that thread is the loop's thread for the duration (the
/// loop's actors run there, `assumeIsolated` works there). Everything else about the
/// process is untouched: other threads keep real time and their own default, so tests
/// running in parallel do not see each other's loops.
///
/// **Order.** `TestLoop()` runs ready work in submission order. `TestLoop(seed:)` with a
/// seed other than 0 runs ready work of *different* promises in an order the seed decides
/// (the handlers of one promise keep their registration order, as Promises/A+ requires; the
/// seed also shuffles closures and Swift jobs), so a test can try many orders: see
/// `forEachSeed(_:_:)`. The same seed gives the same order on every run.
///
/// **No yield heuristics.** `advance` runs exactly the work that is due, in order, and
/// returns; nothing runs on its own. Do not block (`wait()`) on a promise that needs the
/// loop: run the loop, then read the promise (`result`, `isFulfilled`).
///
/// **Releasing.** Releasing the loop uninstalls it, and drops the work still waiting (the
/// promises of dropped callbacks are cancelled, Swift jobs still run, see `VowExecutor`)
/// and the timers (an `after` that had not fired is cancelled).
///
/// Threads: every member may be called from any thread; `install`/`uninstall` act on the
/// calling thread.
public final class TestLoop: Dispatcher, ContinuationSink, ExecutorProviding, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: immutable; the core guards its own state.
    let core: TestLoopCore
    /// The loop's Swift executor (it keeps the core; this keeps both).
    private let loopExecutor: HostedExecutor

    /// A loop that runs ready work in submission order.
    public convenience init() {
        self.init(seed: 0)
    }

    /// A loop that runs ready work of different promises in the order `seed` decides (0:
    /// submission order, like `init()`).
    public init(seed: UInt64) {
        core = TestLoopCore(seed: seed)
        loopExecutor = HostedExecutor(host: core)
        core.faceIdentity = ObjectIdentifier(self)
    }

    deinit {
        core.close()
    }

    /// The seed of the order of ready work (0: submission order).
    public var seed: UInt64 { core.seed }

    /// "TestLoop(seed: N)": put it in a failing expectation's message to know the seed.
    public var description: String { "TestLoop(seed: \(seed))" }

    // MARK: Dispatcher

    /// Queues `work`; it runs when the test runs the loop. Any thread.
    public func dispatch(_ work: @escaping @Sendable () -> Void) {
        core.submit(ClosureJob(work))
    }

    /// The loop's timers run on its virtual clock: `fire` runs when `advance` moves the
    /// clock to the timer's deadline, on the thread that advances it; a loop released first
    /// runs `dropped` instead.
    public func scheduleTimer(after seconds: Double, fire: @escaping @Sendable () -> Void,
                              dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer {
        core.makeTimer(seconds: seconds, fire: fire, dropped: dropped)
    }

    /// `true`: work runs one item at a time.
    public var isSerial: Bool { true }

    /// The engine's way in: a link queued as it is, so the loop knows which promise it is
    /// a handler of (the seeded order keeps each promise's handlers in order).
    @usableFromInline package func submit(_ continuation: Continuation) {
        core.submit(continuation)
    }

    package var providedExecutor: VowExecutor { loopExecutor }

    /// The loop as a Swift executor: actors whose executor it is, and tasks that prefer
    /// it, run their jobs when the test runs the loop, on the test's thread.
    public var executor: VowExecutor { loopExecutor }

    // MARK: Time

    /// Virtual seconds since the loop was made. Moves only in `advance`; it reaches any
    /// finite time.
    public var now: Double { core.now.seconds }

    /// Moves the clock forward by `seconds`, running in order the ready work and the timers
    /// that fall due (each timer followed by the work it made ready), and returns how many
    /// jobs and timers ran.
    ///
    /// Time follows the library's rule: zero, negative and -infinity move nothing (the
    /// work and timers due now still run); NaN is a mistake and moves nothing; +infinity
    /// runs every timer, including those armed meanwhile, and leaves the clock at the last
    /// one's deadline (a timer that re-arms itself keeps it going, as it would a real loop).
    ///
    /// Called from one of the loop's own jobs, or while another thread runs the loop, it
    /// runs nothing and returns 0.
    @discardableResult
    public func advance(by seconds: Double) -> Int {
        guard let delay = Timing.delaySeconds(seconds) else { return core.run(until: nil) ?? 0 }
        return core.run(until: core.now.advanced(bySeconds: delay)) ?? 0
    }

    /// `advance(by:)` with a `Duration`.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return advance(by: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Moves the clock forward to `seconds` since the loop was made (a time already passed
    /// moves nothing), as `advance(by:)`.
    @discardableResult
    public func advance(to seconds: Double) -> Int {
        guard !seconds.isNaN, seconds != .infinity else { return advance(by: seconds) }
        return core.run(until: max(VirtualInstant.at(seconds: Timing.delaySeconds(seconds) ?? 0), core.now)) ?? 0
    }

    /// Runs the ready work, and the timers due now, until none is left (work they make
    /// ready included); the clock does not move. Returns how many jobs and timers ran.
    @discardableResult
    public func runUntilIdle() -> Int {
        core.run(until: core.now) ?? 0
    }

    /// Work waiting to run.
    public var readyCount: Int { core.counts.ready }

    /// Timers armed and not yet fired or cancelled.
    public var timerCount: Int { core.counts.timers }

    // MARK: Installing

    /// Installs the loop on the calling thread (see the type's documentation). Returns
    /// false, changing nothing, when a loop (this one or another) is installed on this
    /// thread already, or this loop is installed on another thread.
    @discardableResult
    public func install() -> Bool {
        core.install(default: self) == .installed
    }

    /// Uninstalls the loop from the calling thread; false (nothing changes) when it is not
    /// installed here.
    @discardableResult
    public func uninstall() -> Bool {
        core.uninstall()
    }

    /// True while the loop is installed on some thread.
    public var isInstalled: Bool { core.isInstalled }

    /// Makes a loop (seed 0: submission order), installs it on the calling thread, runs
    /// `body` with it, uninstalls it and releases it. If this thread has a loop installed
    /// already, `body` runs with a loop that is not installed.
    public static func with<R>(seed: UInt64 = 0, _ body: (TestLoop) throws -> R) rethrows -> R {
        let loop = TestLoop(seed: seed)
        let installed = loop.install()
        defer { if installed { loop.uninstall() } }
        return try body(loop)
    }

    /// Runs `body` once per seed with a fresh loop made with that seed and installed, until
    /// a run throws: then writes "TestLoop: failed with seed N: TestLoop(seed: N) reproduces
    /// it" to standard error and throws a `SeedFailure` naming the seed and the error.
    public static func forEachSeed(_ seeds: some Sequence<UInt64>, _ body: (TestLoop) throws -> Void) throws {
        for seed in seeds {
            do {
                try with(seed: seed, body)
            } catch {
                let failure = SeedFailure(seed: seed, error: error)
                writeLine("\(failure)")
                throw failure
            }
        }
    }

    /// A run of `forEachSeed` that threw.
    public struct SeedFailure: Error, CustomStringConvertible {
        /// The seed of the failing run: `TestLoop(seed: seed)` reproduces it.
        public let seed: UInt64
        /// What the run threw.
        public let error: any Error

        public var description: String {
            "TestLoop: failed with seed \(seed): TestLoop(seed: \(seed)) reproduces it (\(error))"
        }
    }

    // MARK: Census

    /// The promises made on the loop's thread while it was installed that are still
    /// pending, oldest first (see `VowRuntime.pendingPromises()` for what a line says).
    public var pendingPromises: [PendingPromise] {
        core.pendingPromises().map(PendingPromise.init)
    }
}
