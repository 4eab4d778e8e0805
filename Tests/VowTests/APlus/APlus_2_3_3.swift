import Dispatch
import Testing
@testable import Vow

// Promises/A+ 1.1, 2.3.3: if x is an object or function with a then method (a thenable),
// assimilate it. Swift thenables conform to the seed `Thenable` protocol; the C-like path,
// where looking `then` up can fail and the method can throw, is reached through
// `ThenableSource`.

/// A promise resolved through the untyped resolution procedure with `x`.
private func resolved<T>(with x: Any, as type: T.Type = T.self) -> Promise<T> {
    let core = Core()
    core.resolveProcedure(x)
    return Promise<T>(core: core)
}

/// A C-like thenable whose then-method is `method` (counted by `calls`).
private func source(calls: Counter? = nil,
                    _ method: @escaping @Sendable (_ resolve: @escaping @Sendable (Any) -> Void,
                                                   _ reject: @escaping @Sendable (any Error) -> Void) throws -> Void) -> ScriptedSource {
    ScriptedSource {
        .success(ThenMethod { _, resolve, reject in
            calls?.increment()
            try method(resolve, reject)
        })
    }
}

@Suite("A+ 2.3.3 thenables")
struct APlus_2_3_3 {
    // MARK: 2.3.3.1

    @Test("2.3.3.1 then is looked up once (C-like source)")
    func lookedUpOnce() throws {
        let thenable = source { resolve, _ in resolve(1) }
        #expect(try value(of: resolved(with: SourceValue(source: thenable), as: Int.self)) == 1)
        #expect(thenable.lookUps.value == 1)
    }

    @Test("2.3.3.1 a Swift thenable's then is called once")
    func swiftThenCalledOnce() throws {
        let calls = Counter()
        let promise = Promise.value(0).then { _ in SyncThenable(2, probe: { calls.increment() }) }
        #expect(try value(of: promise) == 2)
        #expect(calls.value == 1)
    }

    @Test("2.3.3.1 then is not called inside the call that resolves the promise")
    func notCalledInline() throws {
        let detector = InlineDetector()
        let core = Core()
        detector.during { core.resolveProcedure(SyncThenable(3, probe: { detector.check() })) }
        #expect(try value(of: Promise<Int>(core: core)) == 3)
        #expect(detector.checkCount == 1)
        #expect(detector.inlineCount == 0)
    }

    // MARK: 2.3.3.2

    @Test("2.3.3.2 if retrieving then throws e, reject promise with e as the reason")
    func lookUpFails() throws {
        let thenable = ScriptedSource { .failure(TestError(1)) }
        #expect(try error(of: resolved(with: SourceValue(source: thenable), as: Int.self)) as? TestError == TestError(1))
        #expect(thenable.lookUps.value == 1)
    }

    // MARK: 2.3.3.3.1

    @Test("2.3.3.3.1 resolvePromise called synchronously with a value y fulfils with y")
    func syncValue() throws {
        let token = Token()
        #expect(try value(of: resolved(with: SyncThenable(token), as: Token.self)) === token)
    }

    @Test("2.3.3.3.1 resolvePromise called later, from another thread, fulfils with y")
    func asyncValue() throws {
        let gate = DispatchSemaphore(value: 0)
        let promise = Promise.value(0).then { _ in AsyncThenable(4, after: gate) }
        #expect(promise.isPending)
        gate.signal()
        #expect(try value(of: promise) == 4)
    }

    @Test("2.3.3.3.1 resolvePromise called with a promise y adopts y")
    func valueIsPromise() throws {
        let (y, resolver) = Promise<Int>.pending()
        let calls = Counter()
        let promise = resolved(with: SourceValue(source: source(calls: calls) { resolve, _ in resolve(y) }), as: Int.self)
        #expect(eventually { calls.value == 1 })
        #expect(promise.isPending)
        resolver.fulfill(5)
        #expect(try value(of: promise) == 5)
        // A Swift thenable whose value is a promise.
        #expect(try value(of: resolved(with: SyncThenable(Promise.value(6)), as: Int.self)) == 6)
        #expect(try error(of: resolved(with: SyncThenable(Promise<Int>(error: TestError(7))), as: Int.self)) as? TestError == TestError(7))
    }

    @Test("2.3.3.3.1 resolvePromise called with a thenable y resolves recursively")
    func valueIsThenable() throws {
        let nested = SyncThenable(SyncThenable(SyncThenable(8)))
        #expect(try value(of: resolved(with: nested, as: Int.self)) == 8)
        let mixed = SyncThenable(AsyncThenable(SyncThenable(9)))
        #expect(try value(of: resolved(with: mixed, as: Int.self)) == 9)
        let rejecting = SyncThenable(SyncRejectingThenable<Int>(reason: TestError(10)))
        #expect(try error(of: resolved(with: rejecting, as: Int.self)) as? TestError == TestError(10))
        // Through the typed then: the thenable's own value type is a thenable, and the
        // promise ends up holding the innermost value.
        let typed = Promise.value(0).then { _ in SyncThenable(SyncThenable(11)) }
        #expect(try value(of: Promise<Int>(core: typed.core)) == 11)
    }

    // MARK: 2.3.3.3.2

    @Test("2.3.3.3.2 rejectPromise called with a reason r rejects with r")
    func rejectWithError() throws {
        let promise = resolved(with: SourceValue(source: source { _, reject in reject(TestError(12)) }), as: Int.self)
        #expect(try error(of: promise) as? TestError == TestError(12))
        #expect(try error(of: resolved(with: SyncRejectingThenable<Int>(reason: TestError(13)), as: Int.self)) as? TestError == TestError(13))
    }

    @Test("2.3.3.3.2 a reason that is not an Error comes back unchanged to a seed onFailure")
    func rejectWithNonError() throws {
        let promise = Promise.value(0).then { _ in SyncRejectingThenable<Int>(reason: "not an error") }
        let wrapped = try error(of: promise)
        #expect((wrapped as? ThenableReason)?.reason as? String == "not an error")
        let reasons = EventLog<String>()
        promise.then(nil, { reason in reasons.append(reason as? String ?? "<\(String(describing: reason))>") })
        #expect(eventually { reasons.count == 1 })
        #expect(reasons.all == ["not an error"])
    }

    // MARK: 2.3.3.3.3

    @Test("2.3.3.3.3 resolvePromise then rejectPromise: the first call takes precedence")
    func resolveThenReject() throws {
        let thenable = ScriptedThenable<Int>(script: [.success(1), .failure(TestError(1))])
        #expect(try value(of: resolved(with: thenable, as: Int.self)) == 1)
    }

    @Test("2.3.3.3.3 rejectPromise then resolvePromise: the first call takes precedence")
    func rejectThenResolve() throws {
        let thenable = ScriptedThenable<Int>(script: [.failure(TestError(2)), .success(1)])
        #expect(try error(of: resolved(with: thenable, as: Int.self)) as? TestError == TestError(2))
    }

    @Test("2.3.3.3.3 resolvePromise twice: only the first call counts")
    func resolveTwice() throws {
        let thenable = ScriptedThenable<Int>(script: [.success(1), .success(2), .failure(nil)])
        #expect(try value(of: resolved(with: thenable, as: Int.self)) == 1)
        let cLike = source { resolve, _ in
            resolve(3)
            resolve(4)
        }
        #expect(try value(of: resolved(with: SourceValue(source: cLike), as: Int.self)) == 3)
    }

    @Test("2.3.3.3.3 rejectPromise twice: only the first call counts")
    func rejectTwice() throws {
        let thenable = ScriptedThenable<Int>(script: [.failure(TestError(3)), .failure(TestError(4))])
        #expect(try error(of: resolved(with: thenable, as: Int.self)) as? TestError == TestError(3))
    }

    @Test("2.3.3.3.3 resolvePromise with a not-yet-settled thenable, then rejectPromise: the resolution wins")
    func firstCallWinsBeforeSettling() throws {
        let gate = DispatchSemaphore(value: 0)
        let calls = Counter()
        let promise = resolved(with: SourceValue(source: source(calls: calls) { resolve, reject in
            resolve(AsyncThenable(5, after: gate))
            reject(TestError(5))
        }), as: Int.self)
        #expect(eventually { calls.value == 1 })
        #expect(promise.isPending)
        gate.signal()
        #expect(try value(of: promise) == 5)
    }

    @Test("2.3.3.3.3 resolvePromise and rejectPromise racing on two threads: exactly one counts")
    func racingCallbacks() throws {
        let rounds = Stress.iterations(200)
        var fulfilled = 0
        var rejected = 0
        for _ in 0..<rounds {
            let barrier = SpinBarrier(parties: 2)
            let promise = resolved(with: SourceValue(source: source { resolve, reject in
                try? concurrently(2) { index in
                    barrier.arriveAndWait()
                    if index == 0 { resolve(1) } else { reject(TestError(6)) }
                }
            }), as: Int.self)
            switch try outcome(of: promise) {
            case .success(let value):
                #expect(value == 1)
                fulfilled += 1
            case .failure(let error):
                #expect(error as? TestError == TestError(6))
                rejected += 1
            }
        }
        #expect(fulfilled + rejected == rounds)
    }

    // MARK: 2.3.3.3.4

    @Test("2.3.3.3.4.1 then throws after calling resolvePromise: the throw is ignored")
    func throwAfterResolve() throws {
        let promise = resolved(with: SourceValue(source: source { resolve, _ in
            resolve(6)
            throw TestError(7)
        }), as: Int.self)
        #expect(try value(of: promise) == 6)
    }

    @Test("2.3.3.3.4.1 then throws after calling rejectPromise: the throw is ignored")
    func throwAfterReject() throws {
        let promise = resolved(with: SourceValue(source: source { _, reject in
            reject(TestError(8))
            throw TestError(9)
        }), as: Int.self)
        #expect(try error(of: promise) as? TestError == TestError(8))
    }

    @Test("2.3.3.3.4.1 then throws after resolving with a thenable that settles later: the throw is ignored")
    func throwAfterResolveWithPendingThenable() throws {
        let gate = DispatchSemaphore(value: 0)
        let promise = resolved(with: SourceValue(source: source { resolve, _ in
            resolve(AsyncThenable(10, after: gate))
            throw TestError(10)
        }), as: Int.self)
        gate.signal()
        #expect(try value(of: promise) == 10)
    }

    @Test("2.3.3.3.4.2 then throws before calling either callback: reject with the thrown error")
    func throwBeforeCallbacks() throws {
        let promise = resolved(with: SourceValue(source: source { _, _ in throw TestError(11) }), as: Int.self)
        #expect(try error(of: promise) as? TestError == TestError(11))
    }

    @Test("2.3.3.3 a then that keeps its callbacks and never calls them leaves the promise pending")
    func silentThen() throws {
        let calls = Counter()
        let kept = Locked<[Any]>([])
        let promise = resolved(with: SourceValue(source: source(calls: calls) { resolve, reject in
            kept.withLock { $0 = [resolve, reject] }
        }), as: Int.self)
        #expect(eventually { calls.value == 1 })
        #expect(promise.isPending)
        promise.cancel()
        #expect(try vowCode(of: promise) == .cancelled)
        kept.withLock { $0 = [] }
    }

    @Test("2.3.3.3 a then that releases its callbacks without calling either rejects with the broken-promise error")
    func droppedCallbacks() throws {
        let calls = Counter()
        let promise = resolved(with: SourceValue(source: source(calls: calls) { _, _ in }), as: Int.self)
        #expect(try vowCode(of: promise) == .broken)
        #expect(calls.value == 1)
        let swiftThenable = Promise.value(0).then { _ in SilentThenable<Int>() }
        #expect(try vowCode(of: swiftThenable) == .broken)
    }

    // MARK: 2.3.3.4

    @Test("2.3.3.4 if then is not a function, fulfil promise with x itself")
    func notAThenable() throws {
        let object = Token(12)
        let thenable = ScriptedSource(object: object) { .success(nil) }
        #expect(try value(of: resolved(with: SourceValue(source: thenable), as: Token.self)) === object)
        #expect(thenable.lookUps.value == 1)
    }
}
