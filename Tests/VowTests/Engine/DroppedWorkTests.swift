import Testing
@testable import Vow

// A dispatcher may drop work without running it (the `Dispatcher` contract: "runs work
// later, exactly once, or drops it"). The promise that work would have settled must not
// keep the chain behind it alive forever.

/// Drops everything it is given, releasing it at once.
private final class DroppingDispatcher: Dispatcher {
    func dispatch(_ work: @escaping @Sendable () -> Void) {}
}

@Suite("Engine: work dropped by a dispatcher")
struct DroppedWorkTests {
    @Test("a manual dispatcher released undrained frees the chain its dropped job would have settled")
    func droppedJobFreesChain() {
        weak var weakDerived: Core?
        weak var weakTail: Core?
        do {
            let manual = ManualDispatcher()
            let derived = Promise.value(1).map(on: manual) { $0 + 1 }
            let tail = derived.map(on: .inline) { $0 + 1 }.map(on: .inline) { $0 + 1 }
            weakDerived = derived.core
            weakTail = tail.core
            #expect(manual.pendingCount == 1)
            _ = (manual, derived, tail)
        }
        #expect(weakDerived == nil, "the derived promise of the dropped job leaked")
        #expect(weakTail == nil, "the chain behind the dropped job leaked")
    }

    @Test("control: the same chain, with its job run, is freed once released")
    func drainedChainFreed() {
        weak var weakDerived: Core?
        weak var weakTail: Core?
        do {
            let manual = ManualDispatcher()
            let derived = Promise.value(1).map(on: manual) { $0 + 1 }
            let tail = derived.map(on: .inline) { $0 + 1 }.map(on: .inline) { $0 + 1 }
            weakDerived = derived.core
            weakTail = tail.core
            manual.drain()
            #expect(tail.isFulfilled)
        }
        #expect(weakDerived == nil)
        #expect(weakTail == nil)
    }

    @Test("a dispatcher that drops work: the promise its job would settle does not hang forever")
    func droppedJobSettles() throws {
        let derived = Promise.value(1).map(on: DroppingDispatcher()) { $0 + 1 }
        let tail = derived.map(on: .inline) { $0 + 1 }
        // Either outcome is acceptable here as long as the chain ends (InvalidatableQueue
        // cancels; a plain dropping dispatcher should too).
        let result = try outcome(of: tail, within: 2)
        if case .failure(let error) = result {
            #expect(isCancellation(error))
        }
    }
}
