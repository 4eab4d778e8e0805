import Dispatch
import VowPromiseKit
import XCTest

// PromiseKit's WhenTests, RaceTests, AfterTests and HangTests, ported.
final class WhenTests: XCTestCase {
    func testEmpty() {
        let ex = expectation(description: "")
        let promises: [Promise<Void>] = []
        when(fulfilled: promises).done { _ in
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testInt() {
        let ex = expectation(description: "")
        let p1 = Promise.value(1)
        let p2 = Promise.value(2)
        let p3 = Promise.value(3)
        let p4 = Promise.value(4)
        when(fulfilled: [p1, p2, p3, p4]).done { x in
            XCTAssertEqual(x, [1, 2, 3, 4])
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testDoubleTuple() {
        let ex = expectation(description: "")
        when(fulfilled: Promise.value(1), Promise.value("abc")).done { x, y in
            XCTAssertEqual(x, 1)
            XCTAssertEqual(y, "abc")
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testTripleTuple() {
        let ex = expectation(description: "")
        when(fulfilled: Promise.value(1), Promise.value("abc"), Promise.value(1.0)).done { u, v, w in
            XCTAssertEqual(1, u)
            XCTAssertEqual("abc", v)
            XCTAssertEqual(1.0, w)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testMixedPromiseAndGuarantee() {
        let ex = expectation(description: "")
        when(fulfilled: Promise.value(1), Guarantee.value("g")).done { x, y in
            XCTAssertEqual(x, 1)
            XCTAssertEqual(y, "g")
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testVoid() {
        let ex = expectation(description: "")
        let p1 = Promise.value(1).done { _ in }
        let p2 = Promise.value(2).done { _ in }
        let p3 = Promise.value(3).done { _ in }
        when(fulfilled: p1, p2, p3).done {
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testVoidArray() {
        let ex = expectation(description: "")
        let voids = [Promise<Void>(), Promise.value(1).asVoid()]
        when(fulfilled: voids).done {
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testRejected() {
        let ex = expectation(description: "")
        let p1 = after(.milliseconds(100)).map { true }
        let p2: Promise<Bool> = after(.milliseconds(200)).map { throw TestError.dummy }
        let p3 = Promise.value(false)
        when(fulfilled: p1.asPromise(), p2, p3).catch { _ in
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testResolved() {
        let ex = expectation(description: "")
        let promises = [Promise.value(1), Promise(error: TestError.dummy), Promise.value(3)]
        when(resolved: promises).done { results in
            XCTAssertEqual(results.count, 3)
            if case .fulfilled(1) = results[0] {} else { XCTFail() }
            if case .rejected(TestError.dummy) = results[1] {} else { XCTFail() }
            if case .fulfilled(3) = results[2] {} else { XCTFail() }
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testResolvedConcurrently() {
        let promises = [Promise.value(1), Promise(error: TestError.dummy)]
        let results = when(resolved: promises.makeIterator(), concurrently: 1).wait()
        XCTAssertEqual(results.count, 2)
        XCTAssertTrue(results[0].isFulfilled)
        XCTAssertFalse(results[1].isFulfilled)
    }

    func testFulfilledConcurrently() throws {
        XCTAssertEqual(try when(fulfilled: (1...5).map { Promise.value($0) }.makeIterator(), concurrently: 2).wait(),
                       [1, 2, 3, 4, 5])
    }

    func testConcurrentlyZeroRejects() {
        XCTAssertThrowsError(try when(fulfilled: [Promise.value(1)].makeIterator(), concurrently: 0).wait()) { error in
            // PromiseKit: PMKError.badInput; Vow: VowError.Code.type.
            XCTAssertEqual((error as? VowError)?.vowCode, .type)
        }
    }

    func testGuarantees() {
        let ex = expectation(description: "")
        when(guarantees: [Guarantee.value(()), after(.milliseconds(5))]).done {
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
        XCTAssertTrue(when(Guarantee(), Guarantee()).wait() == ())
        let (a, b) = when(guarantees: Guarantee.value(1), Guarantee.value("x")).wait()
        XCTAssertEqual(a, 1)
        XCTAssertEqual(b, "x")
        XCTAssertEqual(try when(fulfilled: [Guarantee.value(1), Guarantee.value(2)]).wait(), [1, 2])
        // PromiseKit's generic form gives a Promise: recover (or catch) may follow.
        let recovered: Guarantee<[Int]> = when(fulfilled: [Guarantee.value(3)]).recover { _ in .value([]) }
        XCTAssertEqual(recovered.wait(), [3])
    }
}

final class RaceTests: XCTestCase {
    func testFirstToSettleWins() {
        let ex = expectation(description: "")
        let fast = after(.milliseconds(10)).map { 1 }.asPromise()
        let slow = after(.seconds(5)).map { 2 }.asPromise()
        race(fast, slow).done {
            XCTAssertEqual($0, 1)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testRaceFulfilled() {
        let ex = expectation(description: "")
        let failing = Promise<Int>(error: TestError.dummy)
        let winning = after(.milliseconds(10)).map { 2 }.asPromise()
        race(fulfilled: [failing, winning]).done {
            XCTAssertEqual($0, 2)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testRaceFulfilledAllRejectedGivesTheLastError() {
        // PromiseKit: PMKError.noWinner; Vow: the error of the input that rejected last.
        let first = Promise<Int>(error: TestError.tagged(1))
        let last = after(.milliseconds(20)).map { () throws -> Int in throw TestError.tagged(2) }
        XCTAssertThrowsError(try race(fulfilled: [first, last]).wait()) { error in
            XCTAssertEqual(error as? TestError, .tagged(2))
        }
    }

    func testRaceFulfilledOverNothing() {
        XCTAssertThrowsError(try race(fulfilled: [Promise<Int>]()).wait()) { error in
            XCTAssertEqual((error as? VowError)?.vowCode, .empty)
        }
    }

    func testRaceFulfilledGuarantees() throws {
        XCTAssertEqual(try race(fulfilled: [Guarantee.value(3)]).wait(), 3)
    }
}

final class AfterTests: XCTestCase {
    func testZero() {
        let ex = expectation(description: "")
        after(.seconds(0)).done { ex.fulfill() }
        wait(for: [ex], timeout: 10)
    }

    func testMilliseconds() {
        let ex = expectation(description: "")
        after(.milliseconds(20)).done { ex.fulfill() }
        wait(for: [ex], timeout: 10)
    }

    func testMicrosecondsAndNanoseconds() {
        XCTAssertTrue(after(.microseconds(10)).wait() == ())
        XCTAssertTrue(after(.nanoseconds(10)).wait() == ())
    }

    func testSecondsReturnsAGuarantee() {
        let guarantee: Guarantee<Void> = after(seconds: 0.01)
        XCTAssertTrue(guarantee.wait() == ())
        after(seconds: 0).wait()   // not throwing: a Guarantee's wait
    }

    func testNeverNeverFires() {
        let never = after(.never)
        XCTAssertTrue(after(.milliseconds(20)).map { never.isPending }.wait())
    }
}

final class HangTests: XCTestCase {
    func testHang() throws {
        let p = after(.milliseconds(10)).map { 1 }.asPromise()
        XCTAssertEqual(try hang(p), 1)
    }

    func testHangThrows() {
        XCTAssertThrowsError(try hang(Promise<Int>(error: TestError.dummy)))
    }
}

final class FirstlyTests: XCTestCase {
    func testFirstlyExecute() throws {
        XCTAssertEqual(try firstly(execute: { Promise.value(1) }).wait(), 1)
        XCTAssertEqual(firstly { Guarantee.value(2) }.wait(), 2)
        XCTAssertEqual(try firstly { Promise.value(3) }.wait(), 3)
    }

    func testFirstlyThrows() {
        XCTAssertThrowsError(try firstly(execute: { () throws -> Promise<Int> in throw TestError.dummy }).wait())
    }
}
