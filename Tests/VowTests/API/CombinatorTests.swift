import Testing
@testable import Vow

// when(fulfilled:) (arrays, variadic, tuples of 2 to 5), when(resolved:), race, any, zip.

@Suite("API: combinators")
struct CombinatorTests {
    @Test("when(fulfilled:) fulfils with the values in input order, whatever the settle order")
    func whenOrder() throws {
        let pairs = (0..<5).map { _ in Promise<Int>.pending() }
        let all = when(fulfilled: pairs.map(\.promise))
        for index in (0..<5).reversed() {
            #expect(all.isPending)
            pairs[index].resolver.fulfill(index * 10)
        }
        #expect(try value(of: all) == [0, 10, 20, 30, 40])
    }

    @Test("when(fulfilled:) rejects with the first rejection's error; the other inputs keep running")
    func whenFirstRejection() throws {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let all = when(fulfilled: pairs.map(\.promise))
        pairs[2].resolver.reject(TestError(2))
        pairs[0].resolver.reject(TestError(0))
        #expect(try error(of: all) as? TestError == TestError(2))
        #expect(pairs[1].promise.isPending)
        #expect(!pairs[1].promise.isCancelled)
        pairs[1].resolver.fulfill(1)
    }

    @Test("when(fulfilled:) of no promises fulfils with []")
    func whenEmpty() throws {
        #expect(try value(of: when(fulfilled: [Promise<Int>]())) == [])
    }

    @Test("when(fulfilled:) variadic")
    func whenVariadic() throws {
        #expect(try value(of: when(fulfilled: Promise.value(1), Promise.value(2))) == [1, 2])
    }

    @Test("when(fulfilled:) tuples of 2 to 5 keep each type")
    func whenTuples() throws {
        let two = try value(of: when(fulfilled: Promise.value(1), Promise.value("b")))
        #expect(two.0 == 1 && two.1 == "b")
        let three = try value(of: when(fulfilled: Promise.value(1), Promise.value("b"), Promise.value(3.5)))
        #expect(three.0 == 1 && three.1 == "b" && three.2 == 3.5)
        let four = try value(of: when(fulfilled: Promise.value(1), Promise.value("b"), Promise.value(3.5), Promise.value(true)))
        #expect(four.0 == 1 && four.1 == "b" && four.2 == 3.5 && four.3)
        let token = Token()
        let five = try value(of: when(fulfilled: Promise.value(1), Promise.value("b"), Promise.value(3.5),
                                      Promise.value(true), Promise.value(token)))
        #expect(five.0 == 1 && five.1 == "b" && five.2 == 3.5 && five.3 && five.4 === token)
    }

    @Test("when(fulfilled:) tuples wait for pending inputs and reject with an input's error")
    func whenTupleRejection() throws {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<String>.pending()
        let pair = when(fulfilled: a, b)
        ra.fulfill(1)
        #expect(pair.isPending)
        rb.fulfill("x")
        let value = try value(of: pair)
        #expect(value.0 == 1 && value.1 == "x")
        let five = when(fulfilled: Promise.value(1), Promise.value("b"), Promise.value(3.5),
                        Promise<Bool>(error: TestError(4)), Promise.value(Token()))
        #expect(try error(of: five) as? TestError == TestError(4))
    }

    @Test("when(resolved:) fulfils with every outcome in input order and never rejects")
    func whenResolved() throws {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let all = when(resolved: pairs.map(\.promise))
        pairs[1].resolver.reject(TestError(1))
        pairs[2].resolver.fulfill(2)
        #expect(all.isPending)
        pairs[0].resolver.fulfill(0)
        let results = try value(of: all)
        #expect(results.count == 3)
        #expect(try results[0].get() == 0)
        #expect(throws: TestError(1)) { try results[1].get() }
        #expect(try results[2].get() == 2)
        #expect(try value(of: when(resolved: [Promise<Int>]())).isEmpty)
        #expect(try value(of: when(resolved: Promise.value(5), Promise<Int>(error: TestError()))).count == 2)
    }

    @Test("race settles like the first input to settle (fulfilment)")
    func raceFirstFulfils() throws {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let first = race(pairs.map(\.promise))
        pairs[1].resolver.fulfill(1)
        pairs[0].resolver.fulfill(0)
        #expect(try value(of: first) == 1)
    }

    @Test("race settles like the first input to settle (rejection)")
    func raceFirstRejects() throws {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let first = race(a, b)
        rb.reject(TestError(3))
        ra.fulfill(0)
        #expect(try error(of: first) as? TestError == TestError(3))
    }

    @Test("race of no promises rejects with the empty error")
    func raceEmpty() throws {
        #expect(try vowCode(of: race([Promise<Int>]())) == .empty)
    }

    @Test("race cancels the losers when nothing else waits on them")
    func raceCancelsLosers() throws {
        let (winner, rw) = Promise<Int>.pending()
        let (loser, rl) = Promise<Int>.pending()
        let cancelHandler = Counter()
        rl.onCancel { cancelHandler.increment() }
        let first = race(winner, loser)
        rw.fulfill(1)
        #expect(try value(of: first) == 1)
        #expect(loser.isCancelled)
        #expect(eventually { cancelHandler.value == 1 })
    }

    @Test("race does not cancel a loser that another dependent still waits on")
    func raceSparesSharedLoser() throws {
        let (winner, rw) = Promise<Int>.pending()
        let (loser, rl) = Promise<Int>.pending()
        let other = loser.map { $0 * 2 }
        let first = race(winner, loser)
        rw.fulfill(1)
        #expect(try value(of: first) == 1)
        #expect(!loser.isCancelled)
        #expect(loser.isPending)
        rl.fulfill(5)
        #expect(try value(of: other) == 10)
    }

    @Test("any fulfils with the first fulfilment, skipping earlier rejections")
    func anyFirstFulfilment() throws {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let first = any(pairs.map(\.promise))
        pairs[0].resolver.reject(TestError(0))
        #expect(first.isPending)
        pairs[2].resolver.fulfill(2)
        #expect(try value(of: first) == 2)
        #expect(pairs[1].promise.isCancelled)  // the loser nobody else needs
    }

    @Test("any rejects with the last error when every input rejects")
    func anyAllReject() throws {
        let (a, ra) = Promise<Int>.pending()
        let (b, rb) = Promise<Int>.pending()
        let first = any(a, b)
        rb.reject(TestError(1))
        ra.reject(TestError(2))
        #expect(try error(of: first) as? TestError == TestError(2))
    }

    @Test("any of no promises rejects with the empty error")
    func anyEmpty() throws {
        #expect(try vowCode(of: any([Promise<Int>]())) == .empty)
    }

    @Test("zip pairs and triples values of different types")
    func zipTuples() throws {
        let pair = try value(of: zip(Promise.value(1), Promise.value("two")))
        #expect(pair.0 == 1 && pair.1 == "two")
        let triple = try value(of: zip(Promise.value(1), Promise.value("two"), Promise.value(3.0)))
        #expect(triple.0 == 1 && triple.1 == "two" && triple.2 == 3.0)
        #expect(try error(of: zip(Promise.value(1), Promise<String>(error: TestError(5)))) as? TestError == TestError(5))
    }

    @Test("a then returning when/race/any with its own promise among the inputs, anywhere, rejects with the cycle error")
    func combinatorOfItselfIsACycle() throws {
        for kind in 0..<4 {
            let (source, resolver) = Promise<Int>.pending()
            let (other, otherResolver) = Promise<Int>.pending()
            let own = Locked<Promise<Int>?>(nil)
            let step = source.then { _ -> Promise<Int> in
                let me = own.withLock { $0 }!
                switch kind {
                case 0: return when(fulfilled: [other, me]).map { $0[1] }
                case 1: return race([other, me])
                case 2: return any([other, other, me])
                default: return when(resolved: [other, me]).map { _ in 0 }
                }
            }
            own.withLock { $0 = step }
            resolver.fulfill(1)
            #expect(try vowCode(of: step) == .cycle, "kind \(kind)")
            otherResolver.fulfill(2)
            own.withLock { $0 = nil }
        }
    }

    @Test("resolve(promise) with a combinator that has the promise among its inputs rejects with the cycle error")
    func resolveWithCombinatorOfItself() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let (other, otherResolver) = Promise<Int>.pending()
        resolver.resolve(when(fulfilled: [other, promise.map { $0 + 1 }]).map { $0[0] })
        #expect(try vowCode(of: promise) == .cycle)
        otherResolver.fulfill(1)
    }

    @Test("adopting a combinator of unrelated pending promises is no cycle: it settles as they do")
    func combinatorWithoutCycle() throws {
        let (source, resolver) = Promise<Int>.pending()
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let inputs = pairs.map(\.promise)
        let step = source.then { _ in when(fulfilled: inputs + [inputs[0].map { $0 }]).map { $0.reduce(0, +) } }
        resolver.fulfill(1)
        for (index, pair) in pairs.enumerated() {
            #expect(step.isPending)
            pair.resolver.fulfill(index + 1)
        }
        #expect(try value(of: step) == 1 + 2 + 3 + 1)
    }
}
