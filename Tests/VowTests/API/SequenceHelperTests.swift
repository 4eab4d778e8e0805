import Dispatch
import Testing
@testable import Vow

// PromiseKit's helpers on a promise of a sequence (mapValues, flatMapValues,
// compactMapValues, thenMap, thenFlatMap, filterValues, firstValue, lastValue,
// sortedValues, reduce) and compactMap.

@Suite("API: sequence helpers and compactMap")
struct SequenceHelperTests {
    let numbers = Promise.value([3, 1, 2])

    @Test("mapValues, flatMapValues, compactMapValues, filterValues, reduce, sortedValues")
    func values() throws {
        #expect(try value(of: numbers.mapValues { $0 * 2 }) == [6, 2, 4])
        #expect(try value(of: numbers.flatMapValues { [$0, $0] }) == [3, 3, 1, 1, 2, 2])
        #expect(try value(of: numbers.compactMapValues { $0 == 1 ? nil : "\($0)" }) == ["3", "2"])
        #expect(try value(of: numbers.filterValues { $0 > 1 }) == [3, 2])
        #expect(try value(of: numbers.reduce(10) { $0 + $1 }) == 16)
        #expect(try value(of: numbers.sortedValues()) == [1, 2, 3])
        #expect(try value(of: Promise.value(Set(["b", "a"])).sortedValues()) == ["a", "b"])
    }

    @Test("sortedValues(by:), also written as PromiseKit's trailing closure; a throw from the comparison rejects")
    func sortedBy() throws {
        #expect(try value(of: numbers.sortedValues(by: >)) == [3, 2, 1])
        #expect(try value(of: Promise.value([5, 2, 3, 4, 1]).sortedValues { $0 > $1 }) == [5, 4, 3, 2, 1])
        let queue = DispatchQueue(label: "sortedBy")
        #expect(try value(of: numbers.sortedValues(on: queue) { a, b in
            dispatchPrecondition(condition: .onQueue(queue))
            return a < b
        }) == [1, 2, 3])
        let failing = numbers.sortedValues { _, _ in throw TestError(7) }
        #expect(throws: TestError(7)) { try failing.wait() }
    }

    @Test("firstValue and lastValue, with and without a test; empty rejects with VowError.Code.empty")
    func firstAndLast() throws {
        #expect(try value(of: numbers.firstValue) == 3)
        #expect(try value(of: numbers.lastValue) == 2)
        #expect(try value(of: numbers.firstValue(where: { $0 < 3 })) == 1)
        #expect(try value(of: numbers.lastValue(where: { $0 > 1 })) == 2)
        #expect(try value(of: Promise.value(stride(from: 7, to: 9, by: 1)).firstValue) == 7)
        let empty = Promise.value([Int]())
        #expect(try vowCode(of: empty.firstValue) == .empty)
        #expect(try vowCode(of: empty.lastValue) == .empty)
        #expect(try vowCode(of: numbers.firstValue(where: { $0 > 5 })) == .empty)
        #expect(try vowCode(of: numbers.lastValue(where: { $0 > 5 })) == .empty)
    }

    @Test("thenMap waits for every promise, in order; the first rejection wins")
    func thenMap() throws {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let mapped = numbers.thenMap { index in pairs[index - 1].promise }
        pairs[2].resolver.fulfill(30)
        pairs[0].resolver.fulfill(10)
        pairs[1].resolver.fulfill(20)
        #expect(try value(of: mapped) == [30, 10, 20])

        let failing = numbers.thenMap { index -> Promise<Int> in
            index == 1 ? Promise(error: TestError(1)) : Promise.value(index)
        }
        #expect(try error(of: failing) as? TestError == TestError(1))
        #expect(try value(of: numbers.thenFlatMap { Promise.value([$0, -$0]) }) == [3, -3, 1, -1, 2, -2])
    }

    @Test("a throw rejects; a rejection passes through without calling the closure")
    func errors() throws {
        #expect(try error(of: numbers.mapValues { _ -> Int in throw TestError(5) }) as? TestError == TestError(5))
        #expect(try error(of: numbers.thenMap { _ -> Promise<Int> in throw TestError(6) }) as? TestError == TestError(6))
        let calls = Counter()
        let rejected = Promise<[Int]>(error: TestError(7))
        let helpers: [Promise<Int>] = [
            rejected.mapValues { calls.increment(); return $0 }.firstValue,
            rejected.firstValue(where: { _ in calls.increment(); return true }),
            rejected.reduce(0) { calls.increment(); return $0 + $1 },
            rejected.compactMap { _ in calls.increment(); return 1 },
        ]
        for promise in helpers { #expect(try error(of: promise) as? TestError == TestError(7)) }
        #expect(calls.value == 0)
    }

    @Test("each helper runs its closure on the dispatcher it was given")
    func dispatchers() throws {
        let queue = ManualDispatcher()
        let mapped = numbers.mapValues(on: queue) { $0 + 1 }
        let filtered = numbers.filterValues(on: queue) { $0 > 2 }
        let reduced = numbers.reduce(on: queue, 0, +)
        let sorted = numbers.sortedValues(on: queue)
        let first = numbers.firstValue(on: queue) { $0 == 2 }
        let compact = numbers.compactMap(on: queue) { $0.first }
        #expect(eventually { queue.pendingCount == 6 })
        #expect(mapped.isPending && filtered.isPending && reduced.isPending && sorted.isPending)
        #expect(first.isPending && compact.isPending)
        queue.drain()
        #expect(try value(of: mapped) == [4, 2, 3])
        #expect(try value(of: filtered) == [3])
        #expect(try value(of: reduced) == 6)
        #expect(try value(of: sorted) == [1, 2, 3])
        #expect(try value(of: first) == 2)
        #expect(try value(of: compact) == 3)
    }

    @Test("compactMap: a value passes on; nil rejects with domain vow.compactMap, naming the value")
    func compactMap() throws {
        #expect(try value(of: Promise.value("42").compactMap { Int($0) }) == 42)
        let failed = try error(of: Promise.value("forty-two").compactMap { Int($0) })
        let vowError = try #require(failed as? VowError)
        #expect(vowError.domain == "vow.compactMap" && vowError.code == 1)
        #expect(vowError.message.contains("forty-two") && vowError.message.contains("Int"))
        #expect(vowError.payload as? String == "forty-two")
    }
}
