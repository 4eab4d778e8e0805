import Synchronization
import Testing
import Vow
import VowTesting

// Seeded orders: a TestLoop made with a seed runs the ready callbacks of different promises
// in an order the seed decides, the callbacks of one promise in their registration order.
// Here, a search box with a deliberately order-dependent bug that the submission order
// hides and seeds find.

/// A search box: shows the results of the search the user typed last.
private final class SearchBox: @unchecked Sendable {
    // @unchecked: used on the loop's thread only.
    var shown = ""
    var latest = ""

    /// The bug: shows whatever results arrive, in the order they arrive. Right only if
    /// results come back in the order the searches were made, which nothing promised.
    func search(_ text: String, _ fetch: Promise<String>) -> Promise<Void> {
        latest = text
        return fetch.done { results in self.shown = results }
    }

    /// The fix: results of a search that is no longer the latest are dropped.
    func searchFixed(_ text: String, _ fetch: Promise<String>) -> Promise<Void> {
        latest = text
        return fetch.done { results in
            if text == self.latest { self.shown = results }
        }
    }
}

/// The user types "a", then "ab"; both replies arrive in that order, at once. Returns what
/// the box shows once the loop ran.
private func typeTwice(on loop: TestLoop, fixed: Bool) -> String {
    let box = SearchBox()
    let (first, firstReply) = Promise<String>.pending()
    let (second, secondReply) = Promise<String>.pending()
    let searches = fixed
        ? [box.searchFixed("a", first), box.searchFixed("ab", second)]
        : [box.search("a", first), box.search("ab", second)]
    firstReply.fulfill("results for a")
    secondReply.fulfill("results for ab")
    loop.runUntilIdle()
    #expect(searches.allSatisfy { $0.isFulfilled })
    return box.shown
}

/// What `typeTwice` found with a seed that shows the bug.
private struct StaleResults: Error, CustomStringConvertible {
    let shown: String
    var description: String { "the box shows \"\(shown)\" after typing \"ab\"" }
}

@Suite("VowTesting: seeded orders")
struct SeedTests {
    @Test("submission order (seed 0) hides the bug: the replies' callbacks run in the order of the replies")
    func submissionOrderHidesIt() {
        for _ in 0..<20 {
            #expect(TestLoop.with(seed: 0) { typeTwice(on: $0, fixed: false) } == "results for ab")
        }
    }

    @Test("seeds 1...100 find the order-dependent bug, and the failing seed reproduces it")
    func seedsFindIt() throws {
        var failingSeed: UInt64?
        do {
            try TestLoop.forEachSeed(1...100) { loop in
                let shown = typeTwice(on: loop, fixed: false)
                if shown != "results for ab" { throw StaleResults(shown: shown) }
            }
        } catch let failure as TestLoop.SeedFailure {
            failingSeed = failure.seed
            #expect(failure.error is StaleResults)
            #expect("\(failure)".contains("TestLoop(seed: \(failure.seed)) reproduces it"))
        }
        let seed = try #require(failingSeed, "no seed in 1...100 showed the bug")
        // The same seed gives the same order every time.
        for _ in 0..<10 {
            #expect(TestLoop.with(seed: seed) { typeTwice(on: $0, fixed: false) } == "results for a")
        }
        // The fixed box is right under every seed.
        try TestLoop.forEachSeed(1...100) { loop in
            let shown = typeTwice(on: loop, fixed: true)
            if shown != "results for ab" { throw StaleResults(shown: shown) }
        }
    }

    @Test("under every seed, the callbacks of one promise run in registration order (2.2.6)")
    func onePromiseKeepsItsOrder() throws {
        var interleavings = Set<[String]>()
        for seed in UInt64(1)...100 {
            try TestLoop.with(seed: seed) { loop in
                let log = Log()
                let (p, pResolver) = Promise<Int>.pending()
                let (q, qResolver) = Promise<Int>.pending()
                let handlers = [
                    p.done { _ in log.append("p1") }, q.done { _ in log.append("q1") },
                    p.done { _ in log.append("p2") }, q.done { _ in log.append("q2") },
                    p.done { _ in log.append("p3") },
                ]
                pResolver.fulfill(1)
                qResolver.fulfill(2)
                #expect(loop.runUntilIdle() == 5)
                let entries = log.entries
                #expect(entries.filter { $0.hasPrefix("p") } == ["p1", "p2", "p3"], "seed \(seed)")
                #expect(entries.filter { $0.hasPrefix("q") } == ["q1", "q2"], "seed \(seed)")
                interleavings.insert(entries)
                try #require(handlers.allSatisfy { $0.isFulfilled })
            }
        }
        // The seeds do interleave the two promises in many ways (C(5,2) = 10 possible).
        #expect(interleavings.count >= 5)
    }
}
