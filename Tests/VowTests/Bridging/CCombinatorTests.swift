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

        @Test("vow_when_limited names the input that rejected in its error's message; domain, code and payload unchanged; vow_when keeps that same error")
        func limitedRejectionNamesTheInput() throws {
            let make: vow_limited_make = { _, index in
                guard index == 2 else {
                    let value = vow_value_int(Int64(index))
                    defer { vow_value_release(value) }
                    return vow_promise_fulfilled(value)
                }
                let error = vow_error_new("test.files", 13, "permission denied")
                defer { vow_error_release(error) }
                return vow_promise_rejected(error)
            }
            let all = vow_when_limited_on(vow_dispatcher_inline(), 4, 4, make, nil, nil)
            let waited = waitC(all)
            #expect(waited.state == VOW_REJECTED)
            let described = describe(waited.error)
            #expect(described.domain == "test.files")
            #expect(described.code == 13)
            #expect(described.message == "input 2: permission denied")
            waited.release()
            // Swift reads it as the library's error, with the same message.
            let any = try #require(AnyPromise(unsafeHandle: all))
            let seen = try #require(any.error as? VowError) // settled: waited for above
            #expect(seen.domain == "test.files" && seen.code == 13 && seen.message == "input 2: permission denied")
            vow_promise_release(all)

            // vow_when: the caller holds the inputs; the result rejects with that same error.
            let error = vow_error_new("test.files", 2, "no such file")
            let rejected = vow_promise_rejected(error)
            let inputs: [OpaquePointer?] = [fulfilledC(vow_value_int(1)), rejected]
            let when = inputs.withUnsafeBufferPointer { vow_when($0.baseAddress, $0.count) }
            let whenWaited = waitC(when)
            #expect(whenWaited.state == VOW_REJECTED)
            #expect(whenWaited.error == error)
            whenWaited.release()
            vow_error_release(error)
            (inputs + [when]).forEach { vow_promise_release($0) }
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
