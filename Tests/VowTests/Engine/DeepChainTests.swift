import Testing
@testable import Vow

// Chains of any depth settle without recursion (semantics.md): 1,000,000 links built on a
// pending promise and then resolved complete on a normal thread stack and on a 512 KB one,
// and so does dropping such a chain unresolved. Under ThreadSanitizer (VOW_TSAN=1) the
// chains have 200,000 links.
//
// Not serialized: each test holds a million promises (a few hundred MB at most), and
// running them beside the rest of the suite keeps the suite short on 2 cores. The ns/link
// figures printed are therefore taken under load; run `--filter DeepChainTests` alone for
// quiet figures.

/// A secondary thread's stack: small on purpose, so a recursion per link would overflow.
private let smallStack = 512 * 1024

/// The time limit of one deep-chain test (build, settle and wait).
private var deepChainSeconds: Double { Stress.underTSan ? 300 : 120 }

/// Builds `length` links of `+ 1` on a pending promise and returns the tail and the
/// resolver; the caller keeps no other promise of the chain.
private func makeChain(length: Int, on dispatcher: any Dispatcher) -> (tail: Promise<Int>, resolver: Resolver<Int>) {
    let (head, resolver) = Promise<Int>.pending()
    var tail = head
    for _ in 0..<length { tail = tail.then(on: dispatcher) { $0 + 1 } }
    return (tail, resolver)
}

/// Nanoseconds per link of a duration.
private func nsPerLink(_ duration: Duration, _ links: Int) -> Double {
    let (seconds, attoseconds) = duration.components
    return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(links)
}

/// Builds a chain, resolves it and waits for the tail; returns build and settle ns/link.
private func buildResolveWait(on dispatcher: any Dispatcher) throws -> (build: Double, settle: Double) {
    let length = Stress.chainLength
    let clock = ContinuousClock()
    let start = clock.now
    let (tail, resolver) = makeChain(length: length, on: dispatcher)
    let built = clock.now
    resolver.fulfill(0)
    let result = try value(of: tail, within: deepChainSeconds)
    let settled = clock.now
    #expect(result == length)
    return (nsPerLink(built - start, length), nsPerLink(settled - built, length))
}

private func report(_ label: String, _ figures: (build: Double, settle: Double)) {
    let total = figures.build + figures.settle
    print("vow deep chain \(label): \(Stress.chainLength) links, build \(Int(figures.build)) ns/link, "
          + "resolve+settle \(Int(figures.settle)) ns/link, total \(Int(total)) ns/link")
}

@Suite("Engine: deep chains")
struct DeepChainTests {
    @Test("(a) 1,000,000 links on the default dispatcher, built, resolved and awaited on the test's thread")
    func defaultDispatcherTestThread() throws {
        let figures = try buildResolveWait(on: .default)
        report("(a) default dispatcher, test thread", figures)
    }

    @Test("(b) 1,000,000 links on the default dispatcher, built, resolved and awaited on a 512 KB thread")
    func defaultDispatcherSmallStack() throws {
        let figures = try onNewThread(stackSize: smallStack, within: deepChainSeconds, "a 512 KB thread") {
            try buildResolveWait(on: .default)
        }
        report("(b) default dispatcher, 512 KB thread", figures)
    }

    @Test("(c) 1,000,000 .inline links settle on the resolving 512 KB thread without recursion")
    func inlineSmallStack() throws {
        let figures = try onNewThread(stackSize: smallStack, within: deepChainSeconds, "a 512 KB thread") {
            let length = Stress.chainLength
            let clock = ContinuousClock()
            let start = clock.now
            let (tail, resolver) = makeChain(length: length, on: .inline)
            let built = clock.now
            resolver.fulfill(0)
            // .inline: the whole chain ran inside fulfill, on this thread.
            #expect(tail.isFulfilled)
            let result = try value(of: tail)
            #expect(result == length)
            return (nsPerLink(built - start, length), nsPerLink(clock.now - built, length))
        }
        report("(c) .inline, 512 KB thread", figures)
    }

    @Test("(d) dropping a 1,000,000-link pending chain: the broken-promise rejection travels to the tail")
    func dropDefault() throws {
        var (tail, resolver): (Promise<Int>, Resolver<Int>?) = makeChain(length: Stress.chainLength, on: .default)
        #expect(tail.isPending)
        resolver = nil
        _ = resolver
        #expect(try vowCode(of: tail, within: deepChainSeconds) == .broken)
    }

    @Test("(d) dropping a 1,000,000-link pending .inline chain on a 512 KB thread")
    func dropInlineSmallStack() throws {
        let code = try onNewThread(stackSize: smallStack, within: deepChainSeconds, "a 512 KB thread") {
            var (tail, resolver): (Promise<Int>, Resolver<Int>?) = makeChain(length: Stress.chainLength, on: .inline)
            resolver = nil  // the rejection travels the chain on this thread
            _ = resolver
            #expect(tail.isRejected)
            return try vowCode(of: tail)
        }
        #expect(code == .broken)
    }

    @Test("a 200,000-link chain whose dispatcher drops every job inside dispatch ends cancelled, without recursion, on a 512 KB thread")
    func droppedDeepChain() throws {
        let code = try onNewThread(stackSize: smallStack, within: deepChainSeconds, "a 512 KB thread") {
            let queue = InvalidatableQueue(.inline)
            queue.invalidate()  // from now on it releases work inside dispatch, unrun
            let (head, resolver) = Promise<Int>.pending()
            var tail = head
            for _ in 0..<Stress.chainLength / 5 { tail = tail.then(on: queue) { $0 + 1 } }
            resolver.fulfill(0)  // each dropped link is cancelled, which reaches the next
            #expect(tail.isCancelled)
            return try vowCode(of: tail)
        }
        #expect(code == .cancelled)
    }

    @Test("cancelling the tail of a 200,000-link chain travels to the head without recursion, on a 512 KB thread")
    func cancelDeepChain() throws {
        let cancelled = Counter()
        let code = try onNewThread(stackSize: smallStack, within: deepChainSeconds, "a 512 KB thread") {
            let (head, resolver) = Promise<Int>.pending()
            resolver.onCancel { cancelled.increment() }
            var tail = head
            for _ in 0..<Stress.chainLength / 5 { tail = tail.then(on: .inline) { $0 + 1 } }
            tail.cancel()
            #expect(head.isCancelled)
            return try vowCode(of: tail)
        }
        #expect(code == .cancelled)
        #expect(eventually { cancelled.value == 1 })
    }
}
