import Dispatch
import VowPromiseKit
import XCTest

// PromiseKit's GuaranteeTests, ported: Guarantee's initializers, operators, wait() and the
// sequence helpers, with the import changed.
final class GuaranteeTests: XCTestCase {
    func testInitWithSealFunction() {
        let ex = expectation(description: "")
        Guarantee { seal in
            seal(1)
        }.done {
            XCTAssertEqual(1, $0)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testPendingGivesAFunction() {
        let ex = expectation(description: "")
        let (guarantee, resolve) = Guarantee<Int>.pending()
        // PromiseKit's shape: the resolve function is passed where a completion handler goes.
        func subscribe(using handler: @escaping @Sendable (Int) -> Void) { handler(7) }
        subscribe(using: resolve)
        guarantee.done {
            XCTAssertEqual($0, 7)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testMap() {
        let ex = expectation(description: "")
        Guarantee.value(1).map {
            $0 * 2
        }.done {
            XCTAssertEqual(2, $0)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testWaitAfterMilliseconds() {
        XCTAssertEqual(after(.milliseconds(100)).map(on: nil) { 1 }.wait(), 1)
    }

    func testThenGuarantee() {
        let ex = expectation(description: "")
        Guarantee.value(2).then { Guarantee.value($0 + 1) }.done {
            XCTAssertEqual($0, 3)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testGet() {
        let ex = expectation(description: "")
        let seen = Log<Int>()
        Guarantee.value(4).get { seen.append($0) }.done {
            XCTAssertEqual($0, 4)
            XCTAssertEqual(seen.all, [4])
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testMapValues() {
        let ex = expectation(description: "")
        Guarantee.value([1, 2, 3])
            .mapValues { $0 * 2 }
            .done { values in
                XCTAssertEqual([2, 4, 6], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testFlatMapValues() {
        let ex = expectation(description: "")
        Guarantee.value([1, 2, 3])
            .flatMapValues { [$0, $0] }
            .done { values in
                XCTAssertEqual([1, 1, 2, 2, 3, 3], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testCompactMapValues() {
        let ex = expectation(description: "")
        Guarantee.value(["1", "2", "a", "3"])
            .compactMapValues { Int($0) }
            .done { values in
                XCTAssertEqual([1, 2, 3], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testThenMap() {
        let ex = expectation(description: "")
        Guarantee.value([1, 2, 3])
            .thenMap { Guarantee.value($0 * 2) }
            .done { values in
                XCTAssertEqual([2, 4, 6], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testThenFlatMap() {
        let ex = expectation(description: "")
        Guarantee.value([1, 2, 3])
            .thenFlatMap { Guarantee.value([$0, $0]) }
            .done { values in
                XCTAssertEqual([1, 1, 2, 2, 3, 3], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testFilterValues() {
        let ex = expectation(description: "")
        Guarantee.value([1, 2, 3])
            .filterValues { $0 > 1 }
            .done { values in
                XCTAssertEqual([2, 3], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testSorted() {
        let ex = expectation(description: "")
        Guarantee.value([5, 2, 3, 4, 1])
            .sortedValues()
            .done { values in
                XCTAssertEqual([1, 2, 3, 4, 5], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testSortedBy() {
        let ex = expectation(description: "")
        Guarantee.value([5, 2, 3, 4, 1])
            .sortedValues { $0 > $1 }
            .done { values in
                XCTAssertEqual([5, 4, 3, 2, 1], values)
                ex.fulfill()
            }
        wait(for: [ex], timeout: 10)
    }

    func testNoAmbiguityForValue() {
        let ex = expectation(description: "")
        let a = Guarantee<Void>.value
        let b = Guarantee<Void>.value(Void())
        let c = Guarantee<Void>.value(())
        when(fulfilled: a, b, c).done { _ in
            ex.fulfill()
        }.cauterize()
        wait(for: [ex], timeout: 10)
    }

    func testVoidInitAndAsVoid() {
        XCTAssertTrue(Guarantee().isResolved)
        XCTAssertTrue(Guarantee.value(3).asVoid().wait() == ())
    }

    func testAsyncPromiseReturnsGuarantee() {
        let ex = expectation(description: "")
        DispatchQueue.global().async(.promise) { () -> Int in
            1
        }.done { one in
            XCTAssertEqual(one, 1)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testAsyncPromiseWithAThrowingBodyReturnsPromise() {
        let ex = expectation(description: "")
        DispatchQueue.global().async(.promise) { () throws -> Int in
            throw TestError.dummy
        }.catch { error in
            XCTAssertEqual(error as? TestError, .dummy)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testAsyncPromiseHonoursItsGroup() {
        let group = DispatchGroup()
        let guarantee = DispatchQueue.global().async(.promise, group: group) { () -> Int in 5 }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(guarantee.wait(), 5)
    }

    func testRaceOfGuarantees() {
        let (slow, resolveSlow) = Guarantee<Int>.pending()
        XCTAssertEqual(race(slow, Guarantee.value(2)).wait(), 2)
        resolveSlow(1)   // a resolve function released uncalled would reject `slow` as broken
    }

    func testAsyncAwait() async {
        let value = await Guarantee.value(9).async()
        XCTAssertEqual(value, 9)
    }

    func testPromiseFromGuaranteeIsTheSamePromise() throws {
        let guarantee = Guarantee.value(3)
        XCTAssertEqual(try Promise(guarantee).wait(), 3)
        XCTAssertEqual(try guarantee.asPromise().wait(), 3)
    }
}
