// Issue 27: the names programs outside the repository use compile as they are written:
// VowExecutor (a SerialExecutor and a TaskExecutor), dispatcher.executor, and VowTesting's
// TestLoop. (Type-checked with -warnings-as-errors.)
import Vow
import VowTesting

actor Counter {
    let queue: SerialDispatcher
    var value = 0

    init(queue: SerialDispatcher) { self.queue = queue }

    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.executor.asUnownedSerialExecutor() }

    func bump() { value += 1 }
}

/// A C host's loop seen from Swift: its executor, if it runs one job at a time.
actor OnHostLoop {
    let executor: VowExecutor

    init?(handle: OpaquePointer?) {
        guard let executor = VowRuntime.dispatcher(unsafeHandle: handle)?.executor else { return nil }
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
}

func uses(_ queue: SerialDispatcher) async {
    let executor: VowExecutor = queue.executor
    let serial: any SerialExecutor = executor
    let task: any TaskExecutor = executor
    _ = (serial, task)
    let erased: any Dispatcher = queue
    let maybe: VowExecutor? = erased.executor
    _ = maybe
    await Task(executorPreference: queue.executor) { await Counter(queue: queue).bump() }.value
    executor.checkIsolated()
}

func testLoop() throws {
    TestLoop.with { loop in
        let timer = after(seconds: 30)
        _ = loop.advance(by: 30)
        _ = loop.advance(by: .seconds(1))
        _ = loop.advance(to: 31)
        _ = loop.runUntilIdle()
        let now: Double = loop.now
        let executor: VowExecutor = loop.executor
        _ = (timer.isFulfilled, now, executor)
        loop.assertNoPendingPromises()
    }
    let seeded = TestLoop(seed: 7)
    seeded.install()
    seeded.uninstall()
    try TestLoop.forEachSeed(1...100) { loop in _ = loop.runUntilIdle() }
}
