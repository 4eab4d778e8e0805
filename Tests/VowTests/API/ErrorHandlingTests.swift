import Testing
@testable import Vow

// recover (both forms), catch with its policies, finally/always.

@Suite("API: recover, catch, finally")
struct ErrorHandlingTests {
    @Test("recover returning a value replaces a rejection; a fulfilment passes through untouched")
    func recoverValue() throws {
        #expect(try value(of: Promise<Int>(error: TestError()).recover { _ in 1 }) == 1)
        let calls = Counter()
        let passed = Promise.value(2).recover { _ -> Int in
            calls.increment()
            return 0
        }
        #expect(try value(of: passed) == 2)
        #expect(calls.value == 0)
    }

    @Test("recover returning a promise continues with it; a throw rejects")
    func recoverPromise() throws {
        let (inner, resolver) = Promise<Int>.pending()
        let recovered = Promise<Int>(error: TestError()).recover { _ in inner }
        resolver.fulfill(3)
        #expect(try value(of: recovered) == 3)
        #expect(try error(of: Promise<Int>(error: TestError(1)).recover { _ -> Int in throw TestError(2) }) as? TestError == TestError(2))
    }

    @Test("recover receives cancellation")
    func recoverCancellation() throws {
        let (source, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let recovered = source.recover { error -> Int in isCancellation(error) ? 42 : 0 }
        let promiseForm = source.recover { error -> Promise<Int> in Promise.value(isCancellation(error) ? 43 : 0) }
        source.cancel()
        #expect(try value(of: recovered) == 42)
        #expect(try value(of: promiseForm) == 43)
    }

    @Test("catch handles an error: the body sees it and the returned promise fulfils")
    func catchHandles() throws {
        let seen = EventLog<Int>()
        let handled = Promise<Int>(error: TestError(4)).catch { error in seen.append((error as? TestError)?.tag ?? -1) }
        try value(of: handled)
        #expect(seen.all == [4])
    }

    @Test("catch with the default policy skips cancellation; its promise stays rejected with it")
    func catchSkipsCancellation() throws {
        let calls = Counter()
        let (source, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let caught = source.catch { _ in calls.increment() }
        source.cancel()
        #expect(try vowCode(of: caught) == .cancelled)
        #expect(calls.value == 0)
        // Swift's CancellationError is skipped too.
        let swiftCancel = Promise<Int>(error: CancellationError()).catch { _ in calls.increment() }
        #expect(try error(of: swiftCancel) is CancellationError)
        #expect(calls.value == 0)
    }

    @Test("catch(policy: .allErrors) receives cancellation")
    func catchAllErrors() throws {
        let seen = EventLog<Bool>()
        let (source, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let caught = source.catch(policy: .allErrors) { seen.append(isCancellation($0)) }
        source.cancel()
        try value(of: caught)
        #expect(seen.all == [true])
    }

    @Test("catch on a fulfilled source does not run and fulfils with ()")
    func catchOnFulfilled() throws {
        let calls = Counter()
        try value(of: Promise.value(1).catch { _ in calls.increment() })
        #expect(calls.value == 0)
    }

    @Test("catch with a throwing body rejects with the thrown error")
    func catchThrows() throws {
        let caught = Promise<Int>(error: TestError(5)).catch { _ in throw TestError(6) }
        #expect(try error(of: caught) as? TestError == TestError(6))
    }

    @Test("finally runs after success and settles like the source")
    func finallyAfterSuccess() throws {
        let runs = Counter()
        let token = Token()
        let after = Promise.value(token).finally { runs.increment() }
        #expect(try value(of: after) === token)
        #expect(runs.value == 1)
    }

    @Test("finally runs after failure and settles like the source")
    func finallyAfterFailure() throws {
        let runs = Counter()
        let after = Promise<Int>(error: TestError(7)).finally { runs.increment() }
        #expect(try error(of: after) as? TestError == TestError(7))
        #expect(runs.value == 1)
    }

    @Test("finally runs after a catch that skipped a cancellation")
    func finallyAfterSkippedCatch() throws {
        let runs = Counter()
        let (source, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let after = source.catch { _ in }.finally { runs.increment() }
        source.cancel()
        #expect(try vowCode(of: after) == .cancelled)
        #expect(runs.value == 1)
    }

    @Test("finally runs once its source settles, even if its own promise was cancelled first")
    func finallyAfterOwnCancel() throws {
        let runs = Counter()
        let (source, resolver) = Promise<Int>.pending()
        let keep = source.map { $0 }
        let after = source.finally { runs.increment() }
        after.cancel()
        #expect(source.isPending)  // `keep` still needs it
        resolver.fulfill(1)
        #expect(try value(of: keep) == 1)
        #expect(eventually { runs.value == 1 })
        #expect(try vowCode(of: after) == .cancelled)
    }

    @Test("always is finally: runs after success and failure, settles like the source")
    func always() throws {
        let runs = Counter()
        #expect(try value(of: Promise.value(8).always { runs.increment() }) == 8)
        #expect(try error(of: Promise<Int>(error: TestError(8)).always { runs.increment() }) as? TestError == TestError(8))
        #expect(runs.value == 2)
    }

    @Test("VowError.Code matches a library error by its code: ~= and catch VowError.Code.timeout")
    func codePattern() throws {
        let promise = Promise<Int>(error: VowError(.timeout, "slow"))
        #expect(VowError.Code.timeout ~= (try error(of: promise)))
        #expect(!(VowError.Code.cancelled ~= (try error(of: promise))))
        #expect(!(VowError.Code.timeout ~= TestError()))
        var matched = ""
        do {
            _ = try promise.wait()
        } catch VowError.Code.cancelled {
            matched = "cancelled"
        } catch VowError.Code.timeout {
            matched = "timeout"
        } catch {
            matched = "other"
        }
        #expect(matched == "timeout")
        // A domain/code pair from elsewhere with the same number is not a library code.
        #expect(!(VowError.Code.timeout ~= VowError(domain: "other", code: VowError.Code.timeout.rawValue, message: "")))
    }

    @Test("a chain: then, catch, finally in sequence run each exactly once")
    func fullChain() throws {
        let log = EventLog<String>()
        let end = Promise.value(1)
            .then { _ -> Int in
                log.append("then")
                throw TestError(9)
            }
            .map { value -> Int in
                log.append("skipped")
                return value
            }
            .catch { _ in log.append("catch") }
            .finally { log.append("finally") }
        try value(of: end)
        #expect(log.all == ["then", "catch", "finally"])
    }
}
