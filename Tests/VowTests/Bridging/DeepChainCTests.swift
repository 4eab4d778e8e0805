import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// on_value for the deep chain: adds one, with no per-link context.
    static let addOne: vow_on_value = { _, value, out in
        var integer: Int64 = 0
        _ = vow_value_get_int(value, &integer)
        let next = vow_value_int(integer + 1)
        vow_result_return(out, next)
        vow_value_release(next)
    }

    /// Chains of C callbacks settle without recursion.
    @Suite("Bridging: deep C chains") struct DeepChainCTests {
        @Test("a 1,000,000-link vow_then chain on a pending promise settles on a normal stack")
        func millionLinks() {
            let links = Stress.chainLength
            var resolver: OpaquePointer?
            let head = vow_promise_pending(&resolver)
            var tail = vow_promise_retain(head)
            for _ in 0..<links {
                let next = vow_then(tail, BridgingTests.addOne, nil, nil, nil)
                vow_promise_release(tail)
                tail = next
            }
            let zero = vow_value_int(0)
            #expect(vow_resolver_fulfill(resolver, zero) == VOW_OK.rawValue)
            vow_value_release(zero)
            let waited = waitC(tail, within: 300)
            #expect(waited.state == VOW_FULFILLED)
            var result: Int64 = 0
            _ = vow_value_get_int(waited.value, &result)
            #expect(result == Int64(links))
            waited.release()
            vow_promise_release(tail)
            vow_promise_release(head)
            vow_resolver_release(resolver)
        }

        @Test("a 1,000,000-link chain on the inline dispatcher settles inside the fulfilling call")
        func millionInlineLinks() {
            let links = Stress.chainLength
            var resolver: OpaquePointer?
            let head = vow_promise_pending(&resolver)
            var tail = vow_promise_retain(head)
            for _ in 0..<links {
                let next = vow_then_on(vow_dispatcher_inline(), tail, BridgingTests.addOne, nil, nil, nil)
                vow_promise_release(tail)
                tail = next
            }
            let zero = vow_value_int(0)
            _ = vow_resolver_fulfill(resolver, zero)
            vow_value_release(zero)
            #expect(vow_promise_state(tail) == VOW_FULFILLED)
            #expect(intValue(of: tail) == Int64(links))
            vow_promise_release(tail)
            vow_promise_release(head)
            vow_resolver_release(resolver)
        }
    }
}
