import Testing
import Vow
import VowTesting

@Suite struct Smoke {
    @Test func afterOnLoop() {
        TestLoop.with { loop in
            let p = after(seconds: 30)
            #expect(p.isPending)
            loop.advance(by: 29)
            #expect(p.isPending)
            loop.advance(by: 1)
            #expect(p.isFulfilled)
        }
    }
}
