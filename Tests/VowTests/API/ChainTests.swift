import Testing
@testable import Vow

// The chaining methods: then (value, promise, thenable), map, flatMap, done, get, tap,
// validate (formerly ensure), asVoid.

@Suite("API: chaining")
struct ChainTests {
    @Test("then returning a value fulfils with it; a throw rejects; a rejection skips the body")
    func thenValue() throws {
        #expect(try value(of: Promise.value(2).then { $0 * 10 }) == 20)
        #expect(try error(of: Promise.value(2).then { _ -> Int in throw TestError(1) }) as? TestError == TestError(1))
        let ran = Counter()
        let skipped = Promise<Int>(error: TestError(2)).then { value -> Int in
            ran.increment()
            return value
        }
        #expect(try error(of: skipped) as? TestError == TestError(2))
        #expect(ran.value == 0)
    }

    @Test("then returning a promise adopts it (fulfilled or rejected)")
    func thenPromise() throws {
        #expect(try value(of: Promise.value(2).then { Promise.value("\($0)") }) == "2")
        let rejected = Promise.value(2).then { _ in Promise<String>(error: TestError(3)) }
        #expect(try error(of: rejected) as? TestError == TestError(3))
    }

    @Test("then returning a foreign thenable assimilates it")
    func thenThenable() throws {
        #expect(try value(of: Promise.value(2).then { SyncThenable($0 + 1) }) == 3)
        #expect(try value(of: Promise.value(2).then { AsyncThenable($0 + 2) }) == 4)
        let rejected = Promise.value(2).then { _ in SyncRejectingThenable<Int>(reason: TestError(4)) }
        #expect(try error(of: rejected) as? TestError == TestError(4))
    }

    @Test("map transforms the value; a throw rejects")
    func map() throws {
        #expect(try value(of: Promise.value(3).map { String(repeating: "x", count: $0) }) == "xxx")
        #expect(try error(of: Promise.value(3).map { _ -> Int in throw TestError(5) }) as? TestError == TestError(5))
    }

    @Test("flatMap chains a promise-returning step; a throw rejects")
    func flatMap() throws {
        let (inner, resolver) = Promise<Int>.pending()
        let chained = Promise.value(1).flatMap { _ in inner }
        resolver.fulfill(11)
        #expect(try value(of: chained) == 11)
        #expect(try error(of: Promise.value(1).flatMap { _ -> Promise<Int> in throw TestError(6) }) as? TestError == TestError(6))
    }

    @Test("done consumes the value and fulfils with (); a throw rejects")
    func done() throws {
        let seen = EventLog<Int>()
        let finished = Promise.value(4).done { seen.append($0) }
        try value(of: finished)
        #expect(seen.all == [4])
        #expect(try error(of: Promise.value(4).done { _ in throw TestError(7) }) as? TestError == TestError(7))
    }

    @Test("get sees the value and passes it on; a throw rejects")
    func get() throws {
        let token = Token()
        let seen = EventLog<Int>()
        let passed = Promise.value(token).get { seen.append($0.id) }
        #expect(try value(of: passed) === token)
        #expect(seen.all == [token.id])
        #expect(try error(of: Promise.value(token).get { _ in throw TestError(8) }) as? TestError == TestError(8))
    }

    @Test("tap sees the value and passes it on")
    func tapValue() throws {
        let seen = EventLog<Int>()
        let passed = Promise.value(5).tap { result in
            if case .success(let value) = result { seen.append(value) }
        }
        #expect(try value(of: passed) == 5)
        #expect(seen.all == [5])
    }

    @Test("tap sees the error and passes it on, still rejected")
    func tapError() throws {
        let seen = EventLog<Int>()
        let passed = Promise<Int>(error: TestError(9)).tap { result in
            if case .failure(let error) = result { seen.append((error as? TestError)?.tag ?? -1) }
        }
        #expect(try error(of: passed) as? TestError == TestError(9))
        #expect(seen.all == [9])
    }

    @Test("validate passes a value that satisfies the predicate")
    func validatePasses() throws {
        #expect(try value(of: Promise.value(10).validate { $0 > 5 }) == 10)
    }

    @Test("validate rejects a value that fails the predicate with the default validate error")
    func validateFails() throws {
        let failed = try error(of: Promise.value(1).validate { $0 > 5 })
        let vow = failed as? VowError
        #expect(vow?.domain == "vow.validate")
        #expect(vow?.code == 1)
        #expect(vow?.message.contains("validate") == true)
    }

    @Test("validate rejects with the custom error given; a throwing predicate rejects with its error")
    func validateCustomError() throws {
        #expect(try error(of: Promise.value(1).validate({ $0 > 5 }, otherwise: TestError(10))) as? TestError == TestError(10))
        #expect(try error(of: Promise.value(1).validate { _ in throw TestError(11) }) as? TestError == TestError(11))
        // A rejection passes through without calling the predicate.
        let calls = Counter()
        let skipped = Promise<Int>(error: TestError(12)).validate { _ in calls.increment() > 0 }
        #expect(try error(of: skipped) as? TestError == TestError(12))
        #expect(calls.value == 0)
    }

    @Test("validate runs its predicate on the dispatcher given")
    func validateOnDispatcher() throws {
        let queue = ManualDispatcher()
        let calls = Counter()
        let checked = Promise.value(3).validate(on: queue) { value in
            calls.increment()
            return value == 3
        }
        #expect(calls.value == 0)
        #expect(queue.drain() == 1)
        #expect(calls.value == 1)
        #expect(try value(of: checked) == 3)
    }

    @Test("asVoid forgets the value; a rejection passes through")
    func asVoid() throws {
        try value(of: Promise.value(1).asVoid())
        #expect(try error(of: Promise<Int>(error: TestError(13)).asVoid()) as? TestError == TestError(13))
    }

    @Test("a value of another type than the promise claims rejects with the type error, not a crash")
    func typeMismatch() throws {
        let core = Core(fulfilled: "a string")
        let promise = Promise<Int>(core: core).then { $0 + 1 }
        #expect(try vowCode(of: promise) == .type)
    }
}
