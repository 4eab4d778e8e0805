import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// Every C callback's `destroy` runs exactly once, on every path: after the callback
    /// ran, when the derived promise was cancelled, when the registering call failed, when
    /// a catch skipped a cancellation, when the source was freed unsettled, when a
    /// dispatcher dropped the job.
    @Suite("Bridging: C callback lifetimes") struct CallbackLifetimeTests {
        @Test("the callback ran: destroy runs once, after it")
        func ranThenDestroyed() {
            let tracker = Tracker(number: 1)
            let source = fulfilledC(vow_value_int(41))
            let derived = vow_then(source, BridgingTests.addNumber, nil, tracker.ctx, BridgingTests.trackerDestroy)
            #expect(intValue(of: derived) == 42)
            #expect(tracker.calls == 1)
            #expect(tracker.destroyedOnce())
            vow_promise_release(derived)
            vow_promise_release(source)
        }

        @Test("the derived promise was cancelled: the callback never runs, destroy runs at once")
        func derivedCancelled() {
            var resolver: OpaquePointer?
            let source = vow_promise_pending(&resolver)
            // A second dependent keeps the source alive (cancellation stops at it).
            let keeper = vow_then(source, nil, nil, nil, nil)
            let tracker = Tracker(number: 1)
            let derived = vow_then(source, BridgingTests.addNumber, BridgingTests.recover, tracker.ctx,
                                   BridgingTests.trackerDestroy)
            vow_cancel(derived)
            #expect(tracker.destroys == 1)
            #expect(vow_promise_state(derived) == VOW_REJECTED)
            #expect(vow_promise_state(source) == VOW_PENDING)
            let value = vow_value_int(1)
            #expect(vow_resolver_fulfill(resolver, value) == VOW_OK.rawValue)
            vow_value_release(value)
            #expect(intValue(of: keeper) == 1)
            #expect(tracker.calls == 0)
            #expect(tracker.destroys == 1)
            let waited = waitC(derived)
            #expect(waited.state == VOW_REJECTED)
            #expect(vow_error_is_cancelled(waited.error))
            waited.release()
            [derived, keeper, source].forEach { vow_promise_release($0) }
            vow_resolver_release(resolver)
        }

        @Test("a failing call runs destroy before it returns")
        func failingCalls() {
            let onCancelTracker = Tracker()
            let results: [(String, OpaquePointer?, Tracker)] = [
                ("then NULL p", nil, Tracker()),
                ("catch NULL on_error", nil, Tracker()),
                ("finally NULL fn", nil, Tracker()),
                ("then_on NULL dispatcher", nil, Tracker()),
                ("catch_policy unknown policy", nil, Tracker()),
                ("dispatch NULL fn", nil, Tracker()),
            ]
            let source = fulfilledC(vow_value_int(1))
            let calls: [OpaquePointer?] = [
                vow_then(nil, BridgingTests.returnSame, nil, results[0].2.ctx, BridgingTests.trackerDestroy),
                vow_catch(source, nil, results[1].2.ctx, BridgingTests.trackerDestroy),
                vow_finally(source, nil, results[2].2.ctx, BridgingTests.trackerDestroy),
                vow_then_on(nil, source, BridgingTests.returnSame, nil, results[3].2.ctx, BridgingTests.trackerDestroy),
                vow_catch_policy(source, vow_policy(rawValue: 7), BridgingTests.recover, results[4].2.ctx,
                                 BridgingTests.trackerDestroy),
                vow_dispatch(vow_dispatcher_background(), nil, results[5].2.ctx, BridgingTests.trackerDestroy),
            ]
            for (index, call) in calls.enumerated() {
                #expect(call == nil, "\(results[index].0)")
                #expect(results[index].2.destroys == 1, "\(results[index].0)")
                #expect(results[index].2.calls == 0, "\(results[index].0)")
            }
            #expect(vow_resolver_on_cancel(nil, BridgingTests.plainHit, onCancelTracker.ctx,
                                           BridgingTests.trackerDestroy) == VOW_EINVAL.rawValue)
            #expect(onCancelTracker.destroys == 1)
            vow_promise_release(source)
        }

        @Test("a catch skipped for cancellation never runs; destroy runs; the promise stays cancelled")
        func catchSkipsCancellation() {
            var resolver: OpaquePointer?
            let source = vow_promise_pending(&resolver)
            let tracker = Tracker()
            let caught = vow_catch(source, BridgingTests.recover, tracker.ctx, BridgingTests.trackerDestroy)
            vow_cancel(source)
            let waited = waitC(caught)
            #expect(waited.state == VOW_REJECTED)
            #expect(vow_error_is_cancelled(waited.error))
            #expect(tracker.destroyedOnce())
            #expect(tracker.calls == 0)
            waited.release()
            // With VOW_CATCH_ALL_ERRORS the cancellation is received (and recovered).
            let all = Tracker()
            let caughtAll = vow_catch_policy(source, VOW_CATCH_ALL_ERRORS, BridgingTests.recover, all.ctx,
                                             BridgingTests.trackerDestroy)
            let recovered = waitC(caughtAll)
            #expect(recovered.state == VOW_FULFILLED)
            #expect(vow_value_kind(recovered.value) == VOW_KIND_NULL)
            #expect(all.calls == 1)
            #expect(all.destroyedOnce())
            recovered.release()
            // vow_then's error callback receives it too (it is recover).
            let then = Tracker()
            let thenDerived = vow_then(source, nil, BridgingTests.recover, then.ctx, BridgingTests.trackerDestroy)
            #expect(waitC(thenDerived).state == VOW_FULFILLED)
            #expect(then.calls == 1)
            #expect(then.destroyedOnce())
            [caught, caughtAll, thenDerived, source].forEach { vow_promise_release($0) }
            vow_resolver_release(resolver)
        }

        @Test("a catch passes a value through and settles from its callback for other errors")
        func catchValueAndError() {
            let source = fulfilledC(vow_value_int(5))
            let tracker = Tracker()
            let caught = vow_catch(source, BridgingTests.recover, tracker.ctx, BridgingTests.trackerDestroy)
            #expect(intValue(of: caught) == 5)
            #expect(tracker.calls == 0)
            #expect(tracker.destroyedOnce())
            let cError = vow_error_new("x", 1, "y")
            let rejected = vow_promise_rejected(cError)
            let rethrower = Tracker()
            let rethrown = vow_catch(rejected, BridgingTests.rethrow, rethrower.ctx, BridgingTests.trackerDestroy)
            let waited = waitC(rethrown)
            #expect(waited.state == VOW_REJECTED)
            #expect(waited.error == cError)
            #expect(rethrower.calls == 1)
            #expect(rethrower.destroyedOnce())
            waited.release()
            vow_error_release(cError)
            [source, caught, rejected, rethrown].forEach { vow_promise_release($0) }
        }

        @Test("finally runs even when its promise was cancelled, then settles like the source")
        func finallyRunsWhenCancelled() {
            var resolver: OpaquePointer?
            let source = vow_promise_pending(&resolver)
            let tracker = Tracker()
            let finally = vow_finally(source, BridgingTests.plainHit, tracker.ctx, BridgingTests.trackerDestroy)
            // Nothing else depends on the source: the cancellation reaches it, it rejects,
            // and the cleanup callback runs.
            vow_cancel(finally)
            #expect(tracker.destroyedOnce())
            #expect(tracker.calls == 1)
            #expect(vow_promise_state(source) == VOW_REJECTED)
            // A plain finally settles like its source, after fn ran.
            let plain = Tracker()
            let fulfilled = fulfilledC(vow_value_int(3))
            let after = vow_finally(fulfilled, BridgingTests.plainHit, plain.ctx, BridgingTests.trackerDestroy)
            #expect(intValue(of: after) == 3)
            #expect(plain.calls == 1)
            #expect(plain.destroyedOnce())
            [source, finally, fulfilled, after].forEach { vow_promise_release($0) }
            vow_resolver_release(resolver)
        }

        /// A source that adopted a Swift thenable which dropped its callbacks can never
        /// settle through them: it is rejected with the broken-promise error (as a resolver
        /// released unused would be), so its chain ends and frees instead of leaking (a
        /// bug once: source and derived kept each other alive and `destroy` never ran).
        @Test("a source whose thenable dropped its callbacks rejects BROKEN: the error callback runs once, destroy once")
        func sourceFreedUnsettled() throws {
            let tracker = Tracker()
            do {
                let (any, resolver) = AnyPromise.pending()
                // Adopting a thenable that never settles uses the resolver up: releasing it
                // rejects nothing, so the source stays pending until it is freed.
                resolver.resolve(NeverThenable<Int>())
                let handle = any.unsafeRetainedHandle()
                let derived = vow_then(handle, BridgingTests.returnSame, BridgingTests.recover, tracker.ctx,
                                       BridgingTests.trackerDestroy)
                vow_promise_release(derived)
                vow_promise_release(handle)
            }
            #expect(tracker.destroyedOnce(within: 2))
            #expect(tracker.calls == 1)
        }

        @Test("a dispatcher that drops the job: the callback never runs, destroy runs")
        func droppedByDispatcher() {
            let queue = InvalidatableQueue(SerialDispatcher())
            queue.invalidate()
            let handle = VowRuntime.unsafeRetainedHandle(for: queue)
            let tracker = Tracker()
            let source = fulfilledC(vow_value_int(1))
            let derived = vow_then_on(handle, source, BridgingTests.returnSame, nil, tracker.ctx, BridgingTests.trackerDestroy)
            let waited = waitC(derived)
            #expect(waited.state == VOW_REJECTED)
            #expect(vow_error_is_cancelled(waited.error))
            waited.release()
            #expect(tracker.destroyedOnce())
            #expect(tracker.calls == 0)
            // vow_dispatch on it: the promise is cancelled, destroy runs.
            let dispatched = Tracker()
            let job = vow_dispatch(handle, BridgingTests.returnSame, dispatched.ctx, BridgingTests.trackerDestroy)
            #expect(waitC(job).state == VOW_REJECTED)
            #expect(dispatched.destroyedOnce())
            #expect(dispatched.calls == 0)
            [job, derived, source].forEach { vow_promise_release($0) }
            vow_dispatcher_release(handle)
        }

        @Test("vow_dispatch runs fn(ctx, NULL, out) on the dispatcher; the result settles the promise")
        func dispatchRuns() {
            let tracker = Tracker(number: 0)
            let job = vow_dispatch(vow_dispatcher_background(), BridgingTests.returnSame, tracker.ctx,
                                   BridgingTests.trackerDestroy)
            let waited = waitC(job)
            #expect(waited.state == VOW_FULFILLED)
            // returnSame returned the NULL argument: the NULL value.
            #expect(vow_value_kind(waited.value) == VOW_KIND_NULL)
            #expect(tracker.lastSeen == 0)
            #expect(tracker.calls == 1)
            #expect(tracker.destroyedOnce())
            waited.release()
            vow_promise_release(job)
        }

        @Test("resolver cancel handlers: run once on cancellation, dropped (destroyed) otherwise")
        func cancelHandlers() {
            var resolver: OpaquePointer?
            let promise = vow_promise_pending(&resolver)
            let tracker = Tracker()
            #expect(vow_resolver_on_cancel(resolver, BridgingTests.plainHit, tracker.ctx,
                                           BridgingTests.trackerDestroy) == VOW_OK.rawValue)
            vow_cancel(promise)
            #expect(eventually { tracker.calls == 1 })
            #expect(tracker.destroyedOnce())
            // Registered after the cancellation: queued at once.
            let late = Tracker()
            #expect(vow_resolver_on_cancel(resolver, BridgingTests.plainHit, late.ctx,
                                           BridgingTests.trackerDestroy) == VOW_OK.rawValue)
            #expect(eventually { late.calls == 1 })
            #expect(late.destroyedOnce())
            #expect(vow_resolver_is_used(resolver))
            vow_promise_release(promise)
            vow_resolver_release(resolver)

            // Settled otherwise: the handler is dropped and destroyed, never run.
            var resolver2: OpaquePointer?
            let promise2 = vow_promise_pending(&resolver2)
            let dropped = Tracker()
            _ = vow_resolver_on_cancel(resolver2, BridgingTests.plainHit, dropped.ctx, BridgingTests.trackerDestroy)
            let value = vow_value_int(1)
            _ = vow_resolver_fulfill(resolver2, value)
            vow_value_release(value)
            #expect(dropped.destroys == 1)
            vow_cancel(promise2)
            #expect(dropped.calls == 0)
            vow_promise_release(promise2)
            vow_resolver_release(resolver2)
        }
    }
}
