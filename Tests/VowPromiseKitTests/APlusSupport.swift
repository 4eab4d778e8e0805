import Dispatch
import Foundation
import VowPromiseKit
import XCTest

// PromiseKit's Promises/A+ helpers (its Tests/A+/0.0.0.swift), carried over as a migrating
// user would: each clause runs on a promise that is already settled, settled at once, and
// settled a few main-queue ticks later. As in PromiseKit's suite, callbacks run on the main
// queue (conf.Q), which XCTest's waits drain; the suite restores Vow's default after.

enum APlusError: Swift.Error, Equatable {
    case dummy
    case sentinel(UInt32)
}

class APlusTestCase: XCTestCase {
    private var savedQueues: (map: DispatchQueue?, return: DispatchQueue?) = (nil, nil)

    override func setUp() {
        super.setUp()
        savedQueues = conf.Q
        conf.Q = (map: .main, return: .main)
    }

    override func tearDown() {
        conf.Q = savedQueues
        super.tearDown()
    }

    /// Runs `body` with a pending `Promise<Void>`, its fulfil and reject functions and an
    /// expectation, then waits for the expectation.
    func specify(_ description: String,
                 body: ((promise: Promise<Void>, fulfill: @Sendable () -> Void, reject: @Sendable (any Error) -> Void),
                        XCTestExpectation) -> Void) {
        let expectation = self.expectation(description: description)
        let (pending, seal) = Promise<Void>.pending()
        body((pending, seal.fulfill_, seal.reject), expectation)
        wait(for: [expectation], timeout: 10)
        seal.fulfill_()   // a resolver left unsettled would reject as broken
    }

    /// Runs `body` three times: with an already-fulfilled promise, one fulfilled at once
    /// after `body` ran, and one fulfilled a few ticks later.
    func testFulfilled(_ body: @escaping (Promise<UInt32>, XCTestExpectation, UInt32) -> Void) {
        testFulfilled(withExpectationCount: 1) { body($0, $1[0], $2) }
    }

    /// `testFulfilled`, rejecting with `APlusError.sentinel(value)`.
    func testRejected(_ body: @escaping (Promise<UInt32>, XCTestExpectation, UInt32) -> Void) {
        testRejected(withExpectationCount: 1) { body($0, $1[0], $2) }
    }

    /// `testFulfilled` with several expectations.
    func testFulfilled(withExpectationCount count: Int,
                       _ body: @escaping (Promise<UInt32>, [XCTestExpectation], UInt32) -> Void) {
        run(count, body, settle: { value, seal in seal.fulfill(value) }, already: { .value($0) })
    }

    /// `testRejected` with several expectations.
    func testRejected(withExpectationCount count: Int,
                      _ body: @escaping (Promise<UInt32>, [XCTestExpectation], UInt32) -> Void) {
        run(count, body, settle: { value, seal in seal.reject(APlusError.sentinel(value)) },
            already: { Promise(error: APlusError.sentinel($0)) })
    }

    private func run(_ count: Int, _ body: (Promise<UInt32>, [XCTestExpectation], UInt32) -> Void,
                     settle: @escaping @Sendable (UInt32, Resolver<UInt32>) -> Void,
                     already: (UInt32) -> Promise<UInt32>) {
        for way in ["already", "immediately", "eventually"] {
            let value = UInt32.random(in: 0...UInt32.max)
            let expectations = (1...count).map { expectation(description: "\(way) \($0)") }
            switch way {
            case "already":
                body(already(value), expectations, value)
            case "immediately":
                let (promise, seal) = Promise<UInt32>.pending()
                body(promise, expectations, value)
                settle(value, seal)
            default:
                let (promise, seal) = Promise<UInt32>.pending()
                body(promise, expectations, value)
                after(ticks: 5) { settle(value, seal) }
            }
            wait(for: expectations, timeout: 10)
        }
    }
}

/// Runs `body` after `ticks` turns of the main queue.
func after(ticks: Int, execute body: @escaping @Sendable () -> Void) {
    precondition(ticks > 0)
    DispatchQueue.main.async {
        if ticks == 1 { body() } else { after(ticks: ticks - 1, execute: body) }
    }
}

extension Promise {
    /// Calls one of the two on the outcome (PromiseKit's helper, over `tap`).
    func test(onFulfilled: @escaping @Sendable () -> Void, onRejected: @escaping @Sendable () -> Void) {
        tap { result in
            switch result {
            case .fulfilled: onFulfilled()
            case .rejected: onRejected()
            }
        }.catch(policy: .allErrors) { _ in }
    }
}
