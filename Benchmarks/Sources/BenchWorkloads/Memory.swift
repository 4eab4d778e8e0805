import CVowBench
import NIOCore
import NIOEmbedded
import Vow

/// Memory held by one pending promise with one handler attached (the promise, its
/// resolver where the library has one, the handler's closure and the derived promise),
/// from the malloc heap's growth while `count` of them are made (mallinfo2), and the
/// allocations counted meanwhile when a counter is given.
public struct MemoryFigure: Sendable {
    public let bytes: Double
    public let allocations: Double?
}

/// Allocation counter of the running process (the runner installs one), C-callable so the
/// C workloads can read it too.
public typealias AllocationCounter = @convention(c) () -> Int

/// Measures `impl` (one row per library: the mode does not change what a pending promise
/// holds, so only `.boxInline`, `.nioEmbedded`, `.vowDefault` and `.cDefault` are measured).
public func measurePendingMemory(_ impl: Impl, count: Int,
                                 allocations counter: AllocationCounter?) throws(Skip) -> MemoryFigure {
    var bytes = 0
    var allocations = -1
    func measure(_ make: () -> Void) {
        let heap = cvb_heap_in_use()
        let before = counter?() ?? 0
        make()
        allocations = counter.map { $0() - before } ?? -1
        bytes = cvb_heap_in_use() - heap
    }
    switch impl {
    case .boxInline:
        var boxes: [Box] = []
        boxes.reserveCapacity(count)
        measure {
            for _ in 0..<count {
                let box = Box(queue: nil)
                _ = box.then { $0 + 1 }
                boxes.append(box)
            }
        }
        for box in boxes { box.resolve(1) }

    case .nioEmbedded:
        let loop = EmbeddedEventLoop()
        var promises: [EventLoopPromise<Int>] = []
        promises.reserveCapacity(count)
        measure {
            for _ in 0..<count {
                let promise = loop.makePromise(of: Int.self)
                _ = promise.futureResult.map { $0 + 1 }
                promises.append(promise)
            }
        }
        for promise in promises { promise.succeed(1) }

    case .vowDefault:
        var resolvers: [Resolver<Int>] = []
        var promises: [Promise<Int>] = []
        resolvers.reserveCapacity(count)
        promises.reserveCapacity(count)
        measure {
            for _ in 0..<count {
                let (promise, resolver) = Promise<Int>.pending()
                promises.append(promise.then { $0 + 1 })
                resolvers.append(resolver)
            }
        }
        for resolver in resolvers { resolver.fulfill(1) }
        _ = try? promises.last?.wait()

    case .cDefault:
        guard CWorkloads.available else { throw .noCInterface }
        var cBytes = 0
        var cAllocations = -1
        let batch = cvb_pending_batch_new(count, 0, counter, &cBytes, &cAllocations)
        cvb_pending_batch_free(batch)
        bytes = cBytes
        allocations = cAllocations

    default:
        throw .notApplicable
    }
    return MemoryFigure(bytes: Double(bytes) / Double(count),
                        allocations: allocations < 0 ? nil : Double(allocations) / Double(count))
}
