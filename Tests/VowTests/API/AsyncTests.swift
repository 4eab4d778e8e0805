import Testing
@testable import Vow

// The async bridge: `await p.value` (cancellation-aware) and `Promise { try await ... }`.
// These tests are async and never block a thread of the cooperative pool.

@Suite("API: async bridge")
struct AsyncTests {
    @Test("await p.value returns the value")
    func awaitValue() async throws {
        let value = try await Promise.value(1).map { $0 + 1 }.value
        #expect(value == 2)
    }

    @Test("await p.value throws the error")
    func awaitError() async {
        await #expect(throws: TestError(1)) { try await Promise<Int>(error: TestError(1)).value }
    }

    @Test("await p.value waits for a promise settled later on another thread")
    func awaitPending() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        detachThread {
            spin(10_000)
            resolver.fulfill(3)
        }
        #expect(try await promise.value == 3)
    }

    @Test("cancelling the awaiting task throws cancellation and cancels a promise nobody else needs")
    func taskCancellationReachesPromise() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let cancelHandlerRan = Counter()
        resolver.onCancel { cancelHandlerRan.increment() }
        let task = Task { try await promise.value }
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("expected the await to throw, got \(result)")
            return
        }
        #expect(isCancellation(error))
        #expect(await eventuallyAsync { promise.isCancelled })
        #expect(await eventuallyAsync { cancelHandlerRan.value == 1 })
    }

    @Test("cancelling the awaiting task leaves a promise that something else still needs running")
    func taskCancellationSharedPromise() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let other = promise.map { $0 + 1 }
        let task = Task { try await promise.value }
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("expected the await to throw, got \(result)")
            return
        }
        #expect(isCancellation(error))
        #expect(promise.isPending)
        #expect(!promise.isCancelled)
        resolver.fulfill(4)
        #expect(try await other.value == 5)
    }

    @Test("Promise { try await } fulfils with the closure's result")
    func asyncClosureValue() async throws {
        let promise = Promise<Int> {
            await Task.yield()
            return 6
        }
        #expect(try await promise.value == 6)
    }

    @Test("Promise { try await } rejects with the closure's error")
    func asyncClosureThrows() async {
        let promise = Promise<Int> { () async throws -> Int in throw TestError(7) }
        await #expect(throws: TestError(7)) { try await promise.value }
    }

    @Test("cancelling a Promise { try await } cancels its task")
    func asyncClosureCancelled() async throws {
        let (started, startedResolver) = Promise<Void>.pending()
        let (sawCancellation, sawCancellationResolver) = Promise<Void>.pending()
        let promise = Promise<Int> {
            startedResolver.fulfill(())
            do {
                try await Task.sleep(for: .seconds(600))
                return 0
            } catch {
                if error is CancellationError { sawCancellationResolver.fulfill(()) }
                throw error
            }
        }
        try await started.value
        promise.cancel()
        #expect(promise.isCancelled)
        // Awaited, not polled against a 20-second clock: the task resumes from its
        // cancelled sleep on the cooperative pool, behind every test the pool has still to
        // start, and under load (a full run on 2 busy cores) that took longer than 20
        // seconds once. Not cancelled, the task sleeps 600 seconds and this times out.
        try await sawCancellation.timeout(seconds: 300).value
    }
}
