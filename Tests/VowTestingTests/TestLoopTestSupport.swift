import Synchronization
import Vow

#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe counter shared with callbacks.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    init() {}

    @discardableResult
    func increment() -> Int { count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue }

    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// A log of strings shared with callbacks.
final class Log: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`.
    private let lock = Mutex<[String]>([])

    init() {}

    func append(_ entry: String) { lock.withLock { $0.append(entry) } }

    var entries: [String] { lock.withLock { $0 } }
}

/// An error that says which attempt or step made it.
struct TestError: Error, Equatable {
    let tag: Int
    init(_ tag: Int) { self.tag = tag }
}

/// The library's error code of a settled promise's rejection, if any (nil while pending or
/// fulfilled). Reading it counts as handling the rejection (a wait on a settled promise,
/// which returns at once).
func code<T>(of promise: Promise<T>) -> VowError.Code? {
    guard !promise.isPending else { return nil }
    do {
        _ = try promise.wait()
        return nil
    } catch {
        return (error as? VowError)?.vowCode
    }
}

/// The value of a fulfilled promise (nil while pending or rejected; a rejection read here
/// counts as handled).
func value<T>(of promise: Promise<T>) -> T? {
    guard !promise.isPending else { return nil }
    return try? promise.wait()
}

/// The calling thread, comparable.
func currentThread() -> pthread_t { pthread_self() }

/// Runs `body` on a new thread (no Swift concurrency, no test loop) and returns its result.
func onOtherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
    let box = ThreadBody(body)
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { raw in
        Unmanaged<ThreadRunnable>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, Unmanaged.passRetained(box as ThreadRunnable).toOpaque())
    precondition(started == 0)
    pthread_join(thread, nil)
    return box.result!
}

/// What `onOtherThread` runs: the body, and its result once it ran.
private final class ThreadBody<T: Sendable>: ThreadRunnable, @unchecked Sendable {
    // @unchecked: `result` is written by the thread before it ends, read after the join.
    let body: @Sendable () -> T
    var result: T?
    init(_ body: @escaping @Sendable () -> T) { self.body = body }
    override func run() { result = body() }
}

/// Something a new thread runs.
private class ThreadRunnable {
    func run() {}
}

/// The error of a rejected promise (nil while pending or fulfilled); reading it here counts
/// as handling the rejection.
func failure<T>(of promise: Promise<T>) -> (any Error)? {
    guard !promise.isPending else { return nil }
    do {
        _ = try promise.wait()
        return nil
    } catch {
        return error
    }
}
