import Testing
@testable import Vow

// Resolver: fulfill, reject, resolve(Result), resolve(value, error), resolve(promise),
// onCancel, isCancelled, isPending, and the broken-promise rule.

@Suite("API: Resolver")
struct ResolverTests {
    @Test("fulfill fulfils; reject rejects")
    func fulfillReject() throws {
        let (a, ra) = Promise<Int>.pending()
        ra.fulfill(1)
        #expect(try value(of: a) == 1)
        let (b, rb) = Promise<Int>.pending()
        rb.reject(TestError(1))
        #expect(try error(of: b) as? TestError == TestError(1))
    }

    @Test("resolve(Result) fulfils from .success and rejects from .failure")
    func resolveResult() throws {
        let (a, ra) = Promise<Int>.pending()
        ra.resolve(.success(2))
        #expect(try value(of: a) == 2)
        let (b, rb) = Promise<Int>.pending()
        rb.resolve(.failure(TestError(2)))
        #expect(try error(of: b) as? TestError == TestError(2))
    }

    @Test("resolve(value, nil) fulfils")
    func resolveValueOnly() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(3, nil)
        #expect(try value(of: promise) == 3)
    }

    @Test("resolve(nil, error) rejects")
    func resolveErrorOnly() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(nil, TestError(3))
        #expect(try error(of: promise) as? TestError == TestError(3))
    }

    @Test("resolve(value, error) with both rejects with the error")
    func resolveBoth() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(4, TestError(4))
        #expect(try error(of: promise) as? TestError == TestError(4))
    }

    @Test("resolve(nil, nil) rejects with the type error")
    func resolveNeither() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(nil, nil)
        #expect(try vowCode(of: promise) == .type)
    }

    @Test("resolve(promise) adopts it, pending and then fulfilled")
    func resolvePromise() throws {
        let (source, sourceResolver) = Promise<Int>.pending()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(source)
        #expect(promise.isPending)
        sourceResolver.fulfill(5)
        #expect(try value(of: promise) == 5)
        let (rejected, rr) = Promise<Int>.pending()
        rr.resolve(Promise<Int>(error: TestError(5)))
        #expect(try error(of: rejected) as? TestError == TestError(5))
    }

    @Test("resolve(promise) with its own promise rejects with the cycle error")
    func resolveSelf() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(promise)
        #expect(try vowCode(of: promise) == .cycle)
    }

    @Test("a second settle is ignored, whichever way it comes")
    func secondSettleIgnored() throws {
        let (a, ra) = Promise<Int>.pending()
        ra.fulfill(1)
        ra.reject(TestError())
        ra.resolve(.success(2))
        ra.resolve(3, nil)
        ra.resolve(Promise.value(4))
        #expect(try value(of: a) == 1)
        let (b, rb) = Promise<Int>.pending()
        rb.reject(TestError(6))
        rb.fulfill(1)
        #expect(try error(of: b) as? TestError == TestError(6))
        // After adopting a pending promise, the resolver is used up.
        let (source, sourceResolver) = Promise<Int>.pending()
        let (c, rc) = Promise<Int>.pending()
        rc.resolve(source)
        rc.fulfill(99)
        rc.resolve(Promise.value(98))
        sourceResolver.fulfill(7)
        #expect(try value(of: c) == 7)
    }

    @Test("isPending: true until settled or used up by an adoption")
    func isPending() {
        let (_, ra) = Promise<Int>.pending()
        #expect(ra.isPending)
        ra.fulfill(1)
        #expect(!ra.isPending)
        let (source, sourceResolver) = Promise<Int>.pending()
        let (adopting, rb) = Promise<Int>.pending()
        rb.resolve(source)
        #expect(!rb.isPending)
        #expect(adopting.isPending)
        sourceResolver.fulfill(1)
    }

    @Test("onCancel runs once when the promise is cancelled; isCancelled turns true")
    func onCancelRuns() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let runs = Counter()
        resolver.onCancel { runs.increment() }
        resolver.onCancel { runs.increment() }
        #expect(!resolver.isCancelled)
        promise.cancel()
        promise.cancel()
        #expect(resolver.isCancelled)
        #expect(eventually { runs.value == 2 })
        // Registered after the cancellation: queued at once.
        resolver.onCancel { runs.increment() }
        #expect(eventually { runs.value == 3 })
    }

    @Test("onCancel handlers are dropped when the promise settles otherwise")
    func onCancelDropped() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let runs = Counter()
        resolver.onCancel { runs.increment() }
        resolver.fulfill(1)
        promise.cancel()
        resolver.onCancel { runs.increment() }
        // Cancel handlers run on the default dispatcher: a callback queued there after
        // them runs after them.
        #expect(try value(of: Promise.value(0).map { $0 }) == 0)
        #expect(runs.value == 0)
        #expect(!resolver.isCancelled)
    }

    @Test("a resolver released unused rejects its promise with the broken-promise error")
    func brokenPromise() throws {
        let dropped: Promise<Int> = {
            let (promise, resolver) = Promise<Int>.pending()
            withExtendedLifetime(resolver) {}
            return promise
        }()
        #expect(try vowCode(of: dropped) == .broken)
        let body = Promise<Int> { _ in }
        #expect(try vowCode(of: body) == .broken)
    }

    @Test("a resolver released after adopting a pending promise does not break it")
    func notBrokenAfterAdoption() throws {
        let (source, sourceResolver) = Promise<Int>.pending()
        let adopting: Promise<Int> = {
            let (promise, resolver) = Promise<Int>.pending()
            resolver.resolve(source)
            return promise
        }()
        #expect(adopting.isPending)
        sourceResolver.fulfill(8)
        #expect(try value(of: adopting) == 8)
    }
}
