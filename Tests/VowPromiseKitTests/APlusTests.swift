import Dispatch
import VowPromiseKit
import XCTest

// PromiseKit's Promises/A+ tests (Tests/A+/2.*.swift), ported with the import changed:
// one test class per clause, PromiseKit's three ways of settling each.

final class APlus_2_1_2: APlusTestCase {
    func test() {
        specify("2.1.2.1 when fulfilled, a promise must not transition to any other state") { d, ex in
            d.promise.test(onFulfilled: { ex.fulfill() }, onRejected: { XCTFail() })
            d.fulfill()
            d.reject(APlusError.dummy)
        }
        specify("trying to fulfill then immediately reject, delayed") { d, ex in
            d.promise.test(onFulfilled: { ex.fulfill() }, onRejected: { XCTFail() })
            after(ticks: 1) {
                d.fulfill()
                d.reject(APlusError.dummy)
            }
        }
    }
}

final class APlus_2_1_3: APlusTestCase {
    func test() {
        specify("2.1.3.1 when rejected, a promise must not transition to any other state") { d, ex in
            d.promise.test(onFulfilled: { XCTFail() }, onRejected: { ex.fulfill() })
            d.reject(APlusError.dummy)
            d.fulfill()
        }
        specify("trying to reject then immediately fulfill, delayed") { d, ex in
            d.promise.test(onFulfilled: { XCTFail() }, onRejected: { ex.fulfill() })
            after(ticks: 1) {
                d.reject(APlusError.dummy)
                d.fulfill()
            }
        }
    }
}

final class APlus_2_2_2: APlusTestCase {
    func testFulfilledWithTheValue() {
        testFulfilled { promise, ex, value in
            promise.done {
                XCTAssertEqual($0, value)
                ex.fulfill()
            }.silenceWarning()
        }
    }

    func testNotCalledBeforeFulfilled() {
        specify("2.2.2.2 it must not be called before the promise is fulfilled") { d, ex in
            let fulfilled = Counter()
            d.promise.done { XCTAssertEqual(fulfilled.value, 1); ex.fulfill() }.silenceWarning()
            after(ticks: 5) {
                fulfilled.increment()
                d.fulfill()
            }
        }
    }

    func testCalledOnce() {
        specify("2.2.2.3 it must not be called more than once") { d, ex in
            let calls = Counter()
            d.promise.done { calls.increment() }.silenceWarning()
            d.fulfill()
            d.fulfill()
            after(ticks: 5) {
                XCTAssertEqual(calls.value, 1)
                ex.fulfill()
            }
        }
    }
}

final class APlus_2_2_3: APlusTestCase {
    func testRejectedWithTheReason() {
        testRejected { promise, ex, sentinel in
            promise.catch { error in
                XCTAssertEqual(error as? APlusError, .sentinel(sentinel))
                ex.fulfill()
            }
        }
    }

    func testCalledOnce() {
        specify("2.2.3.3 it must not be called more than once") { d, ex in
            let calls = Counter()
            d.promise.catch { _ in calls.increment() }
            d.reject(APlusError.dummy)
            d.reject(APlusError.dummy)
            after(ticks: 5) {
                XCTAssertEqual(calls.value, 1)
                ex.fulfill()
            }
        }
    }
}

final class APlus_2_2_4: APlusTestCase {
    func testNotCalledUntilTheStackHasOnlyPlatformCode() {
        testFulfilled { promise, ex, _ in
            let returned = Counter()
            promise.done { _ in
                XCTAssertEqual(returned.value, 1)
                ex.fulfill()
            }.silenceWarning()
            returned.increment()
        }
        testRejected { promise, ex, _ in
            let returned = Counter()
            promise.catch { _ in
                XCTAssertEqual(returned.value, 1)
                ex.fulfill()
            }
            returned.increment()
        }
    }
}

final class APlus_2_2_6: APlusTestCase {
    func testMultipleFulfilledHandlersRunInOrder() {
        testFulfilled(withExpectationCount: 3) { promise, exes, value in
            let order = Log<Int>()
            promise.done { XCTAssertEqual($0, value); order.append(1); exes[0].fulfill() }.silenceWarning()
            promise.done { XCTAssertEqual($0, value); order.append(2); exes[1].fulfill() }.silenceWarning()
            promise.done { _ in
                order.append(3)
                XCTAssertEqual(order.all, [1, 2, 3])
                exes[2].fulfill()
            }.silenceWarning()
        }
    }

    func testMultipleRejectedHandlersRunInOrder() {
        testRejected(withExpectationCount: 3) { promise, exes, sentinel in
            let order = Log<Int>()
            promise.catch { XCTAssertEqual($0 as? APlusError, .sentinel(sentinel)); order.append(1); exes[0].fulfill() }
            promise.catch { _ in order.append(2); exes[1].fulfill() }
            promise.catch { _ in
                order.append(3)
                XCTAssertEqual(order.all, [1, 2, 3])
                exes[2].fulfill()
            }
        }
    }

    func testAThrowingHandlerDoesNotStopTheOthers() {
        testFulfilled(withExpectationCount: 2) { promise, exes, _ in
            promise.done { _ in throw APlusError.dummy }.catch { _ in exes[0].fulfill() }
            promise.done { _ in exes[1].fulfill() }.silenceWarning()
        }
    }
}

final class APlus_2_2_7: APlusTestCase {
    func testThenReturnsAPromise() {
        // No wait() here: callbacks run on the main queue in this suite (conf.Q), and a wait
        // on the main thread would keep them from running (PromiseKit warns the same).
        let ex = expectation(description: "")
        let promise = Promise().then { Promise.value(1) }
        XCTAssertTrue(type(of: promise) == Promise<Int>.self)
        promise.done {
            XCTAssertEqual($0, 1)
            ex.fulfill()
        }.silenceWarning()
        wait(for: [ex], timeout: 10)
    }

    func testAThrowRejectsTheReturnedPromise() {
        testFulfilled { promise, ex, sentinel in
            promise.map { _ -> Int in throw APlusError.sentinel(sentinel) }.catch { error in
                XCTAssertEqual(error as? APlusError, .sentinel(sentinel))
                ex.fulfill()
            }
        }
        testRejected { promise, ex, _ in
            promise.recover { _ -> Promise<UInt32> in throw APlusError.dummy }.catch { error in
                XCTAssertEqual(error as? APlusError, .dummy)
                ex.fulfill()
            }
        }
    }

    func testAValueFulfilsTheReturnedPromise() {
        testRejected { promise, ex, sentinel in
            promise.recover { _ in Promise.value(sentinel + 1 == 0 ? 0 : sentinel) }.done {
                XCTAssertEqual($0, sentinel)
                ex.fulfill()
            }.silenceWarning()
        }
    }

    func testRejectionPassesThrough() {
        testRejected { promise, ex, sentinel in
            promise.map { $0 }.catch { error in
                XCTAssertEqual(error as? APlusError, .sentinel(sentinel))
                ex.fulfill()
            }
        }
    }
}

final class APlus_2_3_1: APlusTestCase {
    func testReturningItselfRejects() {
        // PromiseKit: PMKError.returnedSelf; Vow: VowError.Code.cycle (any cycle).
        let ex = expectation(description: "")
        let (start, seal) = Promise<Void>.pending()
        let box = PromiseBox()
        let promise = start.then { _ -> Promise<Void> in box.promise! }
        box.promise = promise
        promise.catch { error in
            XCTAssertEqual((error as? VowError)?.vowCode, .cycle)
            ex.fulfill()
        }
        seal.fulfill_()
        wait(for: [ex], timeout: 10)
    }

    final class PromiseBox: @unchecked Sendable {
        // @unchecked: set before the promise that reads it settles.
        var promise: Promise<Void>?
    }
}

final class APlus_2_3_2: APlusTestCase {
    func testAdoptsAPendingPromise() {
        testFulfilled { promise, ex, value in
            Promise.value(0).then { _ in promise }.done {
                XCTAssertEqual($0, value)
                ex.fulfill()
            }.silenceWarning()
        }
    }

    func testAdoptsARejection() {
        testRejected { promise, ex, sentinel in
            Promise.value(0).then { _ in promise }.catch { error in
                XCTAssertEqual(error as? APlusError, .sentinel(sentinel))
                ex.fulfill()
            }
        }
    }
}

final class APlus_2_3_4: APlusTestCase {
    func testFulfilledWithAValue() {
        testFulfilled { promise, ex, value in
            promise.map { _ in value }.done {
                XCTAssertEqual($0, value)
                ex.fulfill()
            }.silenceWarning()
        }
        testRejected { promise, ex, value in
            promise.recover { _ in Guarantee.value(value) }.done {
                XCTAssertEqual($0, value)
                ex.fulfill()
            }
        }
    }
}
