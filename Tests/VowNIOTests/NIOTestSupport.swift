#if NIO
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization
import Vow
import VowNIO

#if canImport(Glibc)
import Glibc
#endif

// Helpers of the VowNIO tests. Only the public APIs of Vow and swift-nio are used: these
// tests see the bridge as a program outside the repository does. Every wait is bounded:
// a broken build fails a test instead of hanging the suite.

/// Namespace of the VowNIO tests (`swift test --filter VowNIOTests`).
enum NIOBridge {}

extension NIOBridge {
    /// How long any single wait may take before the test fails.
    static let waitSeconds = 20.0

    /// True under ThreadSanitizer (`VOW_TSAN=1`, set by the test command): loop counts are
    /// divided by 10 there.
    static let underTSan: Bool = getenv("VOW_TSAN") != nil

    /// `count`, or a tenth of it under TSan.
    static func scaled(_ count: Int) -> Int {
        underTSan ? max(1, count / 10) : count
    }

    struct TestTimeout: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(what)" }
    }

    struct UnexpectedSuccess: Error, CustomStringConvertible {
        let description: String
    }

    /// An error that only the test that made it recognises, compared by value.
    struct TokenError: Error, Equatable, CustomStringConvertible {
        let token: String
        let index: Int

        init(_ token: String, _ index: Int = 0) {
            self.token = token
            self.index = index
        }

        var description: String { "TokenError(\(token)#\(index))" }
    }

    private static let serial = Atomic<Int>(0)

    /// A string no other test in this process uses.
    static func makeToken() -> String {
        "nio\(serial.wrappingAdd(1, ordering: .relaxed).newValue)x\(UInt32.random(in: 0...UInt32.max))"
    }

    // MARK: Waiting

    /// Waits at most `seconds` for `promise` to settle; returns its outcome. Observing a
    /// rejection here handles it (a `catch(policy: .allErrors)` is attached).
    static func outcome<T: Sendable>(of promise: Promise<T>, within seconds: Double = waitSeconds,
                                     _ what: String = "a promise") throws -> Result<T, any Error> {
        let slot = NIOLockedValueBox<Result<T, any Error>?>(nil)
        let settled = DispatchSemaphore(value: 0)
        promise.tap(on: .inline) { result in
            slot.withLockedValue { $0 = result }
            settled.signal()
        }.catch(on: .inline, policy: .allErrors) { _ in }
        guard settled.wait(timeout: .now() + seconds) == .success else { throw TestTimeout(what: what) }
        return slot.withLockedValue { $0! }
    }

    static func value<T: Sendable>(of promise: Promise<T>, within seconds: Double = waitSeconds) throws -> T {
        try outcome(of: promise, within: seconds).get()
    }

    static func error<T: Sendable>(of promise: Promise<T>, within seconds: Double = waitSeconds) throws -> any Error {
        switch try outcome(of: promise, within: seconds) {
        case .success(let value): throw UnexpectedSuccess(description: "the promise fulfilled with \(value)")
        case .failure(let error): return error
        }
    }

    /// Waits at most `seconds` for `future` to complete; returns its result. Never calls
    /// NIO's unbounded `wait()`.
    static func outcome<T: Sendable>(of future: EventLoopFuture<T>, within seconds: Double = waitSeconds,
                                     _ what: String = "a future") throws -> Result<T, any Error> {
        let slot = NIOLockedValueBox<Result<T, any Error>?>(nil)
        let completed = DispatchSemaphore(value: 0)
        future.whenComplete { result in
            slot.withLockedValue { $0 = result }
            completed.signal()
        }
        guard completed.wait(timeout: .now() + seconds) == .success else { throw TestTimeout(what: what) }
        return slot.withLockedValue { $0! }
    }

    static func value<T: Sendable>(of future: EventLoopFuture<T>, within seconds: Double = waitSeconds) throws -> T {
        try outcome(of: future, within: seconds).get()
    }

    static func error<T: Sendable>(of future: EventLoopFuture<T>, within seconds: Double = waitSeconds) throws -> any Error {
        switch try outcome(of: future, within: seconds) {
        case .success(let value): throw UnexpectedSuccess(description: "the future succeeded with \(value)")
        case .failure(let error): return error
        }
    }

    /// Polls `condition` every millisecond for at most `seconds`; true once it holds.
    static func eventually(within seconds: Double = waitSeconds, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            if ContinuousClock.now >= deadline { return condition() }
            usleep(1000)
        }
        return true
    }

    // MARK: Loops

    /// Shuts `group` down, waiting at most `seconds`.
    static func shutDown(_ group: MultiThreadedEventLoopGroup, within seconds: Double = waitSeconds) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = NIOLockedValueBox<(any Error)?>(nil)
        group.shutdownGracefully(queue: .global()) { error in
            failure.withLockedValue { $0 = error }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { throw TestTimeout(what: "the group's shutdown") }
        if let error = failure.withLockedValue({ $0 }) { throw error }
    }

    /// Runs `body` with a fresh one-thread group, its loop and a dispatcher for it, then
    /// shuts the group down (bounded).
    static func withLoop<R>(_ body: (any EventLoop, EventLoopDispatcher) throws -> R) throws -> R {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let result: Result<R, any Error>
        do {
            result = .success(try body(loop, EventLoopDispatcher(loop)))
        } catch {
            result = .failure(error)
        }
        try shutDown(group)
        return try result.get()
    }

    /// Blocks `loop` until the returned semaphore is signalled (at most `seconds`), so work
    /// submitted meanwhile piles up behind it. Returns once the loop is blocked.
    static func block(_ loop: any EventLoop, seconds: Double = waitSeconds) -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        loop.execute {
            blocked.signal()
            _ = gate.wait(timeout: .now() + seconds)
        }
        _ = blocked.wait(timeout: .now() + seconds)
        return gate
    }

    // MARK: Threads and counters

    /// Runs `body(index)` on `count` threads at once and waits (at most `waitSeconds`) for
    /// all of them; false if one did not finish in time.
    @discardableResult
    static func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let group = DispatchGroup()
        for index in 0..<count {
            Thread.start(group) { body(index) }
        }
        return group.wait(timeout: .now() + waitSeconds) == .success
    }

    /// A thread-safe counter.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)

        func increment() { value.wrappingAdd(1, ordering: .sequentiallyConsistent) }

        var count: Int { value.load(ordering: .sequentiallyConsistent) }
    }

    /// Bumps `counter` when released: proves that whoever held it (a closure) let it go.
    final class ReleaseTracker: Sendable {
        let counter: Counter

        init(_ counter: Counter) { self.counter = counter }

        deinit { counter.increment() }

        func touch() {}
    }

    /// State touched only on one loop's thread, without a lock: ThreadSanitizer reports a
    /// race if the dispatcher ever runs two callbacks at once or off the loop.
    final class LoopConfined<Value>: @unchecked Sendable {
        // @unchecked: that is the point; every access must be serialised by the loop. The
        // loop-thread precondition below and TSan check it.
        private var storage: Value
        private let loop: any EventLoop

        init(_ value: Value, on loop: any EventLoop) {
            storage = value
            self.loop = loop
        }

        var value: Value {
            get { loop.preconditionInEventLoop(); return storage }
            set { loop.preconditionInEventLoop(); storage = newValue }
        }
    }
}

/// A real POSIX thread per body (Dispatch's pool may hold back threads that block).
private enum Thread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func start(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let box = Unmanaged.passRetained(Box {
            body()
            group.leave()
        }).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        pthread_detach(thread)
    }
}
#endif
