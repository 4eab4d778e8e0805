import CVow
import Testing
@testable import Vow
@testable import VowEngine

extension BridgingTests {
    /// on_value: runs inside a job of the serial dispatcher in the tracker's handle, makes a
    /// promise whose callback is queued behind this job on that dispatcher, and waits for it
    /// with `vow_wait` (5 s limit). Logs the state, the error code and whether it returned
    /// within a second.
    static let waitInsideJob: vow_on_value = { ctx, _, _ in
        let tracker = Tracker.from(ctx)
        tracker.hit()
        let value = vow_value_int(1)
        let settled = vow_promise_fulfilled(value)
        vow_value_release(value)
        let queuedBehind = vow_then_on(tracker.handle, settled, nil, nil, nil, nil)
        var out: OpaquePointer?
        var error: OpaquePointer?
        let start = ContinuousClock.now
        let state = vow_wait(queuedBehind, 5, &out, &error)
        let quick = ContinuousClock.now - start < .seconds(1)
        tracker.log(Int(state.rawValue))
        tracker.log(Int(vow_error_code(error)))
        tracker.log(quick ? 1 : 0)
        tracker.log(out == nil ? 1 : 0)
        vow_error_release(error)
        vow_value_release(out)
        vow_promise_release(queuedBehind)
        vow_promise_release(settled)
    }

    @Suite("Bridging: vow_wait") struct CWaitTests {
        @Test("inside a job on the default dispatcher, waiting for work queued behind it reports a deadlock at once")
        func deadlockOnDefault() throws {
            // The default dispatcher as it is now (retained, so both registrations use it
            // even if another suite changes the setting meanwhile).
            let dispatcher = try #require(vow_dispatcher_retain(vow_dispatcher_default()))
            let tracker = Tracker(handle: dispatcher)
            let source = fulfilledC(vow_value_int(0))
            let derived = vow_then_on(dispatcher, source, BridgingTests.waitInsideJob, nil, tracker.ctx,
                                      BridgingTests.trackerDestroy)
            #expect(waitC(derived).state == VOW_FULFILLED)
            #expect(tracker.calls == 1)
            #expect(tracker.logged == [Int(VOW_DEADLOCK.rawValue), Int(VOW_ERROR_DEADLOCK.rawValue), 1, 1])
            [source, derived].forEach { vow_promise_release($0) }
        }

        @Test("the same on a host dispatcher: the job's thread is marked as running it")
        func deadlockOnHost() {
            let loop = HostLoop()
            let dispatcher = vow_dispatcher_new(BridgingTests.hostSubmit, loop.ctx, BridgingTests.hostDestroy)
            let tracker = Tracker(handle: vow_dispatcher_retain(dispatcher))
            let source = fulfilledC(vow_value_int(0))
            let derived = vow_then_on(dispatcher, source, BridgingTests.waitInsideJob, nil, tracker.ctx,
                                      BridgingTests.trackerDestroy)
            #expect(loop.drain(until: 1))
            #expect(tracker.logged == [Int(VOW_DEADLOCK.rawValue), Int(VOW_ERROR_DEADLOCK.rawValue), 1, 1])
            // The job queued behind it still runs when the host gets to it.
            #expect(loop.drain(until: 1))
            #expect(vow_promise_state(derived) == VOW_FULFILLED)
            [source, derived].forEach { vow_promise_release($0) }
            vow_dispatcher_release(dispatcher)
        }

        @Test("outside a job, vow_wait blocks until the promise settles; a time-out answers VOW_PENDING")
        func waitsAndTimesOut() {
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)
            var valueOut: OpaquePointer? = OpaquePointer(bitPattern: 1)
            var errorOut: OpaquePointer? = OpaquePointer(bitPattern: 1)
            #expect(vow_wait(promise, 0.01, &valueOut, &errorOut) == VOW_PENDING)
            #expect(valueOut == nil && errorOut == nil)
            let settler = vow_value_int(8)
            let handles = UncheckedSendable((resolver, settler))
            let background = Promise<Void>(on: .background) {
                _ = vow_resolver_fulfill(handles.value.0, handles.value.1)
            }
            let waited = waitC(promise)
            #expect(waited.state == VOW_FULFILLED)
            #expect(waited.value == settler)
            #expect(waited.error == nil)
            _ = try? value(of: background)
            waited.release()
            vow_value_release(settler)
            vow_resolver_release(resolver)
            vow_promise_release(promise)
        }

        @Test("a rejection observed by vow_wait counts as handled, also with NULL error_out")
        func waitHandles() {
            let cError = vow_error_new("bridging.wait", 1, "handled")
            let promise = vow_promise_rejected(cError)
            vow_error_release(cError)
            let core = AnyPromise(unsafeHandle: promise)!.core
            #expect(vow_wait(promise, 1, nil, nil) == VOW_REJECTED)
            // The engine will not report it: it is marked handled.
            #expect(core.handledForTesting)
            vow_promise_release(promise)
        }
    }
}

extension Core {
    /// Whether a waiter marked this promise's rejection as handled (the engine's flags,
    /// through its package interface).
    var handledForTesting: Bool { flags.contains(.handled) }
}
