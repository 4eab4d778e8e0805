import CVow
import Synchronization
import Testing
@testable import Vow
@testable import VowEngine

#if canImport(Glibc)
import Glibc
#endif

extension BridgingTests {
    /// A host loop for `vow_dispatcher_new`: `submit` queues (run, job) pairs; the test
    /// drains them on its own thread, in order, like a host's event loop.
    final class HostLoop: @unchecked Sendable {
        // @unchecked: `items` is only touched under `lock`; the counters are atomic.
        private let lock = VowLock()
        private var items: [(vow_job, UnsafeMutableRawPointer?)] = []
        private let submitted = Atomic<Int>(0)
        private let destroyed = Atomic<Int>(0)

        init() {}

        /// A +1 context for `vow_dispatcher_new` with `hostDestroy`.
        var ctx: UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

        static func from(_ ctx: UnsafeMutableRawPointer?) -> HostLoop {
            Unmanaged<HostLoop>.fromOpaque(ctx!).takeUnretainedValue()
        }

        fileprivate func append(_ run: vow_job, _ job: UnsafeMutableRawPointer?) {
            lock.withLock { items.append((run, job)) }
            submitted.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }

        fileprivate func markDestroyed() { destroyed.wrappingAdd(1, ordering: .sequentiallyConsistent) }

        var submissions: Int { submitted.load(ordering: .sequentiallyConsistent) }
        var destroys: Int { destroyed.load(ordering: .sequentiallyConsistent) }
        var queued: Int { lock.withLock { items.count } }

        /// Runs the oldest job on this thread; false if none was queued.
        @discardableResult
        func runNext() -> Bool {
            let next: (vow_job, UnsafeMutableRawPointer?)? = lock.withLock {
                items.isEmpty ? nil : items.removeFirst()
            }
            guard let (run, job) = next else { return false }
            run(job)
            return true
        }

        /// Runs jobs until `count` have run in all (waiting, bounded, for submissions).
        func drain(until count: Int, within seconds: Double = Stress.waitSeconds) -> Bool {
            var ran = 0
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ran < count {
                if runNext() {
                    ran += 1
                } else {
                    if ContinuousClock.now >= deadline { return false }
                    usleep(200)
                }
            }
            return true
        }
    }

    static let hostSubmit: @convention(c) (UnsafeMutableRawPointer?, vow_job?, UnsafeMutableRawPointer?) -> Void = {
        ctx, run, job in
        HostLoop.from(ctx).append(run!, job)
    }

    static let hostDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
        let loop = Unmanaged<HostLoop>.fromOpaque(ctx!)
        loop.takeUnretainedValue().markDestroyed()
        loop.release()
    }

    @Suite("Bridging: C dispatchers") struct CDispatcherTests {
        @Test("a host dispatcher runs jobs in submission order, on the host's thread, never inline")
        func hostFIFO() {
            let loop = HostLoop()
            let dispatcher = vow_dispatcher_new(BridgingTests.hostSubmit, loop.ctx, BridgingTests.hostDestroy)
            #expect(dispatcher != nil)
            var resolver: OpaquePointer?
            let source = vow_promise_pending(&resolver)
            let log = Tracker()
            let count = 50
            var trackers: [Tracker] = []
            var derived: [OpaquePointer?] = []
            for index in 0..<count {
                let tracker = Tracker(number: index, sink: log)
                trackers.append(tracker)
                derived.append(vow_then_on(dispatcher, source, BridgingTests.logNumber, nil, tracker.ctx,
                                           BridgingTests.trackerDestroy))
            }
            let value = vow_value_int(1)
            _ = vow_resolver_fulfill(resolver, value)
            vow_value_release(value)
            // Nothing runs until the host runs it.
            #expect(eventually { loop.submissions == count })
            #expect(log.logged.isEmpty)
            #expect(loop.drain(until: count))
            #expect(log.logged == Array(0..<count))
            for tracker in trackers { #expect(tracker.destroyedOnce()) }
            for promise in derived { #expect(vow_promise_state(promise) == VOW_FULFILLED) }
            derived.forEach { vow_promise_release($0) }
            vow_promise_release(source)
            vow_resolver_release(resolver)
            // The registered callbacks held the dispatcher; now only C's reference is left.
            #expect(loop.destroys == 0)
            vow_dispatcher_release(dispatcher)
            #expect(loop.destroys == 1)
        }

        @Test("a C dispatcher is a Swift Dispatcher, and a Swift dispatcher a C one")
        func bothWays() throws {
            let loop = HostLoop()
            let handle = vow_dispatcher_new(BridgingTests.hostSubmit, loop.ctx, BridgingTests.hostDestroy)
            var swiftSide = VowRuntime.dispatcher(unsafeHandle: handle)
            #expect(swiftSide != nil)
            #expect(swiftSide?.isSerial == true)
            let ran = Tracker()
            let promise = Promise.value(2).map(on: try #require(swiftSide)) { value -> Int in
                ran.hit()
                return value * 10
            }
            #expect(loop.drain(until: 1))
            #expect(try value(of: promise) == 20)
            #expect(ran.calls == 1)
            // Swift's reference keeps the host's ctx alive after C's release.
            vow_dispatcher_release(handle)
            #expect(loop.destroys == 0)
            swiftSide = nil
            #expect(loop.destroys == 1)

            // A Swift dispatcher handed to C, and back as the same object.
            let serial = SerialDispatcher(label: "bridging.tests")
            let cHandle = VowRuntime.unsafeRetainedHandle(for: serial)
            #expect(VowRuntime.dispatcher(unsafeHandle: cHandle) === serial)
            let tracker = Tracker(number: 1)
            let source = fulfilledC(vow_value_int(1))
            let derived = vow_then_on(cHandle, source, BridgingTests.addNumber, nil, tracker.ctx,
                                      BridgingTests.trackerDestroy)
            #expect(intValue(of: derived) == 2)
            vow_dispatcher_release(cHandle)
            [source, derived].forEach { vow_promise_release($0) }
            // The built-ins come back as themselves and ignore release.
            #expect(VowRuntime.dispatcher(unsafeHandle: vow_dispatcher_inline()) === InlineDispatcher.shared)
            #expect(VowRuntime.dispatcher(unsafeHandle: vow_dispatcher_background()) === BackgroundDispatcher.shared)
            vow_dispatcher_release(vow_dispatcher_inline())
            #expect(VowRuntime.dispatcher(unsafeHandle: vow_dispatcher_inline()) === InlineDispatcher.shared)
            #expect(VowRuntime.unsafeRetainedHandle(for: InlineDispatcher.shared) == vow_dispatcher_inline())
            #expect(VowRuntime.dispatcher(unsafeHandle: vow_dispatcher_default()) != nil)
        }

        @Test("the inline dispatcher runs the callback where the promise settles")
        func inlineRunsInSettlingCall() {
            var resolver: OpaquePointer?
            let source = vow_promise_pending(&resolver)
            let tracker = Tracker(number: 1)
            let derived = vow_then_on(vow_dispatcher_inline(), source, BridgingTests.addNumber, nil, tracker.ctx,
                                      BridgingTests.trackerDestroy)
            #expect(tracker.calls == 0)
            let value = vow_value_int(4)
            _ = vow_resolver_fulfill(resolver, value)
            vow_value_release(value)
            #expect(tracker.calls == 1)
            #expect(vow_promise_state(derived) == VOW_FULFILLED)
            #expect(intValue(of: derived) == 5)
            vow_resolver_release(resolver)
            [source, derived].forEach { vow_promise_release($0) }
        }

        @Test("vow_dispatcher_new with NULL submit fails and runs destroy")
        func nullSubmit() {
            let loop = HostLoop()
            #expect(vow_dispatcher_new(nil, loop.ctx, BridgingTests.hostDestroy) == nil)
            #expect(loop.destroys == 1)
        }
    }
}
