import VowEngine

/// A test loop as a dispatcher: the loop (`TestLoopCore`) and its Swift executor, for C's
/// `vow_test_loop` (VowTesting's `TestLoop` is the same for Swift, as a public class).
///
/// References: the dispatcher keeps the loop and the executor; the executor keeps the loop
/// (its host); nothing keeps the dispatcher but its users, and the loop does not know it.
package final class LoopDispatcher: Dispatcher, ContinuationSink, ExecutorProviding, @unchecked Sendable {
    // @unchecked: immutable; the loop guards its own state.
    package let core: TestLoopCore
    private let loopExecutor: HostedExecutor

    package init(seed: UInt64) {
        core = TestLoopCore(seed: seed)
        loopExecutor = HostedExecutor(host: core)
        core.faceIdentity = ObjectIdentifier(self)
    }

    deinit {
        // The thread this loop is installed on stops using it first (`ThreadDefault`).
        core.close()
    }

    package var isSerial: Bool { true }

    package func dispatch(_ work: @escaping @Sendable () -> Void) {
        core.submit(ClosureJob(work))
    }

    package func submit(_ continuation: Continuation) {
        core.submit(continuation)
    }

    package func scheduleTimer(after seconds: Double, fire: @escaping @Sendable () -> Void,
                               dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer {
        core.makeTimer(seconds: seconds, fire: fire, dropped: dropped)
    }

    package var providedExecutor: VowExecutor { loopExecutor }
}
