import Dispatch
import Foundation
import VowPromiseKit
import XCTest

// PromiseKit's ResolverTests and PromiseTests, ported: the resolver's completion-handler
// forms, fulfill_(), the initializers and pending().
final class ResolverTests: XCTestCase {
    func testResolverInit() throws {
        let p = Promise<Int>(resolver: { seal in seal.fulfill(1) })
        XCTAssertEqual(try p.wait(), 1)
        XCTAssertEqual(try Promise<Int> { seal in seal.fulfill(2) }.wait(), 2)
    }

    func testPending() throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.fulfill(3)
        XCTAssertEqual(try promise.wait(), 3)
    }

    func testFulfillUnderscore() throws {
        let (promise, seal) = Promise<Void>.pending()
        seal.fulfill_()
        try promise.wait()
    }

    func testResolveValueAndError() throws {
        XCTAssertEqual(try Promise<Int> { $0.resolve(1, nil) }.wait(), 1)
        XCTAssertThrowsError(try Promise<Int> { $0.resolve(1, TestError.dummy) }.wait())
        XCTAssertEqual(try Promise<Int> { seal in seal.resolve(nil as Error?, 4) }.wait(), 4)
        XCTAssertThrowsError(try Promise<Int> { seal in seal.resolve(nil as Int?, nil as Error?) }.wait()) { error in
            // PromiseKit: PMKError.invalidCallingConvention; Vow: VowError.Code.type.
            XCTAssertEqual((error as? VowError)?.vowCode, .type)
        }
    }

    func testResolveVoidWithError() throws {
        try Promise<Void> { seal in seal.resolve(nil) }.wait()
        XCTAssertThrowsError(try Promise<Void> { seal in seal.resolve(TestError.dummy) }.wait())
    }

    func testResolvePromiseKitResult() throws {
        XCTAssertEqual(try Promise<Int> { $0.resolve(Result.fulfilled(5)) }.wait(), 5)
        XCTAssertThrowsError(try Promise<Int> { $0.resolve(Result<Int>.rejected(TestError.dummy)) }.wait())
    }

    func testResolveSwiftResultOfATypedError() throws {
        let ok: Swift.Result<Int, TestError> = .success(6)
        XCTAssertEqual(try Promise<Int> { $0.resolve(ok) }.wait(), 6)
    }

    func testCompletionHandlerAdapter() throws {
        func api(_ completion: @escaping @Sendable (Int?, Error?) -> Void) { completion(8, nil) }
        XCTAssertEqual(try Promise { api($0.resolve) }.wait(), 8)
    }

    func testThrowRejects() {
        XCTAssertThrowsError(try Promise<Int> { _ in throw TestError.dummy }.wait())
    }

    func testPipeToResolver() throws {
        let (promise, seal) = Promise<Int>.pending()
        Promise.value(9).pipe { seal.resolve($0) }
        XCTAssertEqual(try promise.wait(), 9)
    }
}

// PromiseKit's ZalgoTests, ported: `on: nil` runs where the promise settles.
final class ZalgoTests: XCTestCase {
    func testOnNilRunsInline() {
        let ran = Counter()
        let p = Promise.value(1)
        p.done(on: nil) { _ in ran.increment() }.silenceWarning()
        XCTAssertEqual(ran.value, 1)
    }

    func testOnNilWaitsForSettling() {
        let (p, seal) = Promise<Int>.pending()
        let seen = Log<Int>()
        _ = p.map(on: nil) { seen.append($0) }
        XCTAssertEqual(seen.all, [])
        seal.fulfill(2)
        XCTAssertEqual(seen.all, [2])
    }

    func testDefaultIsNeverInline() {
        // XCTest runs this on the main thread; Vow's default queue runs callbacks on a
        // Dispatch worker, never inside fulfill on the thread that fulfils.
        XCTAssertTrue(Thread.isMainThread)
        let ex = expectation(description: "")
        let (p, seal) = Promise<Int>.pending()
        p.done { _ in
            XCTAssertFalse(Thread.isMainThread)
            ex.fulfill()
        }.silenceWarning()
        seal.fulfill(1)
        wait(for: [ex], timeout: 10)
    }
}

// PromiseKit's ErrorTests and CancellableErrorTests, ported.
final class ErrorTests: XCTestCase {
    func testCustomStringConvertible() {
        XCTAssertNotNil(PMKError.invalidCallingConvention.debugDescription.range(of: "calling convention"))
        XCTAssertNotNil(PMKError.returnedSelf.debugDescription.range(of: "itself"))
        XCTAssertNotNil(PMKError.badInput.debugDescription.range(of: "Bad input"))
        XCTAssertNotNil(PMKError.cancelled.debugDescription.range(of: "cancelled"))
        XCTAssertNotNil(PMKError.compactMap(1, Int.self).debugDescription.range(of: "compactMap"))
        XCTAssertNotNil(PMKError.emptySequence.debugDescription.range(of: "empty"))
        XCTAssertNotNil(PMKError.noWinner.debugDescription.range(of: "race(fulfilled:)"))
        XCTAssertEqual(PMKError.badInput.description, PMKError.badInput.debugDescription)
    }

    func testIsCancelled() {
        XCTAssertTrue(PMKError.cancelled.isCancelled)
        XCTAssertFalse(PMKError.badInput.isCancelled)
        let errors: [any Error] = [PMKError.cancelled, LocalCancel(), CancellationError(), VowError.cancelledError]
        for error in errors { XCTAssertTrue(error.isCancelled, "\(error)") }
        XCTAssertFalse((TestError.dummy as any Error).isCancelled)
    }

    func testThrowingPMKCancelledIsACancellation() {
        let ex = expectation(description: "")
        Promise.value(1).done { _ in throw PMKError.cancelled }.catch { _ in
            XCTFail()
        }.finally {
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testCancelRejectsWithVowsCancelledError() {
        let (p, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        p.cancel()
        XCTAssertTrue(p.error!.isCancelled)
        XCTAssertEqual((p.error as? VowError)?.vowCode, .cancelled)
    }
}

// `conf`: Q.map is Vow's default dispatcher, nil is inline; reading it back restores it.
final class ConfigurationTests: XCTestCase {
    func testDefaultReadsAsVowDefault() {
        XCTAssertTrue(conf.Q.map === DispatchQueue.vowDefault)
        XCTAssertTrue(conf.Q.return === DispatchQueue.vowDefault)
        XCTAssertEqual(conf.catchPolicy, .allErrorsExceptCancellation)
    }

    func testSettingQSetsVowsDefault() {
        let saved = conf.Q
        let q = DispatchQueue(label: "\(#file):\(#line)")
        conf.Q = (map: q, return: q)
        defer { conf.Q = saved }
        XCTAssertTrue(VowRuntime.defaultDispatcher === q)
        let ex = expectation(description: "")
        Promise.value(1).done { _ in
            dispatchPrecondition(condition: .onQueue(q))
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
        conf.Q = saved
        XCTAssertFalse(VowRuntime.defaultDispatcher === q)
    }

    func testNilMeansInline() {
        let saved = conf.Q
        conf.Q = (map: nil, return: nil)
        defer { conf.Q = saved }
        let ran = Counter()
        Promise.value(1).done { _ in ran.increment() }.silenceWarning()
        XCTAssertEqual(ran.value, 1)
    }

    func testLogHandlerIsKept() {
        let saved = conf.logHandler
        defer { conf.logHandler = saved }
        let log = Log<String>()
        conf.logHandler = { event in log.append("\(event)") }
        conf.logHandler(.waitOnMainThread)
        XCTAssertEqual(log.all, ["waitOnMainThread"])
    }

    func testFlagsWithoutAQueueAreAccepted() {
        let ex = expectation(description: "")
        Guarantee.value(1).done(flags: .barrier) { _ in ex.fulfill() }
        wait(for: [ex], timeout: 10)
    }

    func testPMKNamespacer() {
        let marker: PMKNamespacer = .promise
        XCTAssertEqual("\(marker)", "promise")
    }

    func testFinalizerTypes() {
        let finalizer: PMKFinalizer = Promise<Int>(error: TestError.dummy).catch { _ in }
        let cascading: PMKCascadingFinalizer = Promise.value(1).catch(TestError.dummy) {}
        XCTAssertNoThrow(try finalizer.wait())
        XCTAssertNoThrow(try cascading.wait())
    }
}

// A thenable of your own works with the combinators (PromiseKit's generic Thenable).
final class CustomThenableTests: XCTestCase {
    final class Box: Thenable, @unchecked Sendable {
        // @unchecked: the value is set once, before any reader.
        let outcome: Result<Int>
        init(_ value: Int) { outcome = .fulfilled(value) }
        func pipe(to: @escaping @Sendable (Result<Int>) -> Void) { to(outcome) }
        var result: Result<Int>? { outcome }
    }

    func testThenableOfYourOwn() throws {
        let box = Box(4)
        XCTAssertEqual(box.value, 4)
        XCTAssertTrue(box.isResolved)
        XCTAssertEqual(try box.map { $0 + 1 }.wait(), 5)
        XCTAssertEqual(try Promise(box).wait(), 4)
        XCTAssertEqual(try Promise.value(1).then { _ in box }.wait(), 4)
        XCTAssertEqual(try race([box, Box(5)]).wait(), 4)
    }
}
