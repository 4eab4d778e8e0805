import Testing
@testable import Vow

@Suite struct SmokeTests {
    @Test func basicChain() throws {
        let p = Promise<Int>.value(1).then { $0 + 1 }.map { String($0) }
        #expect(try p.wait() == "2")
    }

    @Test func deepChainDefault() throws {
        let (head, resolver) = Promise<Int>.pending()
        var p = head
        for _ in 0..<1_000_000 { p = p.then { $0 + 1 } }
        resolver.fulfill(0)
        #expect(try p.wait() == 1_000_000)
    }

    @Test func deepChainInline() throws {
        let (head, resolver) = Promise<Int>.pending()
        var p = head
        for _ in 0..<1_000_000 { p = p.then(on: .inline) { $0 + 1 } }
        resolver.fulfill(0)
        #expect(try p.wait() == 1_000_000)
    }

    @Test func cancelTravelsUp() throws {
        let (head, resolver) = Promise<Int>.pending()
        let cancelled = Locked(0)
        resolver.onCancel { cancelled.withLock { $0 += 1 } }
        let tail = head.then { $0 + 1 }.then { $0 + 1 }
        tail.cancel()
        #expect(head.isCancelled)
        #expect(throws: VowError.self) { try tail.wait() }
        _ = try? after(seconds: 0.05).wait()
        #expect(cancelled.withLock { $0 } == 1)
        _ = resolver
    }
}
