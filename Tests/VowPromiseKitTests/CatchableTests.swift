import Dispatch
import VowPromiseKit
import XCTest

// PromiseKit's CatchableTests, ported: catch (and its policy), recover (its forms and the
// Guarantee it returns), ensure, ensureThen, cauterize, catch(only:) and recover(only:).
final class CatchableTests: XCTestCase {
    func testCatch() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.dummy).catch { error in
            XCTAssertEqual(error as? TestError, .dummy)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testCatchSkipsCancellationByDefaultAndFinallyRuns() {
        let ex = expectation(description: "")
        Promise<Int>(error: LocalCancel()).catch { _ in
            XCTFail()
        }.finally {
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testCatchAllErrorsSeesCancellation() {
        let ex = expectation(description: "")
        Promise<Int>(error: PMKError.cancelled).catch(on: nil, policy: .allErrors) { error in
            XCTAssertTrue(error.isCancelled)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testConfCatchPolicyIsHonoured() {
        let saved = conf.catchPolicy
        conf.catchPolicy = .allErrors
        defer { conf.catchPolicy = saved }
        let ex = expectation(description: "")
        Promise<Int>(error: LocalCancel()).catch { _ in
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testRecoverWithPromise() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.dummy).recover { _ in
            Promise.value(2)
        }.done {
            XCTAssertEqual($0, 2)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testRecoverRethrows() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.dummy).recover { error -> Promise<Int> in
            throw TestError.tagged(2)
        }.catch { error in
            XCTAssertEqual(error as? TestError, .tagged(2))
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testRecoverWithGuaranteeGivesAGuarantee() {
        let recovered: Guarantee<Int> = Promise<Int>(error: TestError.dummy).recover { _ in .value(3) }
        XCTAssertEqual(recovered.wait(), 3)
        // Without the annotation too (PromiseKit picks the Guarantee form; wait() does not throw).
        XCTAssertEqual(Promise<Int>(error: TestError.dummy).recover { _ in .value(4) }.wait(), 4)
    }

    func testVoidRecoverGivesAGuarantee() {
        let ex = expectation(description: "")
        Promise<Void>(error: TestError.dummy).recover { _ in
            // handled
        }.done {
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testRecoverReceivesCancellation() {
        // Vow's rule (PromiseKit's recover skipped cancellations by default).
        XCTAssertEqual(try Promise<Int>(error: PMKError.cancelled).recover { _ in Promise.value(1) }.wait(), 1)
        XCTAssertThrowsError(try Promise<Int>(error: PMKError.cancelled)
            .recover(on: nil, policy: .allErrorsExceptCancellation) { _ in Promise.value(1) }.wait())
    }

    func testEnsure() {
        let ex = expectation(description: "")
        let log = Log<String>()
        Promise.value(1).ensure {
            log.append("ensure")
        }.done { _ in
            XCTAssertEqual(log.all, ["ensure"])
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testEnsureOnRejection() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.dummy).ensure(on: nil) {
            ex.fulfill()
        }.catch { _ in }
        wait(for: [ex], timeout: 10)
    }

    func testEnsureThen() {
        let ex = expectation(description: "")
        let log = Log<String>()
        Promise.value(1).ensureThen {
            after(.milliseconds(10)).done { log.append("cleanup") }
        }.done {
            XCTAssertEqual($0, 1)
            XCTAssertEqual(log.all, ["cleanup"])
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testCauterize() {
        let ex = expectation(description: "")
        let saved = VowRuntime.unhandledErrorHandler
        VowRuntime.unhandledErrorHandler = { error in
            if (error as? TestError) == .tagged(99) { ex.fulfill() }
        }
        defer { VowRuntime.unhandledErrorHandler = saved }
        Promise<Int>(error: TestError.tagged(99)).cauterize()
        wait(for: [ex], timeout: 10)
    }

    func testCatchOnlyOneError() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.tagged(1)).catch(TestError.tagged(1)) {
            ex.fulfill()
        }.catch { _ in XCTFail() }
        wait(for: [ex], timeout: 10)
    }

    func testCatchOnlyCascadesOtherErrors() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.tagged(2)).catch(TestError.tagged(1)) {
            XCTFail()
        }.catch { error in
            XCTAssertEqual(error as? TestError, .tagged(2))
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testCatchOnlyAType() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.tagged(3)).catch(TestError.self) { error in
            XCTAssertEqual(error, .tagged(3))
            ex.fulfill()
        }.catch { _ in XCTFail() }
        wait(for: [ex], timeout: 10)
    }

    func testRecoverOnlyOneError() throws {
        XCTAssertEqual(try Promise<Int>(error: TestError.tagged(1)).recover(TestError.tagged(1)) {
            Promise.value(5)
        }.wait(), 5)
        XCTAssertThrowsError(try Promise<Int>(error: TestError.tagged(2)).recover(TestError.tagged(1)) {
            Promise.value(5)
        }.wait())
    }

    func testRecoverOnlyAType() throws {
        XCTAssertEqual(try Promise<Int>(error: TestError.tagged(7)).recover(TestError.self) { error -> Promise<Int> in
            guard case .tagged(let n) = error else { throw error }
            return .value(n)
        }.wait(), 7)
    }

    func testFinallyAfterCatch() {
        let ex = expectation(description: "")
        Promise<Int>(error: TestError.dummy).catch { _ in }.finally(on: nil) {
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }
}
