@testable import Vow
@testable import VowEngine

/// A deterministic dispatcher for ordering tests: `dispatch` only queues the work, and
/// nothing runs until the test drains the queue on its own thread.
///
/// Owned by one test. `dispatch` may be called from any thread (the engine submits from
/// whatever thread settles a promise); `runNext` and `drain` run the work on the calling
/// thread, one item at a time, in submission order.
final class ManualDispatcher: Dispatcher, @unchecked Sendable {
    // @unchecked: `queue` is only touched under `lock`; work runs outside it.
    private let lock = VowLock()
    private var queue: [@Sendable () -> Void] = []
    private var submittedCount = 0

    init() {}

    func dispatch(_ work: @escaping @Sendable () -> Void) {
        lock.withLock {
            queue.append(work)
            submittedCount += 1
        }
    }

    /// Work waiting to run.
    var pendingCount: Int { lock.withLock { queue.count } }

    /// Work submitted since the dispatcher was made (run or not).
    var submitted: Int { lock.withLock { submittedCount } }

    /// Runs the oldest queued item; false if the queue was empty.
    @discardableResult
    func runNext() -> Bool {
        let next: (@Sendable () -> Void)? = lock.withLock {
            queue.isEmpty ? nil : queue.removeFirst()
        }
        guard let next else { return false }
        next()
        return true
    }

    /// Runs queued work, including work queued while draining, until the queue is empty
    /// (at most `limit` items, so a runaway loop fails instead of hanging). Returns the
    /// number of items run.
    @discardableResult
    func drain(limit: Int = 1_000_000) -> Int {
        var count = 0
        while count < limit, runNext() { count += 1 }
        return count
    }
}
