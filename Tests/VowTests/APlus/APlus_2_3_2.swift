import Testing
@testable import Vow

// Promises/A+ 1.1, 2.3.2: if x is a promise, adopt its state.

@Suite("A+ 2.3.2 adopting a promise")
struct APlus_2_3_2 {
    @Test("2.3.2.1 if x is pending, promise remains pending until x is fulfilled")
    func pendingUntilFulfilled() throws {
        let (x, xResolver) = Promise<Int>.pending()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(x)
        #expect(promise.isPending)
        #expect(!resolver.isPending)  // the resolver is used up by the adoption
        resolver.fulfill(99)          // ignored
        #expect(promise.isPending)
        xResolver.fulfill(5)
        #expect(try value(of: promise) == 5)
    }

    @Test("2.3.2.1 if x is pending, promise remains pending until x is rejected")
    func pendingUntilRejected() throws {
        let manual = ManualDispatcher()
        let (x, xResolver) = Promise<Int>.pending()
        let promise = Promise.value(0).then(on: manual) { _ in x }
        manual.drain()
        #expect(promise.isPending)
        xResolver.reject(TestError(3))
        #expect(try error(of: promise) as? TestError == TestError(3))
    }

    @Test("2.3.2.2 if/when x is fulfilled, fulfil promise with the same value")
    func fulfilledSameValue() throws {
        let token = Token()
        // Already fulfilled.
        let (p1, r1) = Promise<Token>.pending()
        r1.resolve(Promise.value(token))
        #expect(try value(of: p1) === token)
        // Fulfilled later, through then.
        let (x, xResolver) = Promise<Token>.pending()
        let p2 = Promise.value(0).then { _ in x }
        xResolver.fulfill(token)
        #expect(try value(of: p2) === token)
    }

    @Test("2.3.2.3 if/when x is rejected, reject promise with the same reason")
    func rejectedSameReason() throws {
        let (p1, r1) = Promise<Int>.pending()
        r1.resolve(Promise<Int>(error: TestError(1)))
        #expect(try error(of: p1) as? TestError == TestError(1))
        let (x, xResolver) = Promise<Int>.pending()
        let p2 = Promise.value(0).flatMap { _ in x }
        xResolver.reject(TestError(2))
        #expect(try error(of: p2) as? TestError == TestError(2))
    }

    @Test("2.3.2 adoption through several levels follows the innermost promise")
    func nestedAdoption() throws {
        let (innermost, resolver) = Promise<Int>.pending()
        let outer = Promise.value(0).then { _ in Promise.value(0).then { _ in Promise.value(0).then { _ in innermost } } }
        resolver.fulfill(7)
        #expect(try value(of: outer) == 7)
    }

    @Test("2.3.2 at Core level: resolveProcedure with a promise adopts it")
    func coreAdopts() throws {
        let source = Core()
        let core = Core()
        core.resolveProcedure(Promise<Int>(core: source))
        #expect(core.isPending)
        source.settle(.fulfilled(8))
        #expect(try value(of: Promise<Int>(core: core)) == 8)
    }
}
