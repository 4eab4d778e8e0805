import Dispatch
import Testing
@testable import Vow

// Promises/A+ 1.1, 2.2.1: both arguments of `then` are optional.
//
// The seed `then(_:_:)` takes two optional callbacks. The typed API splits them: `then`
// is a `then` without onRejected, `recover` one without onFulfilled.

@Suite("A+ 2.2.1 optional arguments")
struct APlus_2_2_1 {
    @Test("2.2.1.1 onFulfilled absent: a rejection still reaches onRejected")
    func noOnFulfilledRejected() throws {
        let reached = DispatchSemaphore(value: 0)
        let reasons = EventLog<Int>()
        Promise<Int>(error: TestError(4)).then(nil, { reason in
            reasons.append((reason as? TestError)?.tag ?? -1)
            reached.signal()
        })
        #expect(wait(reached))
        #expect(reasons.all == [4])
    }

    @Test("2.2.1.1 onFulfilled absent on a fulfilled promise: nothing is called")
    func noOnFulfilledFulfilled() throws {
        let promise = Promise.value(3)
        let failures = Counter()
        promise.then(nil, { _ in failures.increment() })
        // A fence on the same (serial) default dispatcher: attached later, runs later.
        #expect(try value(of: promise.then { $0 }) == 3)
        #expect(failures.value == 0)
    }

    @Test("2.2.1.2 onRejected absent: a fulfilment still reaches onFulfilled")
    func noOnRejectedFulfilled() throws {
        let reached = DispatchSemaphore(value: 0)
        let values = EventLog<Int>()
        Promise.value(5).then({ value in
            values.append(value)
            reached.signal()
        }, nil)
        #expect(wait(reached))
        #expect(values.all == [5])
    }

    @Test("2.2.1.2 onRejected absent on a rejected promise: onFulfilled is not called, the rejection passes on")
    func noOnRejectedRejected() throws {
        let calls = Counter()
        let derived = Promise<Int>(error: TestError(6)).then { value -> Int in
            calls.increment()
            return value
        }
        #expect(try error(of: derived) as? TestError == TestError(6))
        #expect(calls.value == 0)
    }

    @Test("2.2.1 then(nil, nil) is accepted and leaves the promise as it was")
    func bothAbsent() throws {
        let promise = Promise.value(7)
        promise.then(nil, nil)
        #expect(try value(of: promise.then { $0 + 1 }) == 8)
        #expect(promise.isFulfilled)
    }
}
