import Testing
@testable import Vow
@testable import VowEngine

// Promises/A+ 1.1, 2.1: promise states.

@Suite("A+ 2.1 promise states")
struct APlus_2_1 {
    @Test("2.1.1 pending: may transition to fulfilled")
    func pendingToFulfilled() throws {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(promise.isPending)
        #expect(!promise.isFulfilled && !promise.isRejected)
        resolver.fulfill(1)
        #expect(promise.isFulfilled)
        #expect(!promise.isPending && !promise.isRejected)
        #expect(try value(of: promise) == 1)
    }

    @Test("2.1.1 pending: may transition to rejected")
    func pendingToRejected() throws {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(promise.isPending)
        resolver.reject(TestError(1))
        #expect(promise.isRejected)
        #expect(!promise.isPending && !promise.isFulfilled)
        #expect(try error(of: promise) as? TestError == TestError(1))
    }

    @Test("2.1.2.1 fulfilled: must not transition to any other state")
    func fulfilledStays() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.fulfill(1)
        resolver.reject(TestError(1))
        #expect(!promise.core.settle(.rejected(TestError(2))))
        promise.cancel()
        #expect(promise.isFulfilled)
        #expect(!promise.isCancelled)
        #expect(try value(of: promise.then { $0 }) == 1)
    }

    @Test("2.1.2.2 fulfilled: must have a value, which must not change")
    func fulfilledValueFixed() throws {
        let first = Token(1)
        let (promise, resolver) = Promise<Token>.pending()
        resolver.fulfill(first)
        resolver.fulfill(Token(2))
        #expect(!promise.core.settle(.fulfilled(Token(3))))
        #expect(try value(of: promise) === first)
        // Handlers attached later see the same value.
        #expect(try value(of: promise.then { $0 }) === first)
    }

    @Test("2.1.3.1 rejected: must not transition to any other state")
    func rejectedStays() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.reject(TestError(1))
        resolver.fulfill(1)
        #expect(!promise.core.settle(.fulfilled(2)))
        promise.cancel()
        #expect(promise.isRejected)
        #expect(!promise.isCancelled)
        #expect(promise.error as? TestError == TestError(1))
        #expect(try value(of: promise.recover { ($0 as? TestError)?.tag ?? -1 }) == 1)
    }

    @Test("2.1.3.2 rejected: must have a reason, which must not change")
    func rejectedReasonFixed() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.reject(TestError(1))
        resolver.reject(TestError(2))
        #expect(!promise.core.settle(.rejected(TestError(3))))
        #expect(try error(of: promise) as? TestError == TestError(1))
        #expect(try error(of: promise.then { $0 }) as? TestError == TestError(1))
    }

    @Test("2.1 a Core-level settle succeeds once and reports later attempts")
    func coreSettleOnce() {
        let core = Core()
        #expect(core.settle(.fulfilled(1)))
        #expect(!core.settle(.fulfilled(2)))
        #expect(!core.settle(.rejected(TestError())))
        guard case .fulfilled(let raw)? = core.outcome else {
            Issue.record("expected fulfilled, found \(String(describing: core.outcome))")
            return
        }
        #expect(raw as? Int == 1)
    }
}
