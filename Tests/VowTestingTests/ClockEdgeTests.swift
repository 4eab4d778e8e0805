import Dispatch
import Testing
import Vow
import VowTesting

#if canImport(Glibc)
import Glibc
#endif

// The edges of the test loop found in issue 32: a clock that reaches any finite time (it
// stopped at 2^63 ns, some 292 years), and waiting on a promise that needs the loop.

@Suite("VowTesting: the loop's clock at its edges")
struct ClockEdgeTests {
    @Test("the clock reaches any finite time: a 317-year timer fires when the loop gets there")
    func anyFiniteTime() {
        TestLoop.with { loop in
            let centuries = after(seconds: 1e10)
            let far = after(seconds: 1e300)
            let never = after(seconds: .infinity)
            #expect(loop.advance(by: 1e10 - 1) == 0)
            #expect(centuries.isPending)
            #expect(loop.advance(by: 1) == 1)
            #expect(centuries.isFulfilled)
            #expect(loop.now == 1e10)
            // +infinity fires every timer, however far; only +infinity means never.
            #expect(loop.advance(by: .infinity) == 1)
            #expect(far.isFulfilled)
            #expect(loop.now > 1e20)
            #expect(never.isPending)
            never.cancel()
        }
    }

    @Test("advance(to:) a time past 2^63 ns moves the clock there")
    func advanceToFarTimes() {
        TestLoop.with { loop in
            let timer = after(seconds: 2e10)
            #expect(loop.advance(to: 1.5e10) == 0)
            #expect(loop.now == 1.5e10)
            #expect(loop.advance(to: 2e10) == 1)
            #expect(timer.isFulfilled)
        }
    }

    @Test("wait() on a promise that needs the loop returns once another thread runs the loop")
    func waitUntilAnotherThreadRunsTheLoop() throws {
        try TestLoop.with { loop throws in
            let tick = after(seconds: 1)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                loop.advance(by: 1)
            }
            try tick.wait()  // waiting does not run the loop: the other thread does
            #expect(loop.now == 1)
        }
    }
}
