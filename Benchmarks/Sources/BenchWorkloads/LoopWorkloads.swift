import CVowBench
import Dispatch
import NIOCore
import NIOEmbedded
import Vow

/// The `adoption-loop` workload (issue 15): a loop whose every step returns the next
/// step's promise, three ways:
///
/// - `vow`: `step(k)` is `Promise.value(k).then { step($0 - 1) }` (`.default`: each step
///   runs on the library's serial queue);
/// - `c`: the same through vow.h, a `vow_then` callback that returns the next step's
///   promise through `vow_result_return` (the default dispatcher);
/// - `nio`: swift-nio's `flatMap` recursion, `loop.makeSucceededFuture(k).flatMap {
///   step($0 - 1) }`, on an `EmbeddedEventLoop` (every callback runs inline, so the steps
///   nest on the stack: the step count stays at 10,000 at scale 1).
///
/// One op is one step. Two figures per side: the cost of a loop that ends in a fulfilled
/// promise (timed, or instructions under callgrind), and the memory it holds per step,
/// measured apart (`bytesPerStep`: step 0 is a pending promise; the heap's growth once the
/// loop reached it, divided by the steps). Vow collapses the adoption chain, so its loop
/// holds no memory per step.
public enum AdoptionLoop {
    public static let name = "adoption-loop"

    public enum Side: String, CaseIterable, Sendable {
        case vow = "Vow .default"
        case c = "Vow C default"
        case nio = "nio embedded flatMap"
    }

    /// Steps per trial at `scale`.
    public static func ops(scale: Double) -> Int {
        Swift.max(1, Int(10_000 * scale))
    }

    /// The loop on `side`, ending in a fulfilled promise.
    public static func trial(_ side: Side, scale: Double) throws(Skip) -> Trial {
        let steps = ops(scale: scale)
        var result = -1
        switch side {
        case .vow:
            return Trial(run: {
                result = (try? VowLoop(end: nil).step(steps).wait()) ?? -1
            }, finish: { expect(result, 0, "loop end") })
        case .c:
            guard CWorkloads.available else { throw .noCInterface }
            return Trial(run: {
                result = cvb_loop(steps, 0, nil)
            }, finish: { expect(result, 0, "loop end") })
        case .nio:
            let loop = EmbeddedEventLoop()
            let slot = EmbeddedResult()
            return Trial(run: {
                NIOLoop(loop: loop, end: nil).step(steps).whenSuccess { slot.value = $0 }
            }, finish: { expect(slot.value, 0, "loop end") })
        }
    }

    /// The heap bytes the loop holds per step once it reached its last step (pending).
    public static func bytesPerStep(_ side: Side, steps: Int) throws(Skip) -> Double {
        var bytes = 0
        var result = -1
        switch side {
        case .vow:
            let reached = DispatchSemaphore(value: 0)
            let end = Promise<Int>.pending()
            let heap = cvb_heap_in_use()
            let outer = VowLoop(end: (end.promise, reached)).step(steps)
            reached.wait()
            bytes = cvb_heap_in_use() - heap
            end.resolver.fulfill(0)
            result = (try? outer.wait()) ?? -1
        case .c:
            guard CWorkloads.available else { throw .noCInterface }
            result = cvb_loop(steps, 1, &bytes)
        case .nio:
            let loop = EmbeddedEventLoop()
            let end = loop.makePromise(of: Int.self)
            let heap = cvb_heap_in_use()
            let outer = NIOLoop(loop: loop, end: end.futureResult).step(steps)
            bytes = cvb_heap_in_use() - heap
            end.succeed(0)
            let slot = EmbeddedResult()
            outer.whenSuccess { slot.value = $0 }
            result = slot.value
        }
        // The heap may shrink a little meanwhile (a cache let go): no negative figures.
        return result == 0 ? Double(Swift.max(0, bytes)) / Double(steps) : .nan
    }
}

/// The Swift loop; step 0 is `.value(0)`, or `end` (signalling `reached` when made).
private struct VowLoop: Sendable {
    let end: (Promise<Int>, DispatchSemaphore)?

    func step(_ k: Int) -> Promise<Int> {
        if k == 0 {
            guard let (promise, reached) = end else { return .value(0) }
            reached.signal()
            return promise
        }
        return Promise.value(k).then { self.step($0 - 1) }
    }
}

/// A future's value on an `EmbeddedEventLoop`, whose callbacks run inline on the calling
/// thread.
private final class EmbeddedResult: @unchecked Sendable {
    // @unchecked: written and read on the one thread that runs the embedded loop.
    var value = -1
}

/// swift-nio's loop; step 0 is a succeeded future, or `end`.
private struct NIOLoop {
    let loop: EmbeddedEventLoop
    let end: EventLoopFuture<Int>?

    func step(_ k: Int) -> EventLoopFuture<Int> {
        if k == 0 { return end ?? loop.makeSucceededFuture(0) }
        return loop.makeSucceededFuture(k).flatMap { self.step($0 - 1) }
    }
}
