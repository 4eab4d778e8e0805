import Dispatch
import Testing
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

extension ErrorModel {
    /// Counts the unhandled-error reports that carry one token (the handler is
    /// process-wide: reports from other suites are ignored).
    final class Recorder: Sendable {
        let token: String
        let hits = Counter()
        let seen = Locked<[TokenError]>([])

        init(token: String = ErrorModel.makeToken()) { self.token = token }

        /// An error of this recorder's test.
        func error(_ index: Int = 0, cancelled: Bool = false) -> TokenError {
            TokenError(token, index, cancelled: cancelled)
        }

        /// A handler that counts this recorder's errors.
        var handler: @Sendable (any Error) -> Void {
            { [self] error in
                guard let mine = error as? TokenError, mine.token == token else { return }
                seen.withLock { $0.append(mine) }
                hits.increment()
            }
        }

        var seenIndices: [Int] { seen.withLock { $0.map(\.index) } }
    }

}

extension ErrorModel.ProcessWideSettings {
    /// Rule 1: a rejection that reaches the end of a branch and is released unhandled is
    /// reported exactly once; everything else is not reported.
    ///
    /// In the serialized suite of process-wide settings: every test here sets the
    /// process-wide `VowRuntime.unhandledErrorHandler` (and restores it). Other suites run
    /// in parallel and drop rejected promises too, so each test counts only `TokenError`s
    /// with its own token.
    @Suite struct UnhandledErrorTests {
        // The ErrorModel helpers, by the names these tests used while the suite was
        // nested in ErrorModel itself.
        typealias Recorder = ErrorModel.Recorder
        typealias TokenError = ErrorModel.TokenError
        typealias Counter = ErrorModel.Counter
        typealias DeinitTracker = ErrorModel.DeinitTracker
        typealias HandledTrackingCostTests = ErrorModel.HandledTrackingCostTests

        /// Installs a fresh recorder while `body` runs, then restores the previous handler.
        private func recording(_ body: (Recorder) throws -> Void) rethrows {
            let saved = VowRuntime.unhandledErrorHandler
            defer { VowRuntime.unhandledErrorHandler = saved }
            let recorder = Recorder()
            VowRuntime.unhandledErrorHandler = recorder.handler
            try body(recorder)
        }

        /// Waits (bounded) for `expected` reports, lets the default dispatcher finish and
        /// free its jobs, then checks that no extra report came.
        private func expectReports(_ recorder: Recorder, _ expected: Int,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(ErrorModel.poll { recorder.hits.count >= expected },
                    "only \(recorder.hits.count) of \(expected) reports arrived", sourceLocation: sourceLocation)
            ErrorModel.drainDefault()
            #expect(recorder.hits.count == expected, sourceLocation: sourceLocation)
        }

        // MARK: Counting

        @Test func caughtRejectionIsNotReported() {
            recording { recorder in
                let ran = Counter()
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    promise.catch { _ in ran.increment() }
                    resolver.reject(recorder.error())
                }
                #expect(ErrorModel.poll { ran.count == 1 })
                expectReports(recorder, 0)
            }
        }

        @Test func droppedRejectedEndIsReportedOnce() {
            recording { recorder in
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    resolver.reject(recorder.error(7))
                    #expect(promise.isRejected)
                }
                expectReports(recorder, 1)
                #expect(recorder.seenIndices == [7])
            }
        }

        @Test func rejectedPromiseMadeWithErrorIsReportedWhenDropped() {
            recording { recorder in
                _ = Promise<Int>(error: recorder.error(1))
                // Dropped on this thread with no handler: the report happened in the release.
                #expect(recorder.hits.count == 1)
                expectReports(recorder, 1)
            }
        }

        @Test func readingTheErrorDoesNotHandleIt() {
            recording { recorder in
                do {
                    let promise = Promise<Int>(error: recorder.error())
                    #expect(ErrorModel.token(of: promise.error!) == recorder.token)
                    if case .failure(let error)? = promise.result {
                        #expect(ErrorModel.token(of: error) == recorder.token)
                    } else {
                        Issue.record("result should be a failure")
                    }
                }
                expectReports(recorder, 1)
            }
        }

        @Test func eachBranchCountsOnItsOwn() {
            recording { recorder in
                let caught = Counter()
                let thenRan = Counter()
                var branchB: Promise<Void>?
                do {
                    let (p, resolver) = Promise<Int>.pending()
                    _ = p.then { value -> Int in thenRan.increment(); return value }   // a: dropped
                    branchB = p.catch { _ in caught.increment() }                     // b: handles
                    resolver.reject(recorder.error(3))
                }
                #expect(ErrorModel.poll { caught.count == 1 })
                expectReports(recorder, 1)
                // b fulfilled and p had handlers: the one report is branch a's.
                #expect(branchB?.isFulfilled == true)
                #expect(thenRan.count == 0)
                #expect(recorder.seenIndices == [3])
            }
        }

        @Test func chainOfTenLinksIsReportedOnceNotTenTimes() {
            recording { recorder in
                let ran = Counter()
                do {
                    var p = Promise<Int>(error: recorder.error())
                    for _ in 0..<10 { p = p.then { value -> Int in ran.increment(); return value + 1 } }
                }
                expectReports(recorder, 1)
                #expect(ran.count == 0)
            }
        }

        @Test func recoverHandles() {
            recording { recorder in
                let ran = Counter()
                do {
                    _ = Promise<Int>(error: recorder.error()).recover { _ -> Int in
                        ran.increment()
                        return 0
                    }
                    _ = Promise<Int>(error: recorder.error()).recover { _ -> Promise<Int> in
                        ran.increment()
                        return .value(0)
                    }
                }
                #expect(ErrorModel.poll { ran.count == 2 })
                expectReports(recorder, 0)
            }
        }

        @Test func waitThatThrowsHandles() {
            recording { recorder in
                do {
                    let settled = Promise<Int>(error: recorder.error(1))
                    #expect(throws: TokenError.self) { try settled.wait() }
                    let (pending, resolver) = Promise<Int>.pending()
                    DispatchQueue.global().async { resolver.reject(recorder.error(2)) }
                    #expect(throws: TokenError.self) { try pending.wait() }
                }
                expectReports(recorder, 0)
            }
        }

        @Test func awaitThatThrowsHandles() async {
            let saved = VowRuntime.unhandledErrorHandler
            defer { VowRuntime.unhandledErrorHandler = saved }
            let recorder = Recorder()
            VowRuntime.unhandledErrorHandler = recorder.handler
            do {
                let settled = Promise<Int>(error: recorder.error(1))
                await #expect(throws: TokenError.self) { _ = try await settled.value }
                let (pending, resolver) = Promise<Int>.pending()
                DispatchQueue.global().async { resolver.reject(recorder.error(2)) }
                await #expect(throws: TokenError.self) { _ = try await pending.value }
            }
            expectReports(recorder, 0)
        }

        @Test func whenReportsItsOwnPromiseNotItsInputs() {
            recording { recorder in
                do {
                    let a = Promise<Int>(error: recorder.error(1))
                    let b = Promise<Int>(error: recorder.error(2))
                    _ = when(fulfilled: [a, b])
                }
                expectReports(recorder, 1)
                #expect(recorder.seenIndices == [1])
            }
        }

        @Test func finallyPassesTheRejectionOn() {
            recording { recorder in
                let ran = Counter()
                do {
                    _ = Promise<Int>(error: recorder.error()).finally { ran.increment() }
                }
                #expect(ErrorModel.poll { ran.count == 1 })
                expectReports(recorder, 1)
            }
        }

        @Test func catchAfterFinallyHandles() {
            recording { recorder in
                let ran = Counter()
                do {
                    Promise<Int>(error: recorder.error()).finally { ran.increment() }.catch { _ in ran.increment() }
                }
                #expect(ErrorModel.poll { ran.count == 2 })
                expectReports(recorder, 0)
            }
        }

        @Test func seedThenWithoutErrorCallbackReportsAThrow() {
            recording { recorder in
                let ran = Counter()
                Promise<Int>.value(1).then({ _ in
                    ran.increment()
                    throw recorder.error(1)
                }, nil)
                #expect(ErrorModel.poll { ran.count == 1 })
                expectReports(recorder, 1)
                #expect(recorder.seenIndices == [1])
            }
        }

        @Test func seedThenWithoutErrorCallbackReportsARejection() {
            recording { recorder in
                Promise<Int>(error: recorder.error(2)).then({ _ in }, nil)
                expectReports(recorder, 1)
                #expect(recorder.seenIndices == [2])
            }
        }

        @Test func seedThenErrorCallbackHandles() {
            recording { recorder in
                let failures = Locked<[Int]>([])
                Promise<Int>.value(1).then({ _ in throw recorder.error(1) }, { reason in
                    failures.withLock { $0.append((reason as? TokenError)?.index ?? -1) }
                })
                Promise<Int>(error: recorder.error(2)).then({ _ in }, { reason in
                    failures.withLock { $0.append((reason as? TokenError)?.index ?? -1) }
                })
                #expect(ErrorModel.poll { failures.withLock { $0.count } == 2 })
                expectReports(recorder, 0)
                #expect(failures.withLock { $0.sorted() } == [1, 2])
            }
        }

        @Test func skippedCatchReportsTheCancellation() {
            recording { recorder in
                let ran = Counter()
                do {
                    _ = Promise<Int>(error: recorder.error(5, cancelled: true)).catch { _ in ran.increment() }
                }
                expectReports(recorder, 1)
                #expect(ran.count == 0)
                let seen = recorder.seen.withLock { $0 }
                #expect(seen.first?.isCancelled == true)
                #expect(seen.first?.index == 5)
            }
        }

        @Test func releaseChecksTheFlagsOncePerCore() {
            // Cores marked handled (by a waiter) are never reported; the others are, each
            // once, during its release on this thread. Also times the check in isolation.
            // (Few reports: see `reportingDoesNotDeepenTheHandlerCall`.)
            recording { recorder in
                let count = ErrorModel.scaled(200_000)
                let clock = ContinuousClock()
                var start = clock.now
                for index in 0..<count {
                    let core = Core(rejected: recorder.error(index))
                    core.markHandled()
                }
                let marked = clock.now - start
                #expect(recorder.hits.count == 0)
                start = clock.now
                for index in 0..<count {
                    withExtendedLifetime(Core(fulfilled: index)) {}
                }
                let fulfilled = clock.now - start
                let reported = ErrorModel.scaled(2_000)
                for index in 0..<reported {
                    withExtendedLifetime(Core(rejected: recorder.error(index))) {}
                }
                #expect(recorder.hits.count == reported)
                #expect(Set(recorder.seenIndices).count == reported)
                let per = { HandledTrackingCostTests.nanosecondsPerLink($0, count) }
                print("ErrorModel cost: make + free one core: fulfilled \(per(fulfilled)) ns; "
                      + "rejected and marked handled \(per(marked)) ns (\(HandledTrackingCostTests.buildKind))")
            }
        }

        /// The stack address of a local in the handler, for each report.
        private static func stackAddress() -> UInt {
            var marker = 0
            return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        }

        /// Drops one rejected promise here; the handler runs inside this call.
        @inline(never)
        private static func dropOne(_ error: TokenError) {
            _ = Promise<Int>(error: error)
        }

        @Test func reportingDoesNotDeepenTheHandlerCall() {
            // Every report must reach the handler through the same few frames. If reading
            // the handler wraps it in a new closure each time (and stores that), the call
            // gets one level deeper per report: slower and slower, and after enough
            // reports a stack overflow.
            let saved = VowRuntime.unhandledErrorHandler
            defer { VowRuntime.unhandledErrorHandler = saved }
            let token = ErrorModel.makeToken()
            let addresses = Locked<[UInt]>([])
            VowRuntime.unhandledErrorHandler = { error in
                guard ErrorModel.token(of: error) == token else { return }
                let address = Self.stackAddress()
                addresses.withLock { $0.append(address) }
            }
            for index in 0..<500 { Self.dropOne(TokenError(token, index)) }
            let seen = addresses.withLock { $0 }
            #expect(seen.count == 500)
            if let first = seen.first, let last = seen.last {
                let drift = first > last ? first - last : last - first
                #expect(drift < 4096, "the handler ran \(drift) bytes deeper on the stack after 500 reports")
            }
        }

        // MARK: The default handler

        /// Runs `body` with file descriptor 2 redirected into a pipe; returns what was written.
        static func capturingStandardError(_ body: () -> Void) -> String {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                Issue.record("pipe() failed")
                return ""
            }
            let readEnd = ends[0]
            let writeEnd = ends[1]
            let collected = Locked<[UInt8]>([])
            let reader = ErrorModel.startThread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    collected.withLock { $0.append(contentsOf: buffer[0..<count]) }
                }
            }
            let saved = dup(2)
            dup2(writeEnd, 2)
            close(writeEnd)
            body()
            dup2(saved, 2)     // the pipe's last write end closes: the reader sees end of file
            close(saved)
            pthread_join(reader, nil)
            close(readEnd)
            return String(decoding: collected.withLock { $0 }, as: UTF8.self)
        }

        @Test func defaultHandlerWritesOneLineAndIgnoresCancellation() {
            let saved = VowRuntime.unhandledErrorHandler
            defer { VowRuntime.unhandledErrorHandler = saved }
            VowRuntime.unhandledErrorHandler = nil
            let token = ErrorModel.makeToken()
            let output = Self.capturingStandardError {
                // Each is released here, on this thread, with no handler: reported at once.
                _ = Promise<Int>(error: TokenError(token, 1, cancelled: true))
                _ = Promise<Int>(error: VowError(domain: token, code: 9, message: "plain"))
                _ = Promise<Int>(error: TokenError(token, 2))
            }
            let lines = output.split(separator: "\n").filter { $0.contains(token) }
            #expect(lines.count == 2)
            #expect(lines.allSatisfy { $0.hasPrefix("vow: unhandled error: ") })
            #expect(lines.contains { $0.contains("\(token)#2") })
            #expect(!lines.contains { $0.contains("\(token)#1") })
            #expect(lines.contains { $0.contains("\(token) 9: plain") })
        }

        // MARK: Setting the handler

        @Test func settingTheHandlerReleasesThePreviousOne() {
            let saved = VowRuntime.unhandledErrorHandler
            defer { VowRuntime.unhandledErrorHandler = saved }
            let token = ErrorModel.makeToken()
            let released = Counter()
            let firstHits = Counter()
            do {
                let tracker = DeinitTracker(released)
                VowRuntime.unhandledErrorHandler = { error in
                    tracker.touch()
                    if ErrorModel.token(of: error) == token { firstHits.increment() }
                }
            }
            #expect(released.count == 0)
            let recorder = Recorder(token: token)
            VowRuntime.unhandledErrorHandler = recorder.handler
            // Another suite's report may still be running the old handler for a moment.
            #expect(ErrorModel.poll { released.count == 1 })
            _ = Promise<Int>(error: recorder.error())
            #expect(recorder.hits.count == 1)
            #expect(firstHits.count == 0)
        }

        @Test func handlerCanBeSetWhileRejectionsAreDropped() {
            let saved = VowRuntime.unhandledErrorHandler
            defer { VowRuntime.unhandledErrorHandler = saved }
            let token = ErrorModel.makeToken()
            let first = Recorder(token: token)
            let second = Recorder(token: token)
            VowRuntime.unhandledErrorHandler = first.handler
            let perDropper = ErrorModel.scaled(20_000)
            let droppersDone = Counter()
            let sets = Counter()
            ErrorModel.runOnThreads(4) { thread in
                if thread < 2 {
                    let handler = thread == 0 ? first.handler : second.handler
                    var rounds = 0
                    while droppersDone.count < 2 && rounds < 2_000_000 {
                        VowRuntime.unhandledErrorHandler = handler
                        sets.increment()
                        rounds += 1
                    }
                } else {
                    for index in 0..<perDropper {
                        _ = Promise<Int>(error: TokenError(token, (thread - 2) * perDropper + index))
                    }
                    droppersDone.increment()
                }
            }
            VowRuntime.unhandledErrorHandler = first.handler
            #expect(first.hits.count + second.hits.count == 2 * perDropper)
            let indices = Set(first.seenIndices + second.seenIndices)
            #expect(indices.count == 2 * perDropper)
            #expect(sets.count > 2)
        }

        @Test func exactCountUnderConcurrency() {
            recording { recorder in
                let perThread = ErrorModel.scaled(2_500)
                let catchRuns = Counter()
                ErrorModel.runOnThreads(4) { thread in
                    for i in 0..<perThread {
                        let error = recorder.error(thread * perThread + i)
                        switch i % 3 {
                        case 0:
                            _ = Promise<Int>(error: error)
                        case 1:
                            _ = Promise<Int>(error: error).then { $0 + 1 }.then { $0 + 1 }.then { $0 + 1 }
                        default:
                            // Handles every second error, passes the others on.
                            Promise<Int>(error: error).catch { error in
                                catchRuns.increment()
                                if i % 2 == 1 { throw error }
                            }
                        }
                    }
                }
                let perThreadExpected = (0..<perThread).filter { $0 % 3 != 2 || $0 % 2 == 1 }.count
                let expected = 4 * perThreadExpected
                expectReports(recorder, expected)
                #expect(Set(recorder.seenIndices).count == expected)
                #expect(catchRuns.count == 4 * (0..<perThread).filter { $0 % 3 == 2 }.count)
            }
        }
    }
}
