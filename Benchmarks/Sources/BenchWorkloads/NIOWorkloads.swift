import Dispatch
import NIOCore
import NIOEmbedded
import NIOPosix

/// The workloads on swift-nio's `EventLoopPromise`/`EventLoopFuture`.
///
/// Embedded: an `EmbeddedEventLoop`, callbacks run inline on this thread. Loop: a real
/// `MultiThreadedEventLoopGroup(numberOfThreads: 1)`; the work runs on the loop (as NIO
/// code does), the benchmark thread waits off-loop with `.wait()`. The hop workload is
/// NIO's cross-thread case: promises made on the loop, `succeed` called from another
/// thread, so each completion is carried to the loop by `execute`.
enum NIOWorkloads {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    static func trial(_ workload: Workload, embedded: Bool, ops: Int) throws(Skip) -> Trial {
        if embedded {
            return try embeddedTrial(workload, ops: ops)
        }
        return try loopTrial(workload, loop: group.next(), ops: ops)
    }

    // MARK: Embedded loop

    private static func embeddedTrial(_ workload: Workload, ops: Int) throws(Skip) -> Trial {
        let loop = EmbeddedEventLoop()
        switch workload {
        case .createThenResolve:
            var last: EventLoopFuture<Int>?
            return Trial(run: {
                for _ in 0..<ops {
                    let promise = loop.makePromise(of: Int.self)
                    last = promise.futureResult.map { $0 + 1 }
                    promise.succeed(1)
                }
            }, finish: {
                expect(value(of: last!), 2, "last handler's value")
            })

        case .chain1k:
            let chains = Swift.max(1, ops / 1_000)
            var total = 0
            return Trial(run: {
                for _ in 0..<chains {
                    var future = loop.makeSucceededFuture(0)
                    for _ in 0..<1_000 { future = future.map { $0 + 1 } }
                    total += value(of: future)
                }
            }, finish: {
                expect(total, chains * 1_000, "sum of chain ends")
            })

        case .fanIn:
            var result = 0
            return Trial(run: {
                var futures: [EventLoopFuture<Int>] = []
                futures.reserveCapacity(ops)
                for _ in 0..<ops { futures.append(loop.makeSucceededFuture(1)) }
                result = value(of: EventLoopFuture.whenAllSucceed(futures, on: loop).map(\.count))
            }, finish: {
                expect(result, ops, "values in the fan-in")
            })

        case .fanInPending:
            var result = 0
            return Trial(run: {
                var promises: [EventLoopPromise<Int>] = []
                promises.reserveCapacity(ops)
                for _ in 0..<ops { promises.append(loop.makePromise(of: Int.self)) }
                let all = EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop).map(\.count)
                for promise in promises { promise.succeed(1) }
                result = value(of: all)
            }, finish: {
                expect(result, ops, "values in the fan-in")
            })

        case .deepChain:
            var result = 0
            return Trial(run: {
                let head = loop.makePromise(of: Int.self)
                var last = head.futureResult
                for _ in 0..<ops { last = last.map { $0 + 1 } }
                head.succeed(0)
                result = value(of: last)
            }, finish: {
                expect(result, ops, "chain end")
            })

        case .hop:
            throw .notApplicable
        }
    }

    /// The value of a future on the embedded loop, which completes synchronously.
    private static func value(of future: EventLoopFuture<Int>) -> Int {
        let slot = Slot()
        future.whenSuccess { slot.value = $0 }
        return slot.value
    }

    // MARK: Real loop

    private static func loopTrial(_ workload: Workload, loop: any EventLoop, ops: Int) throws(Skip) -> Trial {
        switch workload {
        case .createThenResolve:
            var result = 0
            return Trial(run: {
                let last = try! loop.submit { () -> EventLoopFuture<Int> in
                    var last: EventLoopFuture<Int>?
                    for _ in 0..<ops {
                        let promise = loop.makePromise(of: Int.self)
                        last = promise.futureResult.map { $0 + 1 }
                        promise.succeed(1)
                    }
                    return last!
                }.wait()
                result = try! last.wait()
            }, finish: {
                expect(result, 2, "last handler's value")
            })

        case .chain1k:
            let chains = Swift.max(1, ops / 1_000)
            var total = 0
            return Trial(run: {
                for _ in 0..<chains {
                    let end = try! loop.submit { () -> EventLoopFuture<Int> in
                        var future = loop.makeSucceededFuture(0)
                        for _ in 0..<1_000 { future = future.map { $0 + 1 } }
                        return future
                    }.wait()
                    total += try! end.wait()
                }
            }, finish: {
                expect(total, chains * 1_000, "sum of chain ends")
            })

        case .fanIn:
            var result = 0
            return Trial(run: {
                let all = try! loop.submit { () -> EventLoopFuture<[Int]> in
                    var futures: [EventLoopFuture<Int>] = []
                    futures.reserveCapacity(ops)
                    for _ in 0..<ops { futures.append(loop.makeSucceededFuture(1)) }
                    return EventLoopFuture.whenAllSucceed(futures, on: loop)
                }.wait()
                result = try! all.wait().count
            }, finish: {
                expect(result, ops, "values in the fan-in")
            })

        case .fanInPending:
            var result = 0
            return Trial(run: {
                let all = try! loop.submit { () -> EventLoopFuture<[Int]> in
                    var promises: [EventLoopPromise<Int>] = []
                    promises.reserveCapacity(ops)
                    for _ in 0..<ops { promises.append(loop.makePromise(of: Int.self)) }
                    let all = EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop)
                    for promise in promises { promise.succeed(1) }
                    return all
                }.wait()
                result = try! all.wait().count
            }, finish: {
                expect(result, ops, "values in the fan-in")
            })

        case .deepChain:
            var result = 0
            return Trial(run: {
                let end = try! loop.submit { () -> EventLoopFuture<Int> in
                    let head = loop.makePromise(of: Int.self)
                    var last = head.futureResult
                    for _ in 0..<ops { last = last.map { $0 + 1 } }
                    head.succeed(0)
                    return last
                }.wait()
                result = try! end.wait()
            }, finish: {
                expect(result, ops, "chain end")
            })

        case .hop:
            let made = try! loop.submit { () -> HopSet in
                var promises: [EventLoopPromise<Int>] = []
                var ends: [EventLoopFuture<Int>] = []
                promises.reserveCapacity(ops)
                ends.reserveCapacity(ops)
                for _ in 0..<ops {
                    let promise = loop.makePromise(of: Int.self)
                    promises.append(promise)
                    ends.append(promise.futureResult.map { $0 + 1 })
                }
                return HopSet(promises: promises, ends: ends)
            }.wait()
            var result = 0
            return Trial(run: {
                let thread = DispatchQueue(label: "bench.resolver")
                thread.async { for promise in made.promises { promise.succeed(1) } }
                result = try! made.ends.last!.wait()
            }, finish: {
                expect(result, 2, "last handler's value")
            })
        }
    }
}

/// The promises of a hop trial and the futures their handlers complete.
struct HopSet: Sendable {
    let promises: [EventLoopPromise<Int>]
    let ends: [EventLoopFuture<Int>]
}

/// A result slot written by a callback that runs inline on the same thread.
final class Slot: @unchecked Sendable {
    // @unchecked: written and read on one thread (EmbeddedEventLoop runs callbacks inline).
    var value = -1
}
