import NIOCore
import Vow
#if VOW_NIO
import VowNIO
#endif

/// The `nio-dispatcher-chain` workload: chains of 1,000 links whose callbacks run on one
/// swift-nio event loop, three ways, all built and run on the same loop thread
/// (`NIOWorkloads.group`, one thread), the benchmark thread waiting off the loop:
///
/// - `nio`: NIO's own `EventLoopFuture.map` chain on a succeeded future (the callbacks run
///   inline on the loop; the same code as `chain-1k` on `nio loop`);
/// - `vowDispatcher`: a Vow `then` chain on a fulfilled promise with
///   `on: EventLoopDispatcher(loop)`: every link is a job submitted to the dispatcher,
///   which runs them on the loop in one loop task;
/// - `vowInline`: the same Vow chain with `on: .inline`, on the loop: the engine's share of
///   the cost without any dispatcher, to tell the adapter's share from the engine's.
///
/// One op is one link. Measured copies of Vow from before VowNIO have only the `nio` side
/// (`available` is false).
public enum NIODispatcherChain {
    public static let name = "nio-dispatcher-chain"

    public enum Side: String, CaseIterable, Sendable {
        case nio = "nio future chain"
        case vowDispatcher = "Vow on EventLoopDispatcher"
        case vowInline = "Vow .inline on the loop"
    }

    /// Links per trial at `scale` (20 chains of 1,000 at scale 1).
    public static func ops(scale: Double) -> Int {
        Swift.max(1, Int(20 * scale)) * 1_000
    }

    /// True when the measured Vow has VowNIO.
    #if VOW_NIO
    public static let available = true

    /// One dispatcher for the loop, made once (making one registers a timer with the loop).
    static let dispatcher: any Dispatcher = EventLoopDispatcher(NIOWorkloads.group.next())
    #else
    public static let available = false
    #endif

    public static func trial(_ side: Side, scale: Double = 1) throws(Skip) -> Trial {
        let loop = NIOWorkloads.group.next()
        let chains = ops(scale: scale) / 1_000
        var total = 0
        let run: () -> Void
        switch side {
        case .nio:
            run = {
                for _ in 0..<chains {
                    let end = try! loop.submit { () -> EventLoopFuture<Int> in
                        var future = loop.makeSucceededFuture(0)
                        for _ in 0..<1_000 { future = future.map { $0 + 1 } }
                        return future
                    }.wait()
                    total += try! end.wait()
                }
            }
        case .vowDispatcher, .vowInline:
            #if VOW_NIO
            let on: any Dispatcher = side == .vowInline ? .inline : dispatcher
            #else
            guard side == .vowInline else { throw .noNIOBridge }
            let on: any Dispatcher = .inline
            #endif
            run = {
                for _ in 0..<chains {
                    let end = try! loop.submit { () -> Promise<Int> in
                        var promise = Promise.value(0)
                        for _ in 0..<1_000 { promise = promise.then(on: on) { $0 + 1 } }
                        return promise
                    }.wait()
                    total += (try? end.wait()) ?? -1
                }
            }
        }
        return Trial(run: run, finish: {
            expect(total, chains * 1_000, "sum of chain ends")
        })
    }
}
