import Dispatch
import Testing
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

// The built-in dispatchers: .default, .inline, .background, DispatchQueue,
// SerialDispatcher, InvalidatableQueue. (Setting VowRuntime.defaultDispatcher is tested only in
// DefaultDispatcherSettingTests.)

@Suite("API: dispatchers")
struct DispatcherTests {
    @Test(".default does not need the caller's thread: its callback runs while the caller is blocked in wait()")
    func defaultRunsWhileCallerBlocked() throws {
        let waiter = pthread_self()
        let (promise, resolver) = Promise<Int>.pending()
        let ranOn = promise.map { _ in pthread_self() }
        // Settled from another thread, after a short head start for the wait below.
        detachThread {
            spin(50_000)
            resolver.fulfill(1)
        }
        let callbackThread = try value(of: ranOn)  // blocks this thread
        #expect(pthread_equal(callbackThread, waiter) == 0)
    }

    @Test(".inline runs the callback on the thread that settles the promise")
    func inlineOnSettlingThread() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let ranOn = Locked<pthread_t?>(nil)
        promise.done(on: .inline) { _ in ranOn.withLock { $0 = pthread_self() } }
        let settler = try onNewThread { () -> pthread_t in
            resolver.fulfill(1)
            return pthread_self()
        }
        #expect(ranOn.withLock { $0 }.map { pthread_equal($0, settler) != 0 } == true)
    }

    @Test(".background runs callbacks concurrently")
    func backgroundIsConcurrent() throws {
        let a = DispatchSemaphore(value: 0)
        let b = DispatchSemaphore(value: 0)
        // Each callback waits for the other: they can only both finish if they overlap.
        let first = Promise.value(1).map(on: .background) { _ -> Bool in
            a.signal()
            return wait(b, within: 5)
        }
        let second = Promise.value(1).map(on: .background) { _ -> Bool in
            b.signal()
            return wait(a, within: 5)
        }
        #expect(try value(of: first))
        #expect(try value(of: second))
        #expect(!BackgroundDispatcher.shared.isSerial)
    }

    @Test("a DispatchQueue is a dispatcher: callbacks run on that queue")
    func dispatchQueue() throws {
        let queue = DispatchQueue(label: "test.queue")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 17)
        let seen = Promise.value(1).map(on: queue) { _ in DispatchQueue.getSpecific(key: key) }
        #expect(try value(of: seen) == 17)
        #expect(queue.isSerial)
    }

    @Test("a global (concurrent) DispatchQueue does not count as serial")
    func globalQueueIsNotSerial() {
        #expect(!DispatchQueue.global().isSerial)
        #expect(!DispatchQueue.global(qos: .utility).isSerial)
    }

    @Test("wait() inside a job on a global DispatchQueue, on a promise whose callback goes to that queue, is no deadlock")
    func noFalseDeadlockOnGlobalQueue() throws {
        let queue = DispatchQueue.global()
        let answer = Promise.value(1).then(on: queue) { _ -> String in
            do {
                return "returned \(try Promise.value(2).then(on: queue) { $0 }.wait())"
            } catch {
                return "threw \(error)"
            }
        }
        #expect(try value(of: answer) == "returned 2")
    }

    @Test("SerialDispatcher runs callbacks one at a time, in submission order")
    func serialDispatcherOrder() throws {
        let queue = SerialDispatcher(label: "test.serial")
        let log = EventLog<Int>()
        let inside = Counter()
        let overlaps = Counter()
        let count = 200
        let tails = (0..<count).map { index in
            Promise.value(index).done(on: queue) { value in
                if inside.increment() != 1 { overlaps.increment() }
                log.append(value)
                spin(1_000)
                inside.decrement()
            }
        }
        for tail in tails { try value(of: tail) }
        #expect(log.all == Array(0..<count))
        #expect(overlaps.value == 0)
        #expect(queue.isSerial)
    }

    /// A finished job is let go of before the next one runs, not when the drain's whole
    /// batch is done: a link nobody holds is freed, with its value, right after it ran.
    /// (Before, the batch kept every job it ran until its end: a server's finished requests
    /// lived as long as the busiest batch.)
    @Test("SerialDispatcher frees a finished link (and its value) before it runs the next job")
    func serialDispatcherLetsGoOfEachJob() throws {
        let queue = SerialDispatcher(label: "test.serial.release")
        let freed = Counter()
        let blocked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // The two links below wait in the same batch, behind a job that holds the queue.
        queue.dispatch {
            blocked.signal()
            _ = release.wait(timeout: .now() + Stress.waitSeconds)
        }
        #expect(wait(blocked))
        _ = Promise.value(1).map(on: queue) { _ in FreedProbe(freed) }  // nobody keeps it
        let seen = Promise.value(()).map(on: queue) { freed.value }
        release.signal()
        #expect(try value(of: seen) == 1)
    }

    @Test("a dispatcher is not serial unless it says so")
    func isSerialDefault() {
        #expect(!ManualDispatcher().isSerial)
        #expect(!InlineDispatcher.shared.isSerial)
        #expect(SerialDispatcher().isSerial)
        #expect(InvalidatableQueue(SerialDispatcher()).isSerial)
        #expect(!InvalidatableQueue(.background).isSerial)
    }

    @Test("SerialDispatcher.dispatch runs plain work in order")
    func serialDispatcherPlainWork() throws {
        let queue = SerialDispatcher()
        let log = EventLog<Int>()
        let done = DispatchSemaphore(value: 0)
        for index in 0..<50 { queue.dispatch { log.append(index) } }
        queue.dispatch { done.signal() }
        #expect(wait(done))
        #expect(log.all == Array(0..<50))
    }

    @Test("InvalidatableQueue runs work while valid")
    func invalidatableValid() throws {
        let manual = ManualDispatcher()
        let queue = InvalidatableQueue(manual)
        #expect(queue.isValid)
        let result = Promise.value(1).map(on: queue) { $0 + 1 }
        manual.drain()
        #expect(try value(of: result) == 2)
        #expect(queue.isSerial == manual.isSerial)
    }

    @Test("InvalidatableQueue drops work submitted after invalidate()")
    func invalidatableDropsLater() throws {
        let manual = ManualDispatcher()
        let queue = InvalidatableQueue(manual)
        queue.invalidate()
        #expect(!queue.isValid)
        let ran = Counter()
        queue.dispatch { ran.increment() }
        manual.drain()
        #expect(ran.value == 0)
    }

    @Test("InvalidatableQueue: a callback dropped after invalidate() rejects its promise with cancellation; finally downstream runs")
    func invalidatableRejectsDropped() throws {
        let manual = ManualDispatcher()
        let queue = InvalidatableQueue(manual)
        queue.invalidate()
        let ran = Counter()
        let cleanups = Counter()
        let dropped = Promise.value(1).map(on: queue) { value -> Int in
            ran.increment()
            return value
        }
        let after = dropped.finally { cleanups.increment() }
        manual.drain()
        #expect(try vowCode(of: dropped) == .cancelled)
        #expect(try vowCode(of: after) == .cancelled)
        #expect(cleanups.value == 1)
        #expect(ran.value == 0)
    }

    @Test("InvalidatableQueue: work queued before invalidate() but not yet run is dropped, its promise cancelled")
    func invalidatableDropsQueued() throws {
        let manual = ManualDispatcher()
        let queue = InvalidatableQueue(manual)
        let ran = Counter()
        let queued = Promise.value(1).map(on: queue) { value -> Int in
            ran.increment()
            return value
        }
        let plain = Locked(0)
        queue.dispatch { plain.withLock { $0 += 1 } }
        #expect(manual.pendingCount == 2)
        queue.invalidate()
        manual.drain()
        #expect(ran.value == 0)
        #expect(plain.withLock { $0 } == 0)
        #expect(try vowCode(of: queued) == .cancelled)
    }
}

/// Counts its own deinit (a promise's value whose freeing a test watches).
private final class FreedProbe: Sendable {
    let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    deinit { counter.increment() }
}
