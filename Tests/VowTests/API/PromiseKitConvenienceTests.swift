import Testing
@testable import Vow

// What PromiseKit users reach for: recover(policy:), ensureThen, Promise() and fulfill()
// for Void, and the type-checking cases of issue 22 (three promises of one type give a
// tuple; a multi-statement recover on Promise<Void>). cauterize() is tested with the
// unhandled-error handler (ErrorModel/CauterizeTests.swift).

@Suite("API: PromiseKit conveniences")
struct PromiseKitConvenienceTests {
    @Test("recover(policy:): .allErrorsExceptCancellation lets a cancellation through, .allErrors receives it")
    func recoverPolicy() throws {
        let calls = Counter()
        let (cancelled, resolver) = Promise<Int>.pending()
        cancelled.cancel()
        defer { withExtendedLifetime(resolver) {} }
        let skipped = cancelled.recover(policy: .allErrorsExceptCancellation) { _ -> Int in
            calls.increment()
            return 1
        }
        #expect(try vowCode(of: skipped) == .cancelled)
        let received = cancelled.recover(policy: .allErrors) { _ -> Int in
            calls.increment()
            return 2
        }
        #expect(try value(of: received) == 2)
        let promised = Promise<Int>(error: TestError(1)).recover(policy: .allErrorsExceptCancellation) { _ in
            Promise.value(3)
        }
        #expect(try value(of: promised) == 3)
        let skippedPromise = cancelled.recover(policy: .allErrorsExceptCancellation) { _ -> Promise<Int> in
            calls.increment()
            return Promise.value(4)
        }
        #expect(try vowCode(of: skippedPromise) == .cancelled)
        #expect(calls.value == 1)
        #expect(try value(of: Promise.value(5).recover(policy: .allErrors) { _ in 6 }) == 5)
    }

    @Test("recover on Promise<Void> with several statements and no return compiles and recovers")
    func voidRecoverSeveralStatements() throws {
        let seen = Counter()
        let recovered = Promise<Void>(error: TestError(1)).recover { error in
            let code = (error as? TestError)?.tag ?? 0
            for _ in 0..<code { seen.increment() }
        }
        try value(of: recovered)
        #expect(seen.value == 1)
        let retried = Promise<Void>(error: TestError(2)).recover { error in
            seen.increment()
            return Promise()
        }
        try value(of: retried)
        #expect(seen.value == 2)
    }

    @Test("ensureThen waits for the cleanup's promise, then settles like the source")
    func ensureThen() throws {
        let (cleanup, cleanupDone) = Promise<Void>.pending()
        let ran = Counter()
        let (source, resolver) = Promise<Int>.pending()
        let ensured = source.ensureThen {
            ran.increment()
            return cleanup
        }
        #expect(ran.value == 0)
        resolver.fulfill(7)
        #expect(eventually { ran.value == 1 })
        #expect(ensured.isPending)
        cleanupDone.fulfill()
        #expect(try value(of: ensured) == 7)

        let failed = Promise<Int>(error: TestError(1)).ensureThen { Promise() }
        #expect(try error(of: failed) as? TestError == TestError(1))
        let cleanupFailed = Promise.value(1).ensureThen { Promise(error: TestError(2)) }
        #expect(try error(of: cleanupFailed) as? TestError == TestError(2))
    }

    @Test("ensureThen's cleanup runs also when the returned promise was cancelled")
    func ensureThenCancelled() throws {
        let ran = Counter()
        let (source, resolver) = Promise<Int>.pending()
        let ensured = source.ensureThen {
            ran.increment()
            return Promise()
        }
        ensured.cancel()
        #expect(source.isCancelled)
        #expect(eventually { ran.value == 1 })
        resolver.fulfill(1)
    }

    @Test("Promise() is a fulfilled Promise<Void>; seal.fulfill() and seal.fulfill as () -> Void")
    func voidConveniences() throws {
        let made = Promise()
        #expect(made.isFulfilled)
        try value(of: made)
        let sealed = Promise<Void> { seal in seal.fulfill() }
        try value(of: sealed)
        func completion(_ done: @escaping @Sendable () -> Void) { done() }
        let passed = Promise<Void> { seal in completion(seal.fulfill) }
        try value(of: passed)
    }

    @Test("when(fulfilled:) over three promises of one type is the tuple form; one or six are arrays")
    func whenSameTypes() throws {
        let a = Promise.value(1), b = Promise.value(2), c = Promise.value(3)
        let three = try value(of: when(fulfilled: a, b, c))
        #expect(three.0 == 1 && three.1 == 2 && three.2 == 3)
        let two = try value(of: when(fulfilled: a, b))
        #expect(two.0 == 1 && two.1 == 2)
        let one: [Int] = try value(of: when(fulfilled: a))
        #expect(one == [1])
        let six: [Int] = try value(of: when(fulfilled: a, b, c, a, b, c))
        #expect(six == [1, 2, 3, 1, 2, 3])
        let array: [Int] = try value(of: when(fulfilled: [a, b, c]))
        #expect(array == [1, 2, 3])
    }
}
