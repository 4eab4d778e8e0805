import Dispatch
import VowPromiseKit
import XCTest

struct Person: Equatable, Sendable {
    let name: String
    let age: Int?
    let isStudent: Bool

    init(name: String = "", age: Int? = nil, isStudent: Bool = false) {
        self.name = name
        self.age = age
        self.isStudent = isStudent
    }
}

// PromiseKit's ThenableTests, ported: the operators of a promise, by key path too.
final class ThenableTests: XCTestCase {
    func testGet() {
        let ex1 = expectation(description: "")
        let ex2 = expectation(description: "")
        Promise.value(1).get {
            XCTAssertEqual($0, 1)
            ex1.fulfill()
        }.done {
            XCTAssertEqual($0, 1)
            ex2.fulfill()
        }.silenceWarning()
        wait(for: [ex1, ex2], timeout: 10)
    }

    func testMap() {
        let ex = expectation(description: "")
        Promise.value(1).map {
            $0 * 2
        }.done {
            XCTAssertEqual($0, 2)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testMapByKeyPath() {
        let ex = expectation(description: "")
        Promise.value(Person(name: "Max")).map(\.name).done {
            XCTAssertEqual($0, "Max")
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testCompactMap() {
        let ex = expectation(description: "")
        Promise.value(1.0).compactMap {
            Int($0)
        }.done {
            XCTAssertEqual($0, 1)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testCompactMapThrows() {
        let ex = expectation(description: "")
        Promise.value("a").compactMap { _ -> Int in
            throw TestError.dummy
        }.catch {
            if case TestError.dummy = $0 {} else { XCTFail() }
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testRejectedPromiseCompactMap() {
        let ex = expectation(description: "")
        Promise<String>(error: TestError.dummy).compactMap {
            Int($0)
        }.catch {
            if case TestError.dummy = $0 {} else { XCTFail() }
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testCompactMapNilRejectsWithVowsError() {
        // PromiseKit: PMKError.compactMap; Vow: a VowError of domain "vow.compactMap".
        let ex = expectation(description: "")
        Promise.value("a").compactMap {
            Int($0)
        }.catch { error in
            XCTAssertEqual((error as? VowError)?.domain, "vow.compactMap")
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testCompactMapByKeyPath() {
        let ex = expectation(description: "")
        Promise.value(Person(name: "Roman", age: 26)).compactMap(\.age).done {
            XCTAssertEqual($0, 26)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testMapValues() {
        let ex = expectation(description: "")
        Promise.value([14, 20, 45]).mapValues {
            $0 * 2
        }.done {
            XCTAssertEqual([28, 40, 90], $0)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testMapValuesByKeyPath() {
        let ex = expectation(description: "")
        Promise.value([Person(name: "Max"), Person(name: "Roman"), Person(name: "John")]).mapValues(\.name).done {
            XCTAssertEqual(["Max", "Roman", "John"], $0)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testCompactMapValues() {
        let ex = expectation(description: "")
        Promise.value(["1", "2", "a", "4"]).compactMapValues {
            Int($0)
        }.done {
            XCTAssertEqual([1, 2, 4], $0)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testThenMap() {
        let ex = expectation(description: "")
        Promise.value([1, 2, 3, 4]).thenMap {
            Promise.value($0)
        }.done {
            XCTAssertEqual([1, 2, 3, 4], $0)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testThenFlatMap() {
        let ex = expectation(description: "")
        Promise.value([1, 2, 3, 4]).thenFlatMap {
            Promise.value([$0, $0])
        }.done {
            XCTAssertEqual([1, 1, 2, 2, 3, 3, 4, 4], $0)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testFilterValues() {
        let ex = expectation(description: "")
        Promise.value([Person(name: "Max"), Person(name: "John", age: 23, isStudent: true)]).filterValues {
            $0.isStudent
        }.done {
            XCTAssertEqual([Person(name: "John", age: 23, isStudent: true)], $0)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testSortedValuesBy() {
        let ex = expectation(description: "")
        Promise.value([5, 2, 3, 4, 1]).sortedValues { $0 > $1 }.done {
            XCTAssertEqual([5, 4, 3, 2, 1], $0)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testLastValueForEmpty() {
        let values = [String]()
        XCTAssertThrowsError(try Promise.value(values).lastValue.wait())
    }

    func testFirstValueForEmpty() {
        let values = [String]()
        XCTAssertThrowsError(try Promise.value(values).firstValue.wait()) { error in
            // PromiseKit: PMKError.emptySequence; Vow: VowError.Code.empty.
            XCTAssertEqual((error as? VowError)?.vowCode, .empty)
        }
    }

    func testThenOffRejected() {
        let ex = expectation(description: "")
        Promise<Int>(error: PMKError.badInput).then { x -> Promise<Int> in
            XCTFail()
            return .value(x)
        }.catch { _ in
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testBarrier() {
        let ex = expectation(description: "")
        let q = DispatchQueue(label: "\(#file):\(#line)", attributes: .concurrent)
        Promise.value(1).done(on: q, flags: .barrier) {
            XCTAssertEqual($0, 1)
            dispatchPrecondition(condition: .onQueueAsBarrier(q))
            ex.fulfill()
        }.catch { _ in
            XCTFail()
        }
        wait(for: [ex], timeout: 10)
    }

    func testDispatchFlagsSyntax() {
        let ex = expectation(description: "")
        let q = DispatchQueue(label: "\(#file):\(#line)", attributes: .concurrent)
        Promise.value(1).done(on: q, flags: [.barrier, .inheritQoS]) {
            XCTAssertEqual($0, 1)
            dispatchPrecondition(condition: .onQueueAsBarrier(q))
            ex.fulfill()
        }.catch { _ in
            XCTFail()
        }
        wait(for: [ex], timeout: 10)
    }

    func testOnQueueRunsThere() {
        let ex = expectation(description: "")
        let q = DispatchQueue(label: "\(#file):\(#line)")
        Promise.value(1).map(on: q) { value -> Int in
            dispatchPrecondition(condition: .onQueue(q))
            return value + 1
        }.done(on: .global()) {
            XCTAssertEqual($0, 2)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testValueResultAndIsResolved() {
        let p = Promise.value(3)
        XCTAssertEqual(p.value!, 3)
        XCTAssertTrue(p.isResolved)
        if case .fulfilled(let v)? = p.result { XCTAssertEqual(v, 3) } else { XCTFail() }
        let (pending, resolver) = Promise<Int>.pending()
        XCTAssertNil(pending.value)
        XCTAssertNil(pending.result)
        XCTAssertFalse(pending.isResolved)
        resolver.reject(TestError.dummy)
        XCTAssertNil(pending.value)
        if case .rejected(let e)? = pending.result { XCTAssertEqual(e as? TestError, .dummy) } else { XCTFail() }
        _ = pending.catch { _ in }
    }

    func testTapSeesFulfilledAndRejected() {
        let ex = expectation(description: "")
        let log = Log<String>()
        Promise.value(1).tap { result in
            switch result {
            case .fulfilled(let value): log.append("fulfilled \(value)")
            case .rejected: log.append("rejected")
            }
        }.then { _ in
            Promise<Int>(error: TestError.dummy)
        }.tap(on: nil) { result in
            if case .rejected = result { log.append("rejected") }
        }.catch { _ in
            XCTAssertEqual(log.all, ["fulfilled 1", "rejected"])
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testPipe() {
        let ex = expectation(description: "")
        Promise.value(5).pipe { result in
            XCTAssertTrue(result.isFulfilled)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testAsVoid() throws {
        try Promise.value(5).asVoid().wait()
    }

    func testAsync() async throws {
        let value = try await Promise.value(4).async()
        XCTAssertEqual(value, 4)
    }
}
