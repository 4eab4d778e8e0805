import Testing
import Synchronization
@testable import Vow

private final class Flag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set(_ value: Bool) { storage.store(value, ordering: .releasing) }
    var isSet: Bool { storage.load(ordering: .acquiring) }
}

/// Sets a flag in its deinit, so a test can see when a closure that captured it was released.
private final class ReleaseProbe: Sendable {
    let released: Flag
    init(_ released: Flag) { self.released = released }
    deinit { released.set(true) }
}

@Suite("Engine: the inline dispatcher releases finished jobs")
struct InlineReleaseTests {
    /// A regression test: the inline trampoline used to keep every job it ran until the
    /// outermost call returned, so a long inline chain held all its finished closures (and
    /// what they captured) until its very last link.
    @Test("a finished link's closure is released before later links of the same inline chain run")
    func finishedJobsAreReleasedDuringTheChain() throws {
        let probeReleased = Flag()
        let releasedWhenLink4Ran = Flag()
        let (head, resolver) = Promise<Int>.pending()
        let tail: Promise<Int>
        do {
            let probe = ReleaseProbe(probeReleased)
            let link1 = head.then(on: .inline) { (value: Int) -> Int in value + 1 }
            // Link 2's closure is the only owner of `probe`.
            let link2 = link1.then(on: .inline) { (value: Int) -> Int in
                withExtendedLifetime(probe) {}
                return value + 1
            }
            let link3 = link2.then(on: .inline) { (value: Int) -> Int in value + 1 }
            tail = link3.then(on: .inline) { (value: Int) -> Int in
                releasedWhenLink4Ran.set(probeReleased.isSet)
                return value + 1
            }
        }
        // Every link runs inside this call (inline), in one trampoline loop.
        resolver.fulfill(0)
        #expect(try tail.wait() == 4)
        let released = releasedWhenLink4Ran.isSet
        #expect(released, "link 2's closure was still alive when link 4 ran")
    }
}
