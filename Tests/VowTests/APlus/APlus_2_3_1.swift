import Testing
@testable import Vow

// Promises/A+ 1.1, 2.3.1: if promise and x refer to the same object, reject promise with
// a TypeError as the reason; here, `VowError.Code.cycle`. Longer cycles are caught too.

@Suite("A+ 2.3.1 resolving a promise with itself")
struct APlus_2_3_1 {
    @Test("2.3.1 a resolver resolved with its own promise rejects with the cycle error")
    func resolverWithItself() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(promise)
        #expect(try vowCode(of: promise) == .cycle)
    }

    @Test("2.3.1 then returning its own promise rejects it with the cycle error")
    func thenReturningItself() throws {
        let manual = ManualDispatcher()
        let slot = Locked<Promise<Int>?>(nil)
        let promise2 = Promise.value(1).then(on: manual) { _ -> Promise<Int> in
            slot.withLock { $0 } ?? Promise(error: TestError(-99))  // nil only if the callback ran too early
        }
        slot.withLock { $0 = promise2 }
        manual.drain()
        #expect(try vowCode(of: promise2) == .cycle)
        slot.withLock { $0 = nil }
    }

    @Test("2.3.1 recover returning its own promise rejects it with the cycle error")
    func recoverReturningItself() throws {
        let manual = ManualDispatcher()
        let slot = Locked<Promise<Int>?>(nil)
        let promise2 = Promise<Int>(error: TestError()).recover(on: manual) { _ -> Promise<Int> in
            slot.withLock { $0 } ?? Promise(error: TestError(-99))  // nil only if the callback ran too early
        }
        slot.withLock { $0 = promise2 }
        manual.drain()
        #expect(try vowCode(of: promise2) == .cycle)
        slot.withLock { $0 = nil }
    }

    @Test("2.3.1 the resolution procedure at Core level: [[Resolve]](p, p) rejects with the cycle error")
    func coreProcedure() throws {
        let core = Core()
        core.resolveProcedure(Promise<Int>(core: core))
        #expect(try vowCode(of: Promise<Int>(core: core)) == .cycle)
    }

    @Test("2.3.1 a two-promise cycle (a adopts b, b adopts a) rejects both with the cycle error")
    func twoPromiseCycle() throws {
        let (a, resolveA) = Promise<Int>.pending()
        let (b, resolveB) = Promise<Int>.pending()
        resolveA.resolve(b)
        resolveB.resolve(a)
        #expect(try vowCode(of: b) == .cycle)
        #expect(try vowCode(of: a) == .cycle)
    }

    @Test("2.3.1 resolving a promise with a chain that leads back to it rejects with the cycle error")
    func chainCycle() throws {
        let (head, resolver) = Promise<Int>.pending()
        let tail = head.then { $0 + 1 }.then { $0 + 1 }.map { $0 }
        resolver.resolve(tail)
        #expect(try vowCode(of: head) == .cycle)
        #expect(try vowCode(of: tail) == .cycle)
    }

    @Test("2.3.1 a cycle through a combinator's first input rejects with the cycle error")
    func cycleThroughCombinator() throws {
        let (head, resolver) = Promise<Int>.pending()
        let gathered = when(fulfilled: [head.map { $0 }, Promise.value(2)]).map { $0.reduce(0, +) }
        resolver.resolve(gathered)
        #expect(try vowCode(of: head) == .cycle)
        #expect(try vowCode(of: gathered) == .cycle)
    }

    @Test("2.3.1 a cycle through a promise that keeps cancel handlers rejects with the cycle error")
    func cycleThroughCancelHandlers() throws {
        let (a, ra) = Promise<Int>.pending()
        ra.onCancel {}  // `a` keeps what it waits on beside its cancel handlers
        let (b, rb) = Promise<Int>.pending()
        ra.resolve(b)
        rb.resolve(a)
        #expect(try vowCode(of: b) == .cycle)
        #expect(try vowCode(of: a) == .cycle)
    }

    @Test("2.3.1 adopting a pending promise whose chain ends in a settled one is no cycle")
    func noCycleThroughSettled() throws {
        let (head, resolver) = Promise<Int>.pending()
        let settledChain = Promise.value(1).then { Promise.value($0 + 1) }.map { $0 }
        resolver.resolve(settledChain.map { $0 * 10 })
        #expect(try head.wait() == 20)
    }

    @Test("2.3.1 a three-promise cycle through resolvers rejects with the cycle error")
    func threePromiseCycle() throws {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let (c, rc) = Promise<Int>.pending()
        ra.resolve(b)
        rb.resolve(c)
        rc.resolve(a)
        for promise in [a, b, c] {
            #expect(try vowCode(of: promise) == .cycle)
        }
    }
}
