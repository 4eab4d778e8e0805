import Dispatch
import Testing
@testable import Vow

// Snapshots (isPending, isFulfilled, isRejected, result, error, isCancelled), wait() and
// its deadlock detection.

/// Runs `body` in a job on `dispatcher`, where it calls `wait()` on a promise whose own
/// callback is queued on that same serial dispatcher, and returns what `wait()` did.
///
/// If deadlock detection were broken, that `wait()` would block the dispatcher for good;
/// a rescue settles the awaited promise from outside after a few seconds so the suite
/// reports a failure instead of hanging.
private func waitInsideJob(on dispatcher: any Dispatcher) throws -> String {
    let answer = Promise.value(1).then(on: dispatcher) { _ -> String in
        let inner = Promise.value(2).then(on: dispatcher) { $0 }
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) { inner.core.settle(.fulfilled(-1)) }
        do {
            let value = try inner.wait()
            return "returned \(value)"
        } catch VowError.Code.deadlock {
            return "deadlock"
        } catch {
            return "threw \(error)"
        }
    }
    return try value(of: answer)
}

@Suite("API: observing and waiting")
struct ObservingTests {
    @Test("snapshots of a pending promise")
    func pendingSnapshot() {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(promise.isPending)
        #expect(!promise.isFulfilled)
        #expect(!promise.isRejected)
        #expect(promise.result == nil)
        #expect(promise.error == nil)
        #expect(!promise.isCancelled)
        resolver.fulfill(0)
    }

    @Test("snapshots of a fulfilled promise")
    func fulfilledSnapshot() throws {
        let promise = Promise.value(3)
        #expect(!promise.isPending && promise.isFulfilled && !promise.isRejected)
        #expect(try promise.result?.get() == 3)
        #expect(promise.error == nil)
        #expect(!promise.isCancelled)
    }

    @Test("snapshots of a rejected promise")
    func rejectedSnapshot() throws {
        let promise = Promise<Int>(error: TestError(1))
        #expect(!promise.isPending && !promise.isFulfilled && promise.isRejected)
        guard case .failure(let error) = promise.result else {
            Issue.record("expected a failure result")
            return
        }
        #expect(error as? TestError == TestError(1))
        #expect(promise.error as? TestError == TestError(1))
        #expect(!promise.isCancelled)
        _ = try? value(of: promise)  // handled
    }

    @Test("isCancelled: true after cancel(), not for other rejections, not once settled")
    func cancelledSnapshot() throws {
        let (promise, resolver) = Promise<Int>.pending()
        promise.cancel()
        #expect(promise.isCancelled)
        #expect(promise.isRejected)
        #expect((promise.error as? VowError)?.vowCode == .cancelled)
        #expect(resolver.isCancelled)
        let settled = Promise.value(1)
        settled.cancel()
        #expect(!settled.isCancelled)
        #expect(settled.isFulfilled)
        _ = try? value(of: promise)
    }

    @Test("wait() returns the value of a fulfilled promise")
    func waitValue() throws {
        let promise = Promise.value(4).map { $0 + 1 }
        _ = try value(of: promise)  // bounded: settled before the unbounded wait() below
        #expect(try promise.wait() == 5)
    }

    @Test("wait() throws the error of a rejected promise")
    func waitError() throws {
        let promise = Promise<Int>(error: TestError(2)).map { $0 + 1 }
        _ = try? value(of: promise)
        #expect(throws: TestError(2)) { try promise.wait() }
    }

    @Test("wait() blocks until another thread settles the promise")
    func waitBlocks() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let derived = promise.map { $0 * 2 }
        let entering = DispatchSemaphore(value: 0)
        let results = EventLog<Int>()
        try concurrently(2) { side in
            if side == 0 {
                entering.signal()
                results.append((try? derived.wait()) ?? -1)
            } else {
                _ = wait(entering)
                spin(100_000)  // not a synchronisation: the waiter is usually blocked by now
                resolver.fulfill(21)
            }
        }
        #expect(results.all == [42])
    }

    @Test("wait() inside a job on the default dispatcher, on a promise whose callback is queued there, throws the deadlock error at once")
    func deadlockOnDefault() throws {
        #expect(try waitInsideJob(on: .default) == "deadlock")
    }

    @Test("wait() inside a job on a SerialDispatcher, on a promise its callback is queued on, throws the deadlock error")
    func deadlockOnSerialDispatcher() throws {
        #expect(try waitInsideJob(on: SerialDispatcher(label: "test.deadlock")) == "deadlock")
    }

    @Test("wait() inside a job on a serial DispatchQueue, on a promise its callback is queued on, throws the deadlock error")
    func deadlockOnDispatchQueue() throws {
        #expect(try waitInsideJob(on: DispatchQueue(label: "test.deadlock.queue")) == "deadlock")
    }

    @Test("wait() inside a default-dispatcher job on a promise settled elsewhere works")
    func noFalseDeadlock() throws {
        let answer = Promise.value(1).then { _ -> Int in
            let elsewhere = Promise(work: { 7 })
            return try elsewhere.wait()
        }
        #expect(try value(of: answer) == 7)
        // And on a promise whose callback runs on another serial dispatcher.
        let other = SerialDispatcher(label: "test.other")
        let crossed = Promise.value(1).then { _ -> Int in
            try Promise.value(8).then(on: other) { $0 }.wait()
        }
        #expect(try value(of: crossed) == 8)
    }

    @Test("wait() from a thread that is no dispatcher's works on default-dispatcher callbacks")
    func waitFromPlainThread() throws {
        let result = try onNewThread { try Promise.value(9).then { $0 + 1 }.wait() }
        #expect(result == 10)
    }
}
