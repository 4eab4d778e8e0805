// The ordo-one/benchmark suite: every workload of BenchWorkloads on every implementation,
// with wall time and malloc counts, plus the memory held by a pending promise.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
//   swift package benchmark --filter "chain-1k.*"        (one workload)
//
// Names read "<workload> <implementation>". Results are per op: the trial sizes are
// chosen to equal the scaling factor (1,000 ops under .kilo, 1,000,000 under .mega), and
// a fan-in is one op of 10,000 inputs. The one table with ratios is BenchSummary's
// (see README.md).

import Benchmark
import BenchWorkloads

/// Trial size for this suite, as a fraction of the workload's default size, and the
/// matching scaling factor.
private func sizing(_ workload: Workload) -> (scale: Double, factor: BenchmarkScalingFactor, iterations: Int) {
    switch workload {
    case .createThenResolve: return (0.1, .kilo, 2_000)      // 1,000 ops
    case .chain1k: return (0.05, .kilo, 2_000)               // one chain of 1,000
    case .fanIn, .fanInPending: return (1, .one, 200)        // one fan-in of 10,000
    case .deepChain: return (1, .mega, 7)                    // 1,000,000 links
    case .hop: return (0.1, .kilo, 2_000)                    // 1,000 ops
    }
}

let benchmarks: @Sendable () -> Void = {
    for workload in Workload.allCases {
        let (scale, factor, iterations) = sizing(workload)
        for impl in Impl.allCases {
            // Combinations that do not exist (or crash, like the recursive box on a deep
            // chain) are left out.
            if skipReason(workload, impl) != nil { continue }
            Benchmark("\(workload.rawValue) \(impl.rawValue)",
                      configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                           warmupIterations: 1,
                                           scalingFactor: factor,
                                           maxDuration: .seconds(2),
                                           maxIterations: iterations)) { benchmark in
                guard let trial = try? makeTrial(workload, impl, scale: scale) else { return }
                benchmark.startMeasurement()
                trial.run()
                benchmark.stopMeasurement()
                if let problem = trial.finish() { fatalError(problem) }
            }
        }
    }

    // Vow on a swift-nio loop through VowNIO's EventLoopDispatcher, beside NIO's own chain
    // on the same loop: one chain of 1,000 links per iteration.
    for side in NIODispatcherChain.Side.allCases {
        Benchmark("\(NIODispatcherChain.name) \(side.rawValue)",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                       warmupIterations: 1,
                                       scalingFactor: .kilo,
                                       maxDuration: .seconds(2),
                                       maxIterations: 2_000)) { benchmark in
            guard let trial = try? NIODispatcherChain.trial(side, scale: 0.05) else { return }
            benchmark.startMeasurement()
            trial.run()
            benchmark.stopMeasurement()
            if let problem = trial.finish() { fatalError(problem) }
        }
    }

    // Bytes and allocations held by one pending promise with one handler attached.
    for impl in [Impl.boxInline, .nioEmbedded, .vowDefault, .cDefault] {
        Benchmark("pending-memory \(impl.rawValue)",
                  configuration: .init(metrics: [.custom("bytes per pending promise")],
                                       warmupIterations: 0, maxIterations: 3)) { benchmark in
            guard let figure = try? measurePendingMemory(impl, count: 100_000, allocations: nil) else { return }
            benchmark.measurement(.custom("bytes per pending promise"), Int(figure.bytes.rounded()))
        }
    }
}
