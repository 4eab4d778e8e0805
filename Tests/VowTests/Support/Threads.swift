import Dispatch
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

/// What a test thread runs, handed to `pthread_create` as an unmanaged context.
private final class ThreadStart {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Starts a joinable thread with the given stack size running `body`.
func startThread(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> pthread_t {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    if let stackSize {
        let rc = pthread_attr_setstacksize(&attributes, stackSize)
        precondition(rc == 0, "pthread_attr_setstacksize(\(stackSize)) failed: \(rc)")
    }
    let context = Unmanaged.passRetained(ThreadStart(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
        start.body()
        return nil
    }, context)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return thread
}

/// Runs `body` on a new thread with a `stackSize`-byte stack and returns its result,
/// waiting at most `seconds`. On time-out the thread is detached and `TestTimeout` thrown.
func onNewThread<T>(stackSize: Int? = nil, within seconds: Double = Stress.waitSeconds,
                    _ what: String = "a test thread",
                    _ body: @escaping @Sendable () throws -> T) throws -> T {
    let slot = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = startThread(stackSize: stackSize) {
        let result = Result { try body() }
        slot.withLock { $0 = result }
        done.signal()
    }
    guard wait(done, within: seconds) else {
        pthread_detach(thread)
        throw TestTimeout(what: what)
    }
    pthread_join(thread, nil)
    return try slot.withLock { $0! }.get()
}

/// Detects callbacks that run inline in the call that registered or settled them.
///
/// The test wraps the call in `during { }`; a callback calls `check()`. A callback that
/// runs on the caller's thread while the call is still in progress counts as inline.
final class InlineDetector: Sendable {
    private struct State {
        var owner: pthread_t?
        var depth = 0
    }
    private let state = Locked(State())
    private let inlineRuns = Counter()
    private let checks = Counter()

    init() {}

    /// Runs `body`; callbacks that check in on this thread meanwhile count as inline.
    func during<R>(_ body: () throws -> R) rethrows -> R {
        let me = pthread_self()
        state.withLock { $0.owner = me; $0.depth += 1 }
        defer { state.withLock { $0.depth -= 1 } }
        return try body()
    }

    /// Called from a callback.
    func check() {
        checks.increment()
        let me = pthread_self()
        let inline = state.withLock { s in s.depth > 0 && s.owner.map { pthread_equal($0, me) != 0 } == true }
        if inline { inlineRuns.increment() }
    }

    /// Callbacks that ran inline in a `during` call.
    var inlineCount: Int { inlineRuns.value }
    /// Callbacks that checked in.
    var checkCount: Int { checks.value }
}

/// Runs `body(0..<count)` on `count` new threads at once and waits (at most `seconds`)
/// for all of them. On time-out the threads are detached and `TestTimeout` thrown.
func concurrently(_ count: Int, within seconds: Double = Stress.waitSeconds,
                  _ body: @escaping @Sendable (Int) -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let threads = (0..<count).map { index in
        startThread {
            body(index)
            done.signal()
        }
    }
    let deadline = DispatchTime.now() + .milliseconds(Int(seconds * 1000))
    for _ in 0..<count where done.wait(timeout: deadline) == .timedOut {
        threads.forEach { pthread_detach($0) }
        throw TestTimeout(what: "\(count) racing threads")
    }
    threads.forEach { pthread_join($0, nil) }
}

/// Starts a detached thread running `body` (nobody joins it).
func detachThread(_ body: @escaping @Sendable () -> Void) {
    pthread_detach(startThread(body))
}
