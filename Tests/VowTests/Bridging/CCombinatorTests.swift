import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// `vow_when` / `vow_join` / `vow_race` / `vow_after` / `vow_timeout` from C.
    @Suite("Bridging: C combinators") struct CCombinatorTests {
        @Test("vow_when of nothing fulfils with an empty LIST; vow_race of nothing rejects with VOW_ERROR_EMPTY")
        func empty() {
            let all = vow_when(nil, 0)
            let waited = waitC(all)
            #expect(waited.state == VOW_FULFILLED)
            #expect(vow_value_kind(waited.value) == VOW_KIND_LIST)
            #expect(vow_value_count(waited.value) == 0)
            waited.release()
            let joined = vow_join(nil, 0)
            #expect(vow_value_count(waitC(joined).value) == 0)
            let race = vow_race(nil, 0)
            let raced = waitC(race)
            #expect(raced.state == VOW_REJECTED)
            #expect(describe(raced.error).code == Int64(VOW_ERROR_EMPTY.rawValue))
            raced.release()
            [all, joined, race].forEach { vow_promise_release($0) }
        }

        @Test("vow_race settles like the first to settle and cancels the losers")
        func race() {
            var slowResolver: OpaquePointer?
            let slow = vow_promise_pending(&slowResolver)
            let fast = fulfilledC(vow_value_int(1))
            let race = [slow, fast].withUnsafeBufferPointer { vow_race($0.baseAddress, $0.count) }
            #expect(intValue(of: race) == 1)
            #expect(eventually { vow_promise_state(slow) == VOW_REJECTED })
            #expect(vow_resolver_is_used(slowResolver))
            vow_resolver_release(slowResolver)
            [slow, fast, race].forEach { vow_promise_release($0) }
        }

        @Test("vow_after fulfils with NULL; vow_timeout rejects with VOW_ERROR_TIMEOUT and cancels its source")
        func timers() {
            let after = vow_after(0.01)
            let waited = waitC(after)
            #expect(waited.state == VOW_FULFILLED)
            #expect(vow_value_kind(waited.value) == VOW_KIND_NULL)
            waited.release()
            var resolver: OpaquePointer?
            let never = vow_promise_pending(&resolver)
            let timeout = vow_timeout(never, 0.01)
            let timedOut = waitC(timeout)
            #expect(timedOut.state == VOW_REJECTED)
            #expect(describe(timedOut.error).code == Int64(VOW_ERROR_TIMEOUT.rawValue))
            timedOut.release()
            #expect(eventually { vow_promise_state(never) == VOW_REJECTED })
            vow_resolver_release(resolver)
            [after, never, timeout].forEach { vow_promise_release($0) }
            // A source that settles first wins.
            let quick = fulfilledC(vow_value_int(3))
            let kept = vow_timeout(quick, 60)
            #expect(intValue(of: kept) == 3)
            [quick, kept].forEach { vow_promise_release($0) }
        }

        /// The time rule: +infinity means never. (A timer that once treated every delay that
        /// is not finite as zero fired at once here.)
        @Test("an infinite delay never fires: vow_after(INFINITY) and vow_timeout(p, INFINITY) stay pending")
        func infiniteDelay() {
            // Both timers start now. A timer that fired at once would do so in microseconds,
            // well within the bound; a correct timer never fires, so the bound is what it costs.
            let after = vow_after(.infinity)
            var resolver: OpaquePointer?
            let source = vow_promise_pending(&resolver)
            let timeout = vow_timeout(source, .infinity)
            #expect(vow_wait(after, 1, nil, nil) == VOW_PENDING)
            #expect(vow_wait(timeout, 0, nil, nil) == VOW_PENDING)
            vow_cancel(after)
            vow_cancel(timeout)
            vow_resolver_release(resolver)
            [after, source, timeout].forEach { vow_promise_release($0) }
        }
    }
}
