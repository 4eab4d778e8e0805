// ServerMemory: the peak heap bytes per request in flight of Bluebird's server benchmarks
// (BenchWorkloads/ServerWorkloads.swift), each program run on its own after a warm-up.
//
//   swift run -c release ServerMemory [--scale X]      (summary.sh runs it after BenchSummary)
//
// Linked with alloc_bytes.c (Tests/Alloc), which interposes malloc for the whole process
// and keeps the bytes in use, each block at malloc_usable_size, and their peak: the
// figure is the peak of the bytes in use while the requests run, above the bytes in use
// before they start, divided by the requests (all are started at once, so this is what a
// request in flight holds at the worst moment). Exits 1 if a run went wrong.

import BenchWorkloads
import CAllocBytes

#if canImport(Glibc)
import Glibc
#endif

var scale = 1.0
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--scale": scale = Double(arguments.popFirst() ?? "") ?? scale
    default:
        print("usage: ServerMemory [--scale X]")
        exit(2)
    }
}

var failures: [String] = []
print("\nServer workloads: peak heap bytes per request in flight (\(ServerWorkload.doxbee.requests(scale: scale)) requests at once, malloc_usable_size of every block; allocations per request in parentheses).\n")
print("| workload | " + ServerSide.allCases.map(\.rawValue).joined(separator: " | ") + " | Vow / callbacks (Swift) | Vow / callbacks (C) |")
print("|---|" + ServerSide.allCases.map { _ in "---:" }.joined(separator: "|") + "|---:|---:|")
for workload in ServerWorkload.allCases {
    var perRequest: [ServerSide: Double] = [:]
    var cells: [String] = []
    for side in ServerSide.allCases {
        do {
            // Warm-up: the loops, queues and caches a first run makes are not per request.
            let warmUp = try makeServerTrial(workload, side, scale: scale / 10)
            warmUp.run()
            if let problem = warmUp.finish() { failures.append("\(workload.rawValue) \(side.rawValue) warm-up: \(problem)") }
            let trial = try makeServerTrial(workload, side, scale: scale)
            let before = alloc_bytes_live()
            let calls = alloc_bytes_calls()
            alloc_bytes_reset_peak()
            trial.run()
            let peak = alloc_bytes_peak() - before
            let allocations = alloc_bytes_calls() - calls
            if let problem = trial.finish() { failures.append("\(workload.rawValue) \(side.rawValue): \(problem)") }
            let requests = Double(workload.requests(scale: scale))
            let bytes = Double(peak) / requests
            perRequest[side] = bytes
            cells.append("\(Int(bytes.rounded())) (\(Double(Int(Double(allocations) / requests * 10)) / 10))")
        } catch {
            cells.append(error.description)
        }
    }
    func ratio(_ a: ServerSide, _ b: ServerSide) -> String {
        guard let x = perRequest[a], let y = perRequest[b], y > 0 else { return "—" }
        return "\(Double(Int((x / y * 100).rounded())) / 100)x"
    }
    print("| \(workload.rawValue) | " + cells.joined(separator: " | ") + " | \(ratio(.vow, .swiftCallbacks)) | \(ratio(.cVow, .cCallbacks)) |")
}
if !failures.isEmpty {
    print("\nWRONG RESULTS:")
    for failure in failures { print("  " + failure) }
    exit(1)
}
