// The Swift half of the pending-memory check (see scripts/check-allocations.sh): pending
// promises with one handler each, made and kept while the C side counts the heap.
import Vow

/// What the measured run keeps: the resolver of each pending promise and the promise its
/// one handler derives (the pending promise itself is held by both).
private final class Kept: @unchecked Sendable {
    // @unchecked: used by one thread, the check's main thread, between the C calls.
    var resolvers: [Resolver<Int>] = []
    var derived: [Promise<Int>] = []
}

private nonisolated(unsafe) var kept = Kept()

/// Reserves room for `n` of each, so the arrays do not grow inside the measured run.
@_cdecl("vow_alloc_swift_pending_prepare")
public func vowAllocSwiftPendingPrepare(_ n: Int) {
    kept = Kept()
    kept.resolvers.reserveCapacity(n)
    kept.derived.reserveCapacity(n)
}

/// The measured run: `n` pending promises, each with one `then` on the default dispatcher.
@_cdecl("vow_alloc_swift_pending_make")
public func vowAllocSwiftPendingMake(_ n: Int) {
    for _ in 0..<n {
        let (promise, resolver) = Promise<Int>.pending()
        kept.derived.append(promise.then { $0 + 1 })
        kept.resolvers.append(resolver)
    }
}

/// Fulfils them all and waits for the last handler; returns its value (n: all ran) or -1.
@_cdecl("vow_alloc_swift_pending_finish")
public func vowAllocSwiftPendingFinish() -> Int {
    for (index, resolver) in kept.resolvers.enumerated() { resolver.fulfill(index) }
    let last = (try? kept.derived.last?.wait()) ?? -1
    let count = kept.resolvers.count
    kept = Kept()
    return last == count ? count : -1
}
