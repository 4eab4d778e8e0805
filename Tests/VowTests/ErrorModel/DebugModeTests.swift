import Testing
@testable import Vow
@testable import VowEngine
import CVow

#if canImport(Glibc)
import Glibc
#endif

// Debug mode: creation sites, chain sites, the unhandled-error line and reporter, the
// broken-promise message, the census.
//
// These tests are part of `UnhandledErrorTests` (an extension of that serialized suite):
// they turn the process-wide debug mode on and set the process-wide unhandled-error
// handler, so they must not run at the same time as the tests that read the default line.
// Each restores both settings. Other suites that run meanwhile only see their promises
// gain records, which changes nothing they check.

extension ErrorModel.ProcessWideSettings.UnhandledErrorTests {
    /// "VowTests/DebugModeTests.swift:LINE", as `#fileID` and `#line` give it here.
    private func here(_ line: UInt) -> String { "\(#fileID):\(line)" }

    /// Runs `body` with debug mode set to `on`, then restores the previous setting.
    private func debugMode<R>(_ on: Bool, _ body: () throws -> R) rethrows -> R {
        let saved = VowRuntime.debugMode
        defer { VowRuntime.debugMode = saved }
        VowRuntime.debugMode = on
        return try body()
    }

    /// The census entries made in this file.
    private func pendingHere() -> [PendingPromise] {
        VowRuntime.pendingPromises().filter { $0.site.hasPrefix(#fileID + ":") }
    }

    // MARK: Off

    @Test func debugOffRecordsNothing() {
        debugMode(false) {
            #expect(VowRuntime.debugMode == false)
            #expect(vow_debug_enabled() == false)
            let (promise, resolver) = Promise<Int>.pending()
            let chained = promise.map { $0 + 1 }
            #expect(promise.core.debugRecord == nil)
            #expect(chained.core.debugRecord == nil)
            #expect(pendingHere().isEmpty)
            resolver.fulfill(1)
            #expect(ErrorModel.value(of: chained) == 2)
        }
    }

    @Test func settingIsSharedWithC() {
        debugMode(false) {
            vow_debug_set(true)
            #expect(VowRuntime.debugMode)
            #expect(vow_debug_enabled())
            VowRuntime.debugMode = false
            #expect(!vow_debug_enabled())
        }
    }

    // `VOW_DEBUG` deciding while nothing else did (read once; a setting wins) is checked in
    // Tests/C/test_debug_env.c, one child process per case: here it raced with the promises
    // other suites make at the same time (each reads the setting, and the first read
    // decides) and with their getenv (1 failure in 20 runs of the suite).

    // MARK: Sites

    /// A wrapper of the user's passes its caller's site on through `file:` and `line:`.
    private func wrapped(_ promise: Promise<Int>, file: StaticString = #fileID, line: UInt = #line) -> Promise<Int> {
        promise.map(file: file, line: line) { $0 * 10 }
    }

    @Test func wrapperPassesItsCallersSite() throws {
        try debugMode(true) {
            let head = Promise.value(1)
            let result = wrapped(head); let line: UInt = #line
            let record = try #require(result.core.debugRecord)
            #expect(record.site == here(line))
            #expect(ErrorModel.value(of: result) == 10)
        }
    }

    @Test func chainingRecordsTheCallerAndTheChainStart() throws {
        try debugMode(true) {
            let (head, resolver) = Promise<Int>.pending(); let headLine: UInt = #line
            let mapped = head.map { $0 + 1 }; let mapLine: UInt = #line
            let thenned = mapped.then { Promise.value($0 * 2) }; let thenLine: UInt = #line
            let done = thenned.done { _ in }; let doneLine: UInt = #line
            let recovered = thenned.recover { _ in 0 }; let recoverLine: UInt = #line
            let tapped = thenned.tap { _ in }; let tapLine: UInt = #line
            let finished = tapped.finally {}; let finallyLine: UInt = #line
            let voided = tapped.asVoid(); let voidLine: UInt = #line
            let caught = tapped.catch { _ in }; let catchLine: UInt = #line
            let got = tapped.get { _ in }; let getLine: UInt = #line
            let checked = tapped.validate { _ in true }; let ensureLine: UInt = #line
            let flat = tapped.flatMap { Promise.value($0) }; let flatLine: UInt = #line
            let timed = tapped.timeout(seconds: 60); let timeoutLine: UInt = #line

            let expected: [(Core, UInt)] = [
                (mapped.core, mapLine), (thenned.core, thenLine), (done.core, doneLine),
                (recovered.core, recoverLine), (tapped.core, tapLine), (finished.core, finallyLine),
                (voided.core, voidLine), (caught.core, catchLine), (got.core, getLine),
                (checked.core, ensureLine), (flat.core, flatLine), (timed.core, timeoutLine),
            ]
            let headRecord = try #require(head.core.debugRecord)
            #expect(headRecord.site == here(headLine))
            #expect(headRecord.chainSite == nil)
            #expect(headRecord.chainStart == here(headLine))
            for (core, line) in expected {
                let record = try #require(core.debugRecord)
                #expect(record.site == here(line))
                #expect(record.chainStart == here(headLine), "the chain of \(record.site)")
            }
            resolver.fulfill(1)
            #expect(ErrorModel.value(of: timed) == 4)
            #expect(ErrorModel.value(of: finished) == 4)
        }
    }

    @Test func madePromisesBeginChains() throws {
        try debugMode(true) {
            let value = Promise.value(1); let valueLine: UInt = #line
            let failed = Promise<Int>(error: ErrorModel.TokenError("debug")); let errorLine: UInt = #line
            let made = Promise<Int> { $0.fulfill(2) }; let madeLine: UInt = #line
            let first = firstly { Promise.value(3) }; let firstLine: UInt = #line
            let onQueue = firstly(on: .default) { 4 }; let onQueueLine: UInt = #line
            let all = when(fulfilled: [value, made]); let whenLine: UInt = #line
            let pair = when(fulfilled: value, made); let pairLine: UInt = #line
            let zipped = zip(value, made); let zipLine: UInt = #line
            let settledAll = when(resolved: [value, failed]); let resolvedLine: UInt = #line
            let raced = race(value, made); let raceLine: UInt = #line
            let anyOne = any([value, made]); let anyLine: UInt = #line
            let timer = after(seconds: 0); let afterLine: UInt = #line
            let worked = Promise<Int>(on: .default) { 5 }; let workLine: UInt = #line
            let retried = retry(times: 2) { Promise.value(6) }; let retryLine: UInt = #line
            let untyped = AnyPromise.value(7); let anyValueLine: UInt = #line
            let untypedThen = untyped.then { $0 }; let anyThenLine: UInt = #line
            failed.core.markHandled()

            let starts: [(Core, UInt)] = [
                (value.core, valueLine), (failed.core, errorLine), (made.core, madeLine),
                (onQueue.core, onQueueLine), (all.core, whenLine), (pair.core, pairLine),
                (zipped.core, zipLine), (settledAll.core, resolvedLine), (raced.core, raceLine),
                (anyOne.core, anyLine), (timer.core, afterLine), (worked.core, workLine),
                (retried.core, retryLine), (untyped.core, anyValueLine),
            ]
            for (core, line) in starts {
                let record = try #require(core.debugRecord)
                #expect(record.site == here(line))
                #expect(record.chainSite == nil, "\(record.site) begins its chain")
            }
            // firstly returns the body's promise: made at the body's call, on the same line.
            #expect(first.core.debugRecord?.site == here(firstLine))
            let anyThen = try #require(untypedThen.core.debugRecord)
            #expect(anyThen.site == here(anyThenLine))
            #expect(anyThen.chainStart == here(anyValueLine))
            // A typed view of an untyped promise shows the site of the promise it views.
            let typed = Promise<Int>(untyped)
            #expect(typed.core.debugRecord?.site == here(anyValueLine))
            #expect(ErrorModel.value(of: typed) == 7)
            #expect(ErrorModel.value(of: retried) == 6)
            #expect(ErrorModel.value(of: worked) == 5)
            #expect(ErrorModel.value(of: onQueue) == 4)
            _ = ErrorModel.outcome(of: settledAll)
            _ = ErrorModel.outcome(of: all)
            _ = ErrorModel.outcome(of: anyOne)
            _ = ErrorModel.outcome(of: raced)
            _ = ErrorModel.outcome(of: pair)
            _ = ErrorModel.outcome(of: zipped)
            _ = ErrorModel.outcome(of: timer)
            _ = ErrorModel.outcome(of: first)
            #expect(ErrorModel.value(of: Promise<Int>(untypedThen)) == 7)
        }
    }

    // MARK: Unhandled errors

    @Test func defaultLineNamesTheDroppedAndChainSites() {
        let saved = VowRuntime.unhandledErrorHandler
        defer { VowRuntime.unhandledErrorHandler = saved }
        VowRuntime.unhandledErrorHandler = nil
        let token = ErrorModel.makeToken()
        var headLine: UInt = 0
        var endLine: UInt = 0
        let output = Self.capturingStandardError {
            debugMode(true) {
                let (head, resolver) = Promise<Int>.pending(); headLine = #line
                do {
                    // On the library's queue by name, not `.default`: the queue
                    // `drainDefault` drains below whatever the default is (this suite is
                    // serialized with the tests that replace it, but says so here).
                    let end = head.map(on: VowRuntime.librarySerial) { _ -> Int in
                        throw ErrorModel.TokenError(token)
                    }; endLine = #line - 2
                    _ = end.core
                }
                resolver.fulfill(1)
                // The end of the branch is released here; its link runs on the library's queue.
                ErrorModel.drainDefault()
                ErrorModel.drainDefault()
            }
        }
        let lines = output.split(separator: "\n").filter { $0.contains(token) }
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix("(dropped at \(here(endLine)), chain began at \(here(headLine)))") == true,
                "\(lines)")
    }

    @Test func defaultLineWithDebugOffHasNoSites() {
        let saved = VowRuntime.unhandledErrorHandler
        defer { VowRuntime.unhandledErrorHandler = saved }
        VowRuntime.unhandledErrorHandler = nil
        let token = ErrorModel.makeToken()
        let output = Self.capturingStandardError {
            debugMode(false) {
                _ = Promise<Int>(error: ErrorModel.TokenError(token))
            }
        }
        let lines = output.split(separator: "\n").filter { $0.contains(token) }
        #expect(lines.count == 1)
        #expect(lines.first.map { !$0.contains("dropped at") } == true)
    }

    @Test func reporterReceivesTheSites() {
        let saved = VowRuntime.unhandledErrorReporter
        defer { VowRuntime.unhandledErrorReporter = saved }
        let token = ErrorModel.makeToken()
        let seen = Locked<[UnhandledErrorSites?]>([])
        VowRuntime.unhandledErrorReporter = { error, sites in
            guard ErrorModel.token(of: error) == token else { return }
            seen.withLock { $0.append(sites) }
        }
        var madeLine: UInt = 0
        debugMode(true) {
            _ = Promise<Int>(error: ErrorModel.TokenError(token)); madeLine = #line
        }
        debugMode(false) {
            _ = Promise<Int>(error: ErrorModel.TokenError(token))
        }
        let reports = seen.withLock { $0 }
        #expect(reports.count == 2)
        #expect(reports.first == UnhandledErrorSites(droppedAt: here(madeLine), chainBeganAt: here(madeLine)))
        #expect(reports.last == .some(nil))
        // The plain handler form still works, and replaces the reporter.
        let plain = ErrorModel.Recorder(token: token)
        VowRuntime.unhandledErrorHandler = plain.handler
        debugMode(true) { _ = Promise<Int>(error: plain.error()) }
        #expect(plain.hits.count == 1)
        #expect(seen.withLock { $0.count } == 2)
    }

    // MARK: Broken promises

    @Test func brokenPromiseNamesWhereItWasMade() throws {
        try debugMode(true) {
            var line: UInt = 0
            let promise: Promise<Int> = {
                let (promise, _) = Promise<Int>.pending(); line = #line
                return promise
            }()
            let error = try #require(ErrorModel.error(of: promise) as? VowError)
            #expect(error.vowCode == .broken)
            #expect(error.message.hasSuffix("(promise made at \(here(line)))"), "\(error.message)")
        }
        // Debug off: the message names no site.
        let promise: Promise<Int> = debugMode(false) { Promise<Int>.pending().promise }
        let error = try #require(ErrorModel.error(of: promise) as? VowError)
        #expect(!error.message.contains("made at"))
    }

    // MARK: The census

    @Test func censusShowsAHangingChainAndForgetsItOnceSettled() throws {
        try debugMode(true) {
            let (head, resolver) = Promise<Int>.pending(); let headLine: UInt = #line
            let middle = head.map { $0 + 1 }; let middleLine: UInt = #line
            let end = middle.then { Promise.value($0) }; let endLine: UInt = #line
            usleep(20_000)
            let pending = pendingHere()
            #expect(pending.count == 3)
            let bySite = Dictionary(pending.map { ($0.site, $0) }, uniquingKeysWith: { first, _ in first })
            let headEntry = try #require(bySite[here(headLine)])
            let middleEntry = try #require(bySite[here(middleLine)])
            let endEntry = try #require(bySite[here(endLine)])
            #expect(headEntry.waitingOn == nil)
            #expect(middleEntry.waitingOn == here(headLine))
            #expect(endEntry.waitingOn == here(middleLine))
            #expect(endEntry.chainSite == here(headLine))
            #expect(headEntry.age >= 0.015 && headEntry.age < 60)
            // Oldest first.
            #expect(pending.map(\.site) == [here(headLine), here(middleLine), here(endLine)])
            #expect(endEntry.description.hasPrefix("\(here(endLine)): pending for 0."))
            #expect(endEntry.description.hasSuffix(" s, waiting on \(here(middleLine)) (chain began at \(here(headLine)))"))
            resolver.fulfill(1)
            #expect(ErrorModel.value(of: end) == 2)
            #expect(pendingHere().isEmpty)
        }
    }

    @Test func censusForgetsAPendingPromiseThatIsFreed() {
        debugMode(true) {
            var broken: Promise<Int>?
            do {
                let (promise, resolver) = Promise<Int>.pending()
                #expect(pendingHere().count == 1)
                broken = promise
                withExtendedLifetime(resolver) {}
            }
            // The resolver's release broke the promise (it settled): not listed.
            #expect(pendingHere().isEmpty)
            #expect(broken.flatMap { ErrorModel.error(of: $0) } != nil)
            do {
                // A pending promise without a resolver (as a face makes one before handing
                // it out), freed while pending.
                let lone = Core().made(at: .source(#fileID, #line))
                #expect(pendingHere().count == 1)
                withExtendedLifetime(lone) {}
            }
            #expect(pendingHere().isEmpty)
        }
    }

    @Test func censusIsEmptyWithDebugOff() {
        debugMode(false) {
            let (promise, resolver) = Promise<Int>.pending()
            #expect(pendingHere().isEmpty)
            #expect(vow_debug_dump_pending(nil) == 0)
            resolver.fulfill(1)
            #expect(ErrorModel.value(of: promise) == 1)
        }
    }

    @Test func censusIsSafeWhileThreadsMakeAndSettlePromises() {
        debugMode(true) {
            let running = ManagedAtomicFlag()
            let censusRuns = ErrorModel.Counter()
            let reader = ErrorModel.startThread {
                while !running.isSet {
                    for entry in VowRuntime.pendingPromises() {
                        precondition(!entry.site.isEmpty && entry.age >= 0)
                    }
                    censusRuns.increment()
                }
            }
            ErrorModel.runOnThreads(4) { _ in
                for index in 0..<ErrorModel.scaled(2_000) {
                    let (promise, resolver) = Promise<Int>.pending()
                    let chained = promise.map(on: .inline) { $0 + 1 }.then(on: .inline) { Promise.value($0) }
                    if index % 3 == 0 { chained.cancel() }
                    resolver.fulfill(index)
                }
            }
            running.set()
            pthread_join(reader, nil)
            #expect(censusRuns.count > 0)
            #expect(pendingHere().isEmpty)
        }
    }
}

/// A flag for the census test's reader thread.
private final class ManagedAtomicFlag: Sendable {
    private let flag = Locked<Bool>(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
