// The Swift half of the bounded-when memory check (see scripts/check-allocations.sh):
// `when(fulfilled: iterator, concurrently: limit, on: queue)` over `count` promises that
// the iterator makes pending, on a queue this thread drains, with every promise settled
// by this thread, so the number pending is exact at every call of `next()`.
import Vow

/// Work queued by the engine, run by `vowAllocSwiftLimited`'s loop on its own thread.
private final class DrainedQueue: Dispatcher, @unchecked Sendable {
    // @unchecked: one thread submits and drains (the engine submits from the thread that
    // settles an input, which is the draining thread here).
    var work: [@Sendable () -> Void] = []
    func dispatch(_ work: @escaping @Sendable () -> Void) { self.work.append(work) }
    var isSerial: Bool { true }
}

/// What the iterator and the loop share (one thread).
private final class Counts: @unchecked Sendable {
    // @unchecked: one thread (see DrainedQueue).
    var made = 0
    var settled = 0
    var maxPending = 0
    var overLimit = 0
    var resolvers: [Resolver<Int>] = []
}

/// Runs the bounded when; returns the most promises pending at once, or -1 if a value
/// was wrong, -2 if `next()` was called with `limit` already pending.
@_cdecl("vow_alloc_swift_limited")
public func vowAllocSwiftLimited(_ count: Int, _ limit: Int) -> Int {
    let queue = DrainedQueue()
    let counts = Counts()
    let iterator = AnyIterator<Promise<Int>> {
        guard counts.made < count else { return nil }
        if counts.made - counts.settled >= limit { counts.overLimit += 1 }
        let (promise, resolver) = Promise<Int>.pending()
        counts.resolvers.append(resolver)
        counts.made += 1
        counts.maxPending = max(counts.maxPending, counts.made - counts.settled)
        return promise
    }
    let all = when(fulfilled: iterator, concurrently: limit, on: queue)
    while all.isPending {
        while !queue.work.isEmpty {
            let batch = queue.work
            queue.work = []
            for job in batch { job() }
        }
        let ready = counts.resolvers
        counts.resolvers = []
        for resolver in ready {
            resolver.fulfill(counts.settled)
            counts.settled += 1
        }
    }
    guard let values = try? all.wait(), values.count == count,
          values.first == 0, values.last == count - 1 else { return -1 }
    return counts.overLimit > 0 ? -2 : counts.maxPending
}
