import CHostLoop
import Synchronization
import Testing
import Vow
import VowTesting

#if canImport(Glibc)
import Glibc
#endif

// Actors and tasks on Vow's dispatchers (`VowExecutor`): the library's serial queue, a C
// program's own loop (`vow_dispatcher_new`, driven by a pthread in Tests/CHostLoop), and a
// test loop. The libuv bridge has its own test (Tests/Loops/test_uv_actor.c).

/// An actor whose executor is a Vow dispatcher's, that records where each method ran.
private actor Recorder {
    let executor: VowExecutor
    /// Says whether the calling thread is the one the dispatcher runs on.
    let onLoopThread: @Sendable () -> Bool
    private(set) var calls = 0
    private(set) var offThread = 0

    init(executor: VowExecutor, onLoopThread: @escaping @Sendable () -> Bool) {
        self.executor = executor
        self.onLoopThread = onLoopThread
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Counts the call; returns whether it ran on the loop's thread and isolated there.
    func call() -> Bool {
        calls += 1
        let onThread = onLoopThread()
        if !onThread { offThread += 1 }
        executor.checkIsolated()
        return onThread && executor.isIsolatingCurrentContext() == true
    }
}

/// Counts visits that found another visit in progress (there must be none on a serial
/// dispatcher).
private final class OverlapDetector: Sendable {
    private let inside = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)
    private let visitCount = Atomic<Int>(0)

    func visit() {
        if inside.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue > 1 {
            overlapCount.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
        usleep(10)
        inside.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        visitCount.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    var overlaps: Int { overlapCount.load(ordering: .sequentiallyConsistent) }
    var visits: Int { visitCount.load(ordering: .sequentiallyConsistent) }
}

/// A serial dispatcher's thread marker: set by a job, read by the actor.
private final class ThreadBox: @unchecked Sendable {
    // @unchecked: written once by the dispatcher's first job, before any reader runs.
    var thread: pthread_t?
}

@Suite("Executors: actors and tasks on Vow's dispatchers")
struct ExecutorTests {
    @Test("an actor on the library's serial queue runs every method there, one at a time")
    func actorOnSerialQueue() async throws {
        let queue = SerialDispatcher(label: "vow.test.actor")
        let recorder = Recorder(executor: queue.executor) {
            // The queue's drain marks the thread: isolation holds only on it.
            queue.executor.isIsolatingCurrentContext() == true
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var all = true
                    for _ in 0..<200 {
                        all = await recorder.call() && all
                    }
                    return all
                }
            }
            for try await all in group { #expect(all) }
        }
        #expect(await recorder.calls == 1600)
        #expect(await recorder.offThread == 0)
        #expect(!(queue.executor.isIsolatingCurrentContext() ?? true))
    }

    @Test("the executor of a dispatcher is one object, found through any Dispatcher")
    func oneExecutorPerDispatcher() {
        let queue = SerialDispatcher()
        let erased: any Dispatcher = queue
        #expect(erased.executor === queue.executor)
        let defaultPlaceholder: DefaultDispatcher = .default
        let background: BackgroundDispatcher = .background
        let inline: InlineDispatcher = .inline
        #expect(defaultPlaceholder.executor != nil)
        #expect(defaultPlaceholder.executor === VowRuntime.defaultDispatcher.executor)
        #expect(background.executor == nil)
        #expect(inline.executor == nil)
        #expect(queue.executor.isSameExclusiveExecutionContext(other: queue.executor))
        #expect(!queue.executor.isSameExclusiveExecutionContext(other: SerialDispatcher().executor))
    }

    @Test("Task(executorPreference:) runs non-isolated async code on the serial queue")
    func taskPreference() async {
        let queue = SerialDispatcher(label: "vow.test.preference")
        let results = await Task(executorPreference: queue.executor) { () async -> [Bool] in
            var seen: [Bool] = []
            for _ in 0..<5 {
                seen.append(queue.executor.isIsolatingCurrentContext() == true)
                await Task.yield()
            }
            return seen
        }.value
        #expect(results == [true, true, true, true, true])
    }

    @Test("assumeIsolated works in a promise callback on the actor's dispatcher")
    func assumeIsolatedInCallback() async throws {
        let queue = SerialDispatcher(label: "vow.test.assume")
        let recorder = Recorder(executor: queue.executor) { true }
        _ = await recorder.call()
        let calls = Promise.value(()).map(on: queue) { _ in
            recorder.assumeIsolated { $0.calls }
        }
        #expect(try await calls.value == 1)
    }

    @Test("promise callbacks and actor jobs on one serial queue run one at a time")
    func callbacksAndJobsInterleave() async throws {
        let queue = SerialDispatcher(label: "vow.test.mixed")
        let exclusion = OverlapDetector()
        let recorder = Recorder(executor: queue.executor) {
            exclusion.visit()
            return true
        }
        let callbacks = (0..<200).map { _ in
            Promise.value(()).map(on: queue) { _ in exclusion.visit() }
        }
        for _ in 0..<200 { _ = await recorder.call() }
        for callback in callbacks { try await callback.value }
        #expect(exclusion.visits == 400)
        #expect(exclusion.overlaps == 0)
    }
}

@Suite("Executors: a C program's own loop (vow_dispatcher_new)")
struct HostLoopExecutorTests {
    @Test("an actor on a C thread's loop runs every method on that thread")
    func actorOnCLoop() async throws {
        let loop = host_loop_start()!
        let loopAddress = UInt(bitPattern: loop)
        do {
            let dispatcher = try #require(VowRuntime.dispatcher(unsafeHandle: host_loop_dispatcher(loop)))
            let executor = try #require(dispatcher.executor)
            #expect(dispatcher.executor === executor)
            let recorder = Recorder(executor: executor) {
                host_loop_on_thread(OpaquePointer(bitPattern: loopAddress))
            }
            for _ in 0..<500 { #expect(await recorder.call()) }
            #expect(await recorder.calls == 500)
            // Non-isolated code that prefers the loop runs there too.
            let onLoop = await Task(executorPreference: executor) {
                host_loop_on_thread(OpaquePointer(bitPattern: loopAddress))
            }.value
            #expect(onLoop)
            // A promise callback on the loop may assume the actor's isolation.
            let calls = Promise.value(()).map(on: dispatcher) { _ in recorder.assumeIsolated { $0.calls } }
            #expect(try await calls.value == 500)
            #expect(host_loop_jobs_run(loop) >= 502)
        }
        host_loop_stop(loop)
    }

    @Test("a job the C loop drops still runs, off the loop, isolated, and the task goes on")
    func droppedJobsStillRun() async throws {
        let loop = host_loop_start()!
        let loopAddress = UInt(bitPattern: loop)
        do {
            let dispatcher = try #require(VowRuntime.dispatcher(unsafeHandle: host_loop_dispatcher(loop)))
            let recorder = Recorder(executor: try #require(dispatcher.executor)) {
                host_loop_on_thread(OpaquePointer(bitPattern: loopAddress))
            }
            #expect(await recorder.call())
            host_loop_close(loop)
            // The loop refuses every job now (vow_job_drop inside submit): the calls still
            // complete, isolated (checkIsolated passes inside), but not on the loop's thread.
            for _ in 0..<50 { #expect(await recorder.call() == false) }
            #expect(await recorder.calls == 51)
            #expect(await recorder.offThread == 50)
            #expect(host_loop_jobs_dropped(loop) >= 50)
        }
        host_loop_stop(loop)
    }

    @Test("the executor keeps the C loop's context alive; destroy runs when both are gone")
    func executorLifetime() async throws {
        let loop = host_loop_start()!
        let loopAddress = UInt(bitPattern: loop)
        var executor: VowExecutor? = VowRuntime.dispatcher(unsafeHandle: host_loop_dispatcher(loop))?.executor
        #expect(executor != nil)
        // Only the executor holds the dispatcher's loop now (besides the C handle).
        let recorder = Recorder(executor: executor!) { host_loop_on_thread(OpaquePointer(bitPattern: loopAddress)) }
        executor = nil
        #expect(await recorder.call())
        _ = consume recorder
        host_loop_stop(loop)  // waits for the dispatcher's destroy
    }
}

@Suite("Executors: a test loop")
struct TestLoopExecutorTests {
    @Test("an actor on a test loop runs when the test runs the loop, on the test's thread")
    func actorOnTestLoop() async throws {
        var loop: TestLoop? = TestLoop()
        let thread = ThreadBox()
        let recorder = Recorder(executor: loop!.executor) {
            guard let expected = thread.thread else { return false }
            return pthread_equal(pthread_self(), expected) != 0
        }
        let task = Task.detached { await recorder.call() }
        // The call's job waits in the loop: the task gets there on a pool thread, in its own
        // time (awaited without blocking a thread of the pool, and bounded).
        let deadline = ContinuousClock.now + .seconds(20)
        while loop!.readyCount == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(loop!.readyCount == 1)
        thread.thread = pthread_self()
        #expect(loop!.runUntilIdle() == 1)
        // Released: a job that would still come runs as dropped, so the test cannot hang.
        loop = nil
        #expect(await task.value)
    }
}
