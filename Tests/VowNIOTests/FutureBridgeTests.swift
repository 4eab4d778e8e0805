#if NIO
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import Vow
import VowNIO

// Promise(future), future.promise and promise.futureResult(on:): values, errors and
// cancellation each way, and chains that alternate NIO and Vow steps.

extension NIOBridge {
    @Suite("VowNIO: futures and promises")
    struct FutureBridgeTests {
        // MARK: Future to promise

        @Test("Promise(future) fulfils with the future's value, pending or already completed")
        func promiseFromFuture() throws {
            try withLoop { loop, _ throws in
                let later = loop.makePromise(of: Int.self)
                let promise = Promise(later.futureResult)
                #expect(promise.isPending)
                later.succeed(42)
                #expect(try value(of: promise) == 42)
                #expect(try value(of: Promise(loop.makeSucceededFuture("done"))) == "done")
                #expect(try value(of: loop.submit { 7 }.promise) == 7)
            }
        }

        @Test("a failed future gives a promise rejected with the same error")
        func failureBecomesRejection() throws {
            try withLoop { loop, _ throws in
                let token = makeToken()
                let failing = loop.makePromise(of: Int.self)
                let promise = failing.futureResult.promise
                failing.fail(TokenError(token, 1))
                #expect(try error(of: promise) as? TokenError == TokenError(token, 1))
                let already = Promise(loop.makeFailedFuture(TokenError(token, 2)) as EventLoopFuture<Int>)
                #expect(try error(of: already) as? TokenError == TokenError(token, 2))
            }
        }

        @Test("the promise is settled on the future's loop")
        func settledOnTheFuturesLoop() throws {
            try withLoop { loop, _ throws in
                let later = loop.makePromise(of: Int.self)
                // .inline: the callback runs where the promise settles.
                let settledOnLoop = later.futureResult.promise.map(on: .inline) { _ in loop.inEventLoop }
                later.succeed(1)  // from this thread; NIO completes the future on its loop
                #expect(try value(of: settledOnLoop))
            }
        }

        @Test("in debug mode, Promise(future) and futureResult(on:) record the caller's file and line")
        func debugSites() throws {
            try withLoop { loop, _ throws in
                VowRuntime.debugMode = true
                defer { VowRuntime.debugMode = false }
                let later = loop.makePromise(of: Int.self)
                let promise = Promise(later.futureResult); let promiseLine = #line
                let (source, resolver) = Promise<Int>.pending()
                let future = source.futureResult(on: loop); let futureLine = #line
                // Other tests may run meanwhile: look for these sites, not for a census of two.
                let sites = VowRuntime.pendingPromises().map(\.site)
                #expect(sites.contains("\(#fileID):\(promiseLine)"))
                #expect(sites.contains("\(#fileID):\(futureLine)"))
                later.succeed(1)
                resolver.fulfill(2)
                #expect(try value(of: promise) == 1)
                #expect(try future.wait() == 2)
            }
        }

        // MARK: Promise to future

        @Test("futureResult(on:) succeeds with the value, on the given loop")
        func futureFromPromise() throws {
            try withLoop { loop, _ throws in
                let (pending, resolver) = Promise<String>.pending()
                let future = pending.futureResult(on: loop)
                let sameLoop = ObjectIdentifier(future.eventLoop as AnyObject) == ObjectIdentifier(loop as AnyObject)
                #expect(sameLoop)
                let ranOnLoop = future.map { _ in loop.inEventLoop }
                resolver.fulfill("value")
                #expect(try value(of: future) == "value")
                #expect(try value(of: ranOnLoop))
                #expect(try value(of: Promise.value(3).futureResult(on: loop)) == 3)
            }
        }

        @Test("a rejected promise gives a future failed with the same error")
        func rejectionBecomesFailure() throws {
            try withLoop { loop, _ throws in
                let token = makeToken()
                let (pending, resolver) = Promise<Int>.pending()
                let future = pending.futureResult(on: loop)
                resolver.reject(TokenError(token, 1))
                #expect(try error(of: future) as? TokenError == TokenError(token, 1))
                let already = Promise<Int>(error: TokenError(token, 2)).futureResult(on: loop)
                #expect(try error(of: already) as? TokenError == TokenError(token, 2))
            }
        }

        @Test("cancelling the promise fails the future with Vow's cancellation error")
        func cancellationFailsTheFuture() throws {
            try withLoop { loop, _ throws in
                let (pending, resolver) = Promise<Int>.pending()
                let future = pending.futureResult(on: loop)
                pending.cancel()
                let failure = try error(of: future)
                #expect((failure as? VowError)?.vowCode == .cancelled)
                #expect(isCancellation(failure))
                #expect(pending.isCancelled)
                resolver.fulfill(1)  // too late: ignored
            }
        }

        @Test("a futureResult(on:) of a chain cancelled upstream fails with the cancellation error too")
        func cancelledChainFailsTheFuture() throws {
            try withLoop { loop, onLoop throws in
                let (head, resolver) = Promise<Int>.pending()
                let middle = head.map(on: onLoop) { $0 + 1 }
                let future = middle.map(on: onLoop) { $0 + 1 }.futureResult(on: loop)
                middle.cancel()
                #expect((try error(of: future) as? VowError)?.vowCode == .cancelled)
                withExtendedLifetime(resolver) {}  // a dropped resolver would reject `head` (broken)
            }
        }

        // MARK: Chains that cross over and back

        @Test("a chain alternating NIO and Vow steps carries its value, each Vow step on the loop")
        func alternatingChain() throws {
            let other = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            defer { try? shutDown(other) }
            let otherLoop = other.next()
            try withLoop { loop, onLoop throws in
                let steps = NIOBridge.Counter()
                let offLoop = NIOBridge.Counter()
                @Sendable func check() {
                    steps.increment()
                    if !loop.inEventLoop { offLoop.increment() }
                }
                let start = loop.submit { 1 }                                         // NIO: 1
                let second = start.promise.map(on: onLoop) { check(); return $0 + 1 }  // Vow: 2
                let third = second.futureResult(on: loop).map { $0 * 10 }             // NIO: 20
                let fourth = Promise(third).flatMap(on: onLoop) { value in            // Vow -> NIO: 23
                    check()
                    return loop.submit { value + 3 }.promise
                }
                let fifth = fourth.futureResult(on: otherLoop).flatMap { value in      // NIO, other loop: 46
                    otherLoop.makeSucceededFuture(value * 2)
                }
                let sixth = fifth.promise.map(on: onLoop) { check(); return $0 + 1 }   // Vow: 47
                let end = sixth.futureResult(on: loop).map { "\($0)" }                // NIO: "47"
                #expect(try value(of: end) == "47")
                #expect(steps.count == 3)
                #expect(offLoop.count == 0)
            }
        }

        @Test("an error raised in a NIO step crosses Vow steps unchanged and a Vow recover handles it")
        func errorThroughAlternatingChain() throws {
            try withLoop { loop, onLoop throws in
                let token = makeToken()
                let skipped = NIOBridge.Counter()
                let failing = loop.submit { () throws -> Int in throw TokenError(token, 7) }
                let vowStep = failing.promise.map(on: onLoop) { value -> Int in
                    skipped.increment()
                    return value
                }
                let nioStep = vowStep.futureResult(on: loop).map { $0 + 1 }
                let seen = NIOLockedValueBox<TokenError?>(nil)
                let recovered = Promise(nioStep).recover(on: onLoop) { error -> Int in
                    seen.withLockedValue { $0 = error as? TokenError }
                    return -1
                }
                #expect(try value(of: recovered.futureResult(on: loop)) == -1)
                #expect(seen.withLockedValue { $0 } == TokenError(token, 7))
                #expect(skipped.count == 0)
            }
        }
    }

    // The unhandled-error handler is process-wide: the one test that replaces it runs alone
    // in its suite, restores it, and counts only errors carrying its own token.
    @Suite("VowNIO: futureResult(on:) handles the error", .serialized)
    struct UnhandledTests {
        @Test("an error that went into a future is not reported as unhandled; a control branch without a handler is")
        func errorIntoFutureIsHandled() throws {
            let token = makeToken()
            let reports = NIOLockedValueBox<[Int]>([])
            let previous = VowRuntime.unhandledErrorHandler
            VowRuntime.unhandledErrorHandler = { error in
                if let error = error as? TokenError, error.token == token {
                    reports.withLockedValue { $0.append(error.index) }
                }
                previous?(error)
            }
            defer { VowRuntime.unhandledErrorHandler = previous }

            try withLoop { loop, _ throws in
                // Rejected before and after the future is made.
                do {
                    let future = Promise<Int>(error: TokenError(token, 1)).futureResult(on: loop)
                    #expect(try error(of: future) as? TokenError == TokenError(token, 1))
                }
                do {
                    let (pending, resolver) = Promise<Int>.pending()
                    let future = pending.futureResult(on: loop)
                    resolver.reject(TokenError(token, 2))
                    #expect(try error(of: future) as? TokenError == TokenError(token, 2))
                }
                // Control: a branch that ends without a handler is reported, so the handler
                // above does see this test's errors.
                do {
                    _ = Promise<Int>(error: TokenError(token, 3)).map(on: .inline) { $0 + 1 }
                }
                #expect(eventually { reports.withLockedValue { $0 } == [3] })
            }
            #expect(reports.withLockedValue { $0 } == [3])
        }
    }
}
#endif
