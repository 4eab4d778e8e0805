import Testing
@testable import Vow
@testable import VowEngine

extension ErrorModel {
    /// A one-shot gate an async body parks on; opened from a task-cancellation handler
    /// (which may run before or after the body parks).
    final class ContinuationGate: @unchecked Sendable {
        // @unchecked: `parked` and `opened` are only touched under `lock`.
        private let lock = VowLock()
        private var parked: CheckedContinuation<Void, Never>?
        private var opened = false

        init() {}

        func park(_ continuation: CheckedContinuation<Void, Never>) {
            lock.lock()
            if opened {
                lock.unlock()
                continuation.resume()
                return
            }
            parked = continuation
            lock.unlock()
        }

        func open() {
            lock.lock()
            opened = true
            let continuation = parked
            parked = nil
            lock.unlock()
            continuation?.resume()
        }

        var isParked: Bool { lock.withLock { parked != nil } }
    }

    /// Polls `condition` every millisecond for up to `seconds` without holding a thread of
    /// the cooperative pool (the tasks under test need it).
    static func pollAsync(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            if clock.now >= deadline { return condition() }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    /// Rule 4: Swift task cancellation reaches promises, and promise cancellation reaches
    /// tasks.
    ///
    /// The tests are `async` and never block: Swift Testing runs tests on the cooperative
    /// pool (two threads on a two-core machine), and the tasks these tests start need a
    /// thread of it too.
    @Suite struct TaskCancellationTests {
        /// Starts a task that awaits `promise.value` and records what the await returned;
        /// returns once the task is running.
        private func awaitInTask(_ promise: Promise<Int>,
                                 into slot: Locked<Result<Int, any Error>?>) async -> Task<Void, Never> {
            let started = Counter()
            let task = Task {
                started.increment()
                do {
                    let value = try await promise.value
                    slot.withLock { $0 = .success(value) }
                } catch {
                    slot.withLock { $0 = .failure(error) }
                }
            }
            #expect(await ErrorModel.pollAsync { started.count == 1 })
            return task
        }

        @Test func cancellingTheAwaitingTaskCancelsThePromise() async {
            let (promise, resolver) = Promise<Int>.pending()
            let cancels = Counter()
            resolver.onCancel { cancels.increment() }
            let slot = Locked<Result<Int, any Error>?>(nil)
            let task = await awaitInTask(promise, into: slot)
            task.cancel()
            #expect(await ErrorModel.pollAsync { slot.withLock { $0 } != nil })
            if case .failure(let error)? = slot.withLock({ $0 }) {
                #expect(isCancellation(error))
            } else {
                Issue.record("the await should throw a cancellation error")
            }
            #expect(promise.isCancelled, "nothing else waited on the promise")
            #expect(await ErrorModel.pollAsync { cancels.count == 1 })
            withExtendedLifetime(resolver) {}
        }

        @Test func cancellingTheAwaitingTaskSparesAPromiseSomeoneElseNeeds() async {
            let (promise, resolver) = Promise<Int>.pending()
            let cancels = Counter()
            resolver.onCancel { cancels.increment() }
            let other = promise.then { $0 + 1 }
            let slot = Locked<Result<Int, any Error>?>(nil)
            let task = await awaitInTask(promise, into: slot)
            task.cancel()
            #expect(await ErrorModel.pollAsync { slot.withLock { $0 } != nil })
            if case .failure(let error)? = slot.withLock({ $0 }) {
                #expect(isCancellation(error))
            } else {
                Issue.record("the await should throw a cancellation error")
            }
            #expect(promise.isPending)
            #expect(!promise.isCancelled)
            resolver.fulfill(1)
            #expect(await ErrorModel.pollAsync { other.isFulfilled })
            #expect(other.result.flatMap { try? $0.get() } == 2)
            // Cancel handlers run on the default dispatcher: let it run what it has.
            let drained = Promise<Void>.value(()).then { _ in }
            #expect(await ErrorModel.pollAsync { drained.isFulfilled })
            #expect(cancels.count == 0)
        }

        @Test func awaitingWithoutCancellationReturnsTheValue() async {
            let (promise, resolver) = Promise<Int>.pending()
            let slot = Locked<Result<Int, any Error>?>(nil)
            _ = await awaitInTask(promise, into: slot)
            resolver.fulfill(9)
            #expect(await ErrorModel.pollAsync { slot.withLock { $0 } != nil })
            #expect((try? slot.withLock { $0 }?.get()) == 9)
        }

        @Test func cancellingAnAsyncPromiseCancelsItsTaskInSleep() async {
            let started = Counter()
            let observed = Counter()
            let promise = Promise<Int> {
                started.increment()
                do {
                    try await Task.sleep(nanoseconds: 60_000_000_000)
                } catch is CancellationError {
                    observed.increment()
                    throw CancellationError()
                }
                return 1
            }
            #expect(await ErrorModel.pollAsync { started.count == 1 })
            promise.cancel()
            #expect(promise.isCancelled)
            #expect(await ErrorModel.pollAsync { observed.count == 1 }, "the task's sleep saw the cancellation")
        }

        @Test func cancellingAnAsyncPromiseCancelsItsTaskOnAContinuation() async {
            let gate = ContinuationGate()
            let observed = Counter()
            let promise = Promise<Int> {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { gate.park($0) }
                } onCancel: {
                    gate.open()
                }
                if Task.isCancelled {
                    observed.increment()
                    throw CancellationError()
                }
                return 1
            }
            #expect(await ErrorModel.pollAsync { gate.isParked })
            promise.cancel()
            #expect(await ErrorModel.pollAsync { observed.count == 1 }, "the task saw Task.isCancelled")
        }

        @Test func asyncPromiseSettlesWithItsResultWhenNotCancelled() async {
            let promise = Promise<Int> { 41 + 1 }
            #expect(await ErrorModel.pollAsync { promise.isFulfilled })
            #expect(promise.result.flatMap { try? $0.get() } == 42)
        }
    }
}
