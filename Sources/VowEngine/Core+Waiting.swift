import Dispatch
import Synchronization

/// Waiting: blocking (a thread waits), awaiting (a task suspends), and the
/// deadlock detection that keeps a wait from hanging where it could never end.
extension Core {
    /// Blocks the calling thread until the promise settles or `timeout` (seconds; nil: no
    /// limit) runs out. Returns false on time-out. The time follows `Timing`'s rule: zero,
    /// negative, -infinity and NaN do not wait (but a lazy promise is still started),
    /// +infinity waits without limit. A waiter does not count as a handler: a wait that
    /// timed out leaves the promise the end of its branch (its rejection is reported if
    /// nobody else handles it); the caller marks a rejection it saw as handled.
    /// The caller checks `wouldDeadlock()` first.
    @usableFromInline package final func waitUntilSettled(timeout: Double?) -> Bool {
        if !isPending { return true }
        let waiter = Waiter()
        attach(waiter, countsAsHandler: false)
        if let timeout, let nanoseconds = Timing.delayNanoseconds(timeout) {
            if waiter.semaphore.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                detach(waiter)
                return !isPending
            }
        } else {
            waiter.semaphore.wait()
        }
        return true
    }

    /// True when the calling thread runs a job of a serial dispatcher that settling this
    /// promise needs: a wait here could never end.
    @usableFromInline package final func wouldDeadlock() -> Bool {
        guard let running = ThreadState.current.runningSerialDispatcher else { return false }
        return settlementNeeds(running)
    }

    /// Deadlock detection: true if settling this promise needs a job on the serial
    /// dispatcher `id`, either for this promise or for one it waits on. (`id` is a serial
    /// dispatcher's: only those mark the threads that run their jobs.)
    @usableFromInline final func settlementNeeds(_ id: ObjectIdentifier) -> Bool {
        var current: Core = self
        while true {
            let flags = current.lock()
            guard !flags.contains(.settled) else {
                current.unlock(flags)
                return false
            }
            let next = current.upstream
            let recorded = current.existingExtras?.settler
            let settling = current.settlingDispatcher
            current.unlock(flags)
            if recorded == id || settling == id { return true }
            guard let next else { return false }
            current = next
        }
    }

    /// Waits for the promise through a private dependent, so that cancelling the waiting
    /// task cancels only that dependent (and this promise only if nothing else needs it).
    /// Returns the settled dependent (it settled as this promise did, or was cancelled).
    /// The awaiting task receives the outcome, so a rejection counts as handled.
    @usableFromInline package final func settledAwaitingCancellably() async -> Core {
        let waiter = link(on: InlineDispatcher.shared, ClosureBody { source, link in
            if let source { link.settle(like: source) }
        })
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.attach(ResumingWaiter(continuation))
            }
        } onCancel: {
            waiter.cancel()
        }
        return waiter
    }
}

/// A blocked thread waiting for a promise: signalled inline when it settles.
final class Waiter: Continuation, @unchecked Sendable {
    // @unchecked: the semaphore is thread-safe.
    let semaphore = DispatchSemaphore(value: 0)

    init() { super.init(tag: Continuation.continuationTag) }

    override func run() { semaphore.signal() }
}

/// An awaiting task: resumed inline when the promise settles.
final class ResumingWaiter: Continuation, @unchecked Sendable {
    // @unchecked: the continuation is resumed once (a continuation is scheduled once).
    private let continuation: CheckedContinuation<Void, Never>

    init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = continuation
        super.init(tag: Continuation.continuationTag)
    }

    override func run() { continuation.resume() }
}
