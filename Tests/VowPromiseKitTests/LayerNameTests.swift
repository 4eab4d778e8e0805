import Dispatch
import VowPromiseKit
import XCTest

// One test for each VowPromiseKit name the ported PromiseKit tests do not reach.
final class LayerNameTests: XCTestCase {
    func testGuaranteeObservers() {
        let (guarantee, resolve) = Guarantee<Int>.pending()
        XCTAssertTrue(guarantee.isPending)
        XCTAssertFalse(guarantee.isResolved)
        XCTAssertNil(guarantee.value)
        XCTAssertNil(guarantee.result)
        resolve(3)
        XCTAssertTrue(guarantee.isFulfilled)
        XCTAssertFalse(guarantee.isRejected)
        XCTAssertEqual(guarantee.value, 3)
        XCTAssertNil(guarantee.error)
        if case .fulfilled(3)? = guarantee.result {} else { XCTFail() }
        let ex = expectation(description: "")
        guarantee.pipe { result in
            XCTAssertEqual(try? result.swiftResult.get(), 3)
            ex.fulfill()
        }
        wait(for: [ex], timeout: 10)
    }

    func testGuaranteeThenPromise() {
        XCTAssertEqual(try Guarantee.value(1).then { Promise.value($0 + 1) }.wait(), 2)
        XCTAssertThrowsError(try Guarantee.value(1).then { _ -> Promise<Int> in throw TestError.dummy }.wait())
    }

    func testGuaranteeOperatorsOnAQueue() {
        let q = DispatchQueue(label: "\(#file):\(#line)")
        let mapped = Guarantee.value([3, 1, 2]).map(on: q) { values -> [Int] in
            dispatchPrecondition(condition: .onQueue(q))
            return values
        }
        XCTAssertEqual(mapped.sortedValues(on: q).wait(), [1, 2, 3])
        XCTAssertEqual(mapped.sortedValues(on: nil, { $0 > $1 }).wait(), [3, 2, 1])
    }

    func testPromiseSequenceHelpersOnQueues() throws {
        let q = DispatchQueue(label: "\(#file):\(#line)")
        let numbers = Promise.value([3, 1, 2])
        XCTAssertEqual(try numbers.mapValues(on: q) { $0 * 2 }.wait(), [6, 2, 4])
        XCTAssertEqual(try numbers.flatMapValues(on: nil) { [$0, $0] }.wait(), [3, 3, 1, 1, 2, 2])
        XCTAssertEqual(try numbers.compactMapValues(on: q) { $0 > 1 ? $0 : nil }.wait(), [3, 2])
        XCTAssertEqual(try numbers.thenMap(on: q) { Promise.value($0) }.wait(), [3, 1, 2])
        XCTAssertEqual(try numbers.thenMap(on: nil) { Guarantee.value($0 + 1) }.wait(), [4, 2, 3])
        XCTAssertEqual(try numbers.thenFlatMap(on: q) { Promise.value([$0]) }.wait(), [3, 1, 2])
        XCTAssertEqual(try numbers.filterValues(on: q) { $0 > 1 }.wait(), [3, 2])
        XCTAssertEqual(try numbers.firstValue(on: nil) { $0 < 3 }.wait(), 1)
        XCTAssertEqual(try numbers.sortedValues(on: q).wait(), [1, 2, 3])
        XCTAssertEqual(try numbers.sortedValues(on: q) { $0 > $1 }.wait(), [3, 2, 1])
    }

    func testPromiseOperatorsWithOnAndFlags() throws {
        let q = DispatchQueue(label: "\(#file):\(#line)", attributes: .concurrent)
        XCTAssertEqual(try Promise.value(1).then(on: q, flags: .barrier) { Promise.value($0 + 1) }.wait(), 2)
        XCTAssertEqual(try Promise.value(1).then(on: nil) { Guarantee.value($0 + 2) }.wait(), 3)
        XCTAssertEqual(try Promise.value(1).compactMap(on: q) { $0 }.wait(), 1)
        XCTAssertEqual(try Promise.value(1).get(on: nil) { _ in }.wait(), 1)
        XCTAssertEqual(try Promise<Int>(error: TestError.dummy).recover(on: q) { _ in Promise.value(4) }.wait(), 4)
        XCTAssertEqual(Promise<Int>(error: TestError.dummy).recover(on: q) { _ in Guarantee.value(5) }.wait(), 5)
        Promise<Void>(error: TestError.dummy).recover(on: nil) { _ in }.wait()
        XCTAssertEqual(try Promise.value(6).ensureThen(on: q) { Guarantee() }.wait(), 6)
    }

    func testWhenForms() throws {
        let results = when(resolved: Promise.value(1), Promise(error: TestError.dummy)).wait()
        XCTAssertEqual(results.map(\.isFulfilled), [true, false])
        try when(fulfilled: Promise(), Promise()).wait()
        let (a, b, c) = when(guarantees: Guarantee.value(1), Guarantee.value("b"), Guarantee.value(3.0)).wait()
        XCTAssertEqual(a, 1); XCTAssertEqual(b, "b"); XCTAssertEqual(c, 3.0)
        let four = try when(fulfilled: Promise.value(1), Guarantee.value(2), Promise.value(3), Guarantee.value(4)).wait()
        XCTAssertEqual(four.0 + four.1 + four.2 + four.3, 10)
        let five = try when(fulfilled: Guarantee.value(1), Promise.value(2), Promise.value(3), Promise.value(4),
                            Promise.value(5)).wait()
        XCTAssertEqual(five.4, 5)
        let three = try when(fulfilled: Guarantee.value(1), Promise.value("x"), Promise.value(2)).wait()
        XCTAssertEqual(three.1, "x")
    }

    func testThenableExtensionsOnAThenableOfYourOwn() throws {
        let box = CustomThenableTests.Box(2)
        XCTAssertEqual(try box.compactMap { $0 }.wait(), 2)
        XCTAssertEqual(try box.get { _ in }.wait(), 2)
        try box.done { _ in }.wait()
        try box.asVoid().wait()
        XCTAssertEqual(try box.tap { XCTAssertTrue($0.isFulfilled) }.wait(), 2)
        XCTAssertEqual(try box.then { Promise.value($0 * 3) }.wait(), 6)
        XCTAssertFalse(box.isPending)
        XCTAssertTrue(box.isFulfilled)
        XCTAssertFalse(box.isRejected)
        XCTAssertNil(box.error)
    }

    func testCatchMixinOnGenericCode() throws {
        func cleaned<P: CatchMixin>(_ p: P) -> Promise<P.T> where P.T == Int {
            p.ensure { }.recover { _ in Promise.value(0) }
        }
        XCTAssertEqual(try cleaned(Promise<Int>(error: TestError.dummy)).wait(), 0)
        func handled<P: CatchMixin>(_ p: P) -> PMKFinalizer { p.catch { _ in } }
        try handled(Promise<Int>(error: TestError.dummy)).wait()
        func ended<P: CatchMixin>(_ p: P) -> PMKFinalizer { p.cauterize() }
        try ended(Promise.value(1)).wait()
    }

    func testAsyncPromiseWithOptions() {
        let q = DispatchQueue(label: "\(#file):\(#line)", attributes: .concurrent)
        let value = q.async(.promise, qos: .userInitiated, flags: .barrier) { () -> Int in
            dispatchPrecondition(condition: .onQueueAsBarrier(q))
            return 7
        }.wait()
        XCTAssertEqual(value, 7)
    }

    func testResultConversions() {
        let success: Swift.Result<Int, any Error> = .success(1)
        XCTAssertTrue(Result(success).isFulfilled)
        XCTAssertEqual(try? Result.fulfilled(2).swiftResult.get(), 2)
        XCTAssertFalse(Result<Int>.rejected(TestError.dummy).isFulfilled)
    }

    func testVowDefaultStandsForVowsDefaultDispatcher() {
        let ex = expectation(description: "")
        Promise.value(1).done(on: .vowDefault) { _ in
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
        XCTAssertTrue(conf.Q.map === DispatchQueue.vowDefault)
    }
}
