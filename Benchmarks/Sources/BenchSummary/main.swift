// BenchSummary: every workload on every implementation, timed with ContinuousClock
// (median of N runs, default 7), allocations counted process-wide, printed as one set of
// Markdown tables with Vow's ratios to swift-nio and to the bare box.
//
//   swift run -c release BenchSummary [--runs N] [--scale X] [--only WORKLOAD,...]
//
// Under callgrind (`summary.sh --callgrind` runs `valgrind --tool=callgrind
// --callgrind-out-file=DIR/cg.out BenchSummary --callgrind DIR ...`), each cell is instead
// the instructions per op of one run (after a warm-up run), counted over every thread:
// figures that do not move with the load of the machine. Threads are serialized there,
// so contention costs are not measured.
//
// Exits 1 if any trial produced a wrong result.

import BenchWorkloads
import CAllocCounter

#if canImport(Glibc)
import Glibc
#endif

var runs = 7
var scale = 1.0
var only: Set<String>? = nil
var callgrindDirectory: String? = nil
var dumps = 0
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs": runs = Int(arguments.popFirst() ?? "") ?? runs
    case "--scale": scale = Double(arguments.popFirst() ?? "") ?? scale
    case "--only": only = Set((arguments.popFirst() ?? "").split(separator: ",").map(String.init))
    case "--callgrind": callgrindDirectory = arguments.popFirst()
    default:
        let names = Workload.allCases.map(\.rawValue) + [NIODispatcherChain.name, AdoptionLoop.name]
            + ServerWorkload.allCases.map(\.rawValue) + ["memory"]
        print("usage: BenchSummary [--runs N] [--scale X] [--callgrind DIR] [--only \(names.joined(separator: ","))]")
        exit(2)
    }
}

/// One cell: median and best time per op, median allocations per op, or why it was not
/// measured.
enum Cell {
    case measured(median: Double, best: Double, allocationsPerOp: Double)
    case skipped(String)

    var median: Double? {
        if case .measured(let median, _, _) = self { return median }
        return nil
    }

    var best: Double? {
        if case .measured(_, let best, _) = self { return best }
        return nil
    }
}

var failures: [String] = []

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

/// Runs one trial of `workload` on `impl`; returns (ns per op, allocations per op), or
/// why it cannot run.
@MainActor
func runOnce(_ workload: Workload, _ impl: Impl) -> Result<(Double, Double), Skip> {
    let trial: Trial
    do { trial = try makeTrial(workload, impl, scale: scale) } catch { return .failure(error) }
    return .success(run(trial, ops: Double(workload.ops(scale: scale)), "\(workload.rawValue) on \(impl.rawValue)"))
}

/// Times `trial` (or counts its instructions under callgrind); returns (ns or instructions
/// per op, allocations per op). A wrong result is recorded under `label`.
@MainActor
func run(_ trial: Trial, ops: Double, _ label: String) -> (Double, Double) {
    let clock = ContinuousClock()
    let allocationsBefore = alloc_counter_total()
    if callgrindDirectory != nil { bench_callgrind_zero() }
    let start = clock.now
    trial.run()
    let elapsed = clock.now - start
    if callgrindDirectory != nil { bench_callgrind_dump() }
    let allocated = alloc_counter_total() - allocationsBefore
    if let problem = trial.finish() { failures.append("\(label): \(problem)") }
    if let directory = callgrindDirectory {
        dumps += 1
        let instructions = callgrindTotal("\(directory)/cg.out.\(dumps)") ?? .nan
        return (instructions / ops, Double(allocated) / ops)
    }
    return (nanoseconds(elapsed) / ops, Double(allocated) / ops)
}

/// The instruction total of a callgrind dump (its "totals:" or "summary:" line).
func callgrindTotal(_ path: String) -> Double? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>? = nil
    var capacity = 0
    defer { free(line) }
    var total: Double? = nil
    while getline(&line, &capacity, file) > 0 {
        let text = String(cString: line!)
        for prefix in ["totals: ", "summary: "] where text.hasPrefix(prefix) {
            let number = text.dropFirst(prefix.count).prefix { $0.isNumber }
            total = Double(number)
        }
    }
    return total
}

/// Measures every implementation on `workload`: one warm-up round, then `runs` rounds.
/// Each round runs every implementation once, so a burst of load from elsewhere on the
/// machine hits all of them rather than one cell. Allocations are counted in every
/// measured run, process-wide (the dispatcher threads' allocations count too).
@MainActor
func measure(_ workload: Workload) -> [Impl: Cell] {
    var times: [Impl: [Double]] = [:]
    var allocations: [Impl: [Double]] = [:]
    var skipped: [Impl: String] = [:]
    for round in 0...runs {
        for impl in Impl.allCases where skipped[impl] == nil {
            switch runOnce(workload, impl) {
            case .failure(let why):
                skipped[impl] = why.description
            case .success(let (ns, allocated)):
                if round == 0 { continue }
                times[impl, default: []].append(ns)
                allocations[impl, default: []].append(allocated)
            }
        }
    }
    var row: [Impl: Cell] = [:]
    for impl in Impl.allCases {
        if let why = skipped[impl] {
            row[impl] = .skipped(why)
            continue
        }
        let sortedTimes = times[impl]!.sorted()
        let sortedAllocations = allocations[impl]!.sorted()
        row[impl] = .measured(median: sortedTimes[sortedTimes.count / 2], best: sortedTimes[0],
                              allocationsPerOp: sortedAllocations[sortedAllocations.count / 2])
    }
    return row
}

func format(_ value: Double?, digits: Int = 0) -> String {
    guard let value else { return "—" }
    // A cell whose measurement failed (0 ops, a missing callgrind dump) reads "n/m", not a trap.
    guard value.isFinite else { return "n/m" }
    if digits == 0 { return String(Int(value.rounded())) }
    let scaled = (value * pow10(digits)).rounded() / pow10(digits)
    return "\(scaled)"
}

func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { acc, _ in acc * 10 } }

func ratio(_ a: Double?, _ b: Double?) -> String {
    guard let a, let b, b > 0 else { return "—" }
    return format(a / b, digits: 2) + "x"
}

let workloads = Workload.allCases.filter { only == nil || only!.contains($0.rawValue) }
var results: [Workload: [Impl: Cell]] = [:]
for workload in workloads {
    results[workload] = measure(workload)
}

if !workloads.isEmpty {
    if callgrindDirectory != nil {
        print("Instructions per op (callgrind, every thread, one run after a warm-up; scale \(scale)); in parentheses, allocations per op.\n")
    } else {
        print("Times: median of \(runs) runs, ns per op (scale \(scale)); in parentheses, allocations per op (median).\n")
    }
    print("| workload | \(callgrindDirectory != nil ? "per" : "unit") | " + Impl.allCases.map(\.rawValue).joined(separator: " | ") + " |")
    print("|---|---|" + Impl.allCases.map { _ in "---:" }.joined(separator: "|") + "|")
    for workload in workloads {
        let cells = Impl.allCases.map { impl -> String in
            switch results[workload]![impl]! {
            case .measured(let median, _, let allocations):
                return "\(format(median)) (\(format(allocations, digits: 1)))"
            case .skipped(let why):
                return why
            }
        }
        let unit = callgrindDirectory != nil ? String(workload.unit.split(separator: "/").last!) : workload.unit
        print("| \(workload.rawValue) | \(unit) | " + cells.joined(separator: " | ") + " |")
    }

    print("\nRatios below 1.00x: Vow is faster. Inline modes against inline modes, queued against queued.")
    let pairs: [(String, Impl, Impl)] = [
        ("Vow .default / nio loop", .vowDefault, .nioLoop),
        ("Vow .inline / nio embedded", .vowInline, .nioEmbedded),
        ("Vow .default / box queue", .vowDefault, .boxQueue),
        ("Vow .inline / box inline", .vowInline, .boxInline),
        ("C default / Vow .default", .cDefault, .vowDefault),
        ("C inline / Vow .inline", .cInline, .vowInline),
    ]
    let ratioTables = callgrindDirectory != nil ? [("instruction counts", \Cell.median)]
        : [("medians", \Cell.median), ("best of \(runs) runs", \Cell.best)]
    for (title, pick) in ratioTables {
        print("\nRatios of \(title):\n")
        print("| workload | " + pairs.map(\.0).joined(separator: " | ") + " |")
        print("|---|" + pairs.map { _ in "---:" }.joined(separator: "|") + "|")
        for workload in workloads {
            let row = results[workload]!
            let cells = pairs.map { ratio(row[$0.1]![keyPath: pick], row[$0.2]![keyPath: pick]) }
            print("| \(workload.rawValue) | " + cells.joined(separator: " | ") + " |")
        }
    }
}

/// The median of the rounds' figures (nil when there are none); for the per-row tables below.
func median(_ values: [Double]?) -> Double? {
    guard let values, !values.isEmpty else { return nil }
    return values.sorted()[values.count / 2]
}

// Vow's callbacks on a swift-nio loop (VowNIO's EventLoopDispatcher) next to NIO's own
// future chain on the same loop; both chains are built and run on the loop thread.
if only == nil || only!.contains(NIODispatcherChain.name) {
    let sides = NIODispatcherChain.Side.allCases
    var perLink: [NIODispatcherChain.Side: [Double]] = [:]
    var allocations: [NIODispatcherChain.Side: [Double]] = [:]
    var skipped: [NIODispatcherChain.Side: String] = [:]
    let ops = Double(NIODispatcherChain.ops(scale: scale))
    for round in 0...runs {
        for side in sides where skipped[side] == nil {
            do {
                let trial = try NIODispatcherChain.trial(side, scale: scale)
                let (figure, allocated) = run(trial, ops: ops, "\(NIODispatcherChain.name) \(side.rawValue)")
                if round == 0 { continue }
                perLink[side, default: []].append(figure)
                allocations[side, default: []].append(allocated)
            } catch {
                skipped[side] = error.description
            }
        }
    }
    let unit = callgrindDirectory != nil ? "instructions per link" : "ns per link (median of \(runs))"
    print("\n\(NIODispatcherChain.name): chains of 1,000 links whose callbacks run on one swift-nio loop (built and run on the loop). \(unit); in parentheses, allocations per link.\n")
    print("| \(NIODispatcherChain.name) | per link | allocations |")
    print("|---|---:|---:|")
    for side in sides {
        if let why = skipped[side] {
            print("| \(side.rawValue) | \(why) | |")
        } else {
            print("| \(side.rawValue) | \(format(median(perLink[side]))) | \(format(median(allocations[side]), digits: 1)) |")
        }
    }
    let nio = median(perLink[.nio])
    let dispatcher = median(perLink[.vowDispatcher])
    let inline = median(perLink[.vowInline])
    print("\n| ratio | value |")
    print("|---|---:|")
    print("| Vow on EventLoopDispatcher / nio future chain (target: at most 1.2x) | \(ratio(dispatcher, nio)) |")
    print("| Vow .inline on the loop / nio future chain (the engine alone) | \(ratio(inline, nio)) |")
    print("| Vow on EventLoopDispatcher / Vow .inline on the loop (the dispatcher's share) | \(ratio(dispatcher, inline)) |")
}

// A loop whose every step returns the next step's promise (issue 15): Vow, Vow's C
// interface and swift-nio's flatMap recursion; the memory the loop holds per step,
// measured apart (the heap, so not under callgrind, whose allocator it cannot see).
if only == nil || only!.contains(AdoptionLoop.name) {
    let sides = AdoptionLoop.Side.allCases
    var perStep: [AdoptionLoop.Side: [Double]] = [:]
    var allocations: [AdoptionLoop.Side: [Double]] = [:]
    var skipped: [AdoptionLoop.Side: String] = [:]
    let ops = AdoptionLoop.ops(scale: scale)
    for round in 0...runs {
        for side in sides where skipped[side] == nil {
            do {
                let trial = try AdoptionLoop.trial(side, scale: scale)
                let (figure, allocated) = run(trial, ops: Double(ops), "\(AdoptionLoop.name) \(side.rawValue)")
                if round == 0 { continue }
                perStep[side, default: []].append(figure)
                allocations[side, default: []].append(allocated)
            } catch {
                skipped[side] = error.description
            }
        }
    }
    let unit = callgrindDirectory != nil ? "instructions per step" : "ns per step (median of \(runs))"
    print("\n\(AdoptionLoop.name): a loop of \(ops) steps, each returning the next step's promise (Vow: `value(k).then { step(k - 1) }`; nio: `makeSucceededFuture(k).flatMap { step($0 - 1) }` on an EmbeddedEventLoop). \(unit); allocations per step; heap bytes the loop holds per step once it reached its last step\(callgrindDirectory != nil ? " (not measured under callgrind)" : "").\n")
    print("| \(AdoptionLoop.name) | per step | allocations | bytes held per step |")
    print("|---|---:|---:|---:|")
    for side in sides {
        if let why = skipped[side] {
            print("| \(side.rawValue) | \(why) | | |")
            continue
        }
        var bytes = "—"
        if callgrindDirectory == nil, let figure = try? AdoptionLoop.bytesPerStep(side, steps: ops) {
            bytes = figure.isNaN ? "wrong result" : format(figure, digits: 1)
            if figure.isNaN { failures.append("\(AdoptionLoop.name) \(side.rawValue): memory run gave a wrong result") }
        }
        print("| \(side.rawValue) | \(format(median(perStep[side]))) | \(format(median(allocations[side]), digits: 1)) | \(bytes) |")
    }
    let nio = median(perStep[.nio])
    print("\n| ratio | value |")
    print("|---|---:|")
    print("| Vow .default / nio embedded flatMap | \(ratio(median(perStep[.vow]), nio)) |")
    print("| Vow C default / nio embedded flatMap | \(ratio(median(perStep[.c]), nio)) |")
}

// Bluebird's server benchmarks (doxbee, parallel): each program, per request; the memory
// they hold is measured apart, by ServerMemory (summary.sh runs it next).
let serverWorkloads = ServerWorkload.allCases.filter { only == nil || only!.contains($0.rawValue) }
if !serverWorkloads.isEmpty {
    var perRequest: [ServerWorkload: [ServerSide: Double]] = [:]
    var cells: [ServerWorkload: [String]] = [:]
    for workload in serverWorkloads {
        var figures: [ServerSide: [Double]] = [:]
        var allocations: [ServerSide: [Double]] = [:]
        var skipped: [ServerSide: String] = [:]
        let requests = Double(workload.requests(scale: scale))
        // Under callgrind too, the median of 3 runs: how much work malloc does depends on
        // the state of its heap, which the runs before leave a little different.
        for round in 0...Swift.max(runs, 3) {
            for side in ServerSide.allCases where skipped[side] == nil {
                do {
                    let trial = try makeServerTrial(workload, side, scale: scale)
                    let (figure, allocated) = run(trial, ops: requests, "\(workload.rawValue) \(side.rawValue)")
                    if round == 0 { continue }
                    figures[side, default: []].append(figure)
                    allocations[side, default: []].append(allocated)
                } catch {
                    skipped[side] = error.description
                }
            }
        }
        for side in ServerSide.allCases {
            if let why = skipped[side] {
                cells[workload, default: []].append(why)
            } else {
                perRequest[workload, default: [:]][side] = median(figures[side])
                cells[workload, default: []].append("\(format(median(figures[side]))) (\(format(median(allocations[side]), digits: 1)))")
            }
        }
    }
    let unit = callgrindDirectory != nil ? "instructions per request" : "ns per request (median of \(runs))"
    print("\nServer workloads (Bluebird's doxbee and parallel, \(ServerWorkload.doxbee.requests(scale: scale)) requests in flight): \(unit); in parallel, allocations per request.\n")
    print("| workload | " + ServerSide.allCases.map(\.rawValue).joined(separator: " | ") + " |")
    print("|---|" + ServerSide.allCases.map { _ in "---:" }.joined(separator: "|") + "|")
    for workload in serverWorkloads {
        print("| \(workload.rawValue) | " + cells[workload]!.joined(separator: " | ") + " |")
    }
    let pairs: [(String, ServerSide, ServerSide)] = [
        ("Vow / callbacks, Swift (target: at most 1.25x)", .vow, .swiftCallbacks),
        ("Vow / callbacks, C (target: at most 1.25x)", .cVow, .cCallbacks),
        ("swift-nio / callbacks, Swift", .nio, .swiftCallbacks),
        ("Vow / swift-nio", .vow, .nio),
    ]
    print("\n| ratio | " + serverWorkloads.map(\.rawValue).joined(separator: " | ") + " |")
    print("|---|" + serverWorkloads.map { _ in "---:" }.joined(separator: "|") + "|")
    for (title, a, b) in pairs {
        print("| \(title) | " + serverWorkloads.map { ratio(perRequest[$0]?[a], perRequest[$0]?[b]) }.joined(separator: " | ") + " |")
    }
}

if only == nil || only!.contains("memory") {
    print("\nMemory per pending promise with one handler attached (100,000 made; heap growth / count).\n")
    print("| library | bytes | allocations |")
    print("|---|---:|---:|")
    for impl in [Impl.boxInline, .nioEmbedded, .vowDefault, .cDefault] {
        let name = impl == .boxInline ? "box" : impl == .nioEmbedded ? "nio" : impl.rawValue
        do {
            let figure = try measurePendingMemory(impl, count: 100_000, allocations: alloc_counter_total)
            print("| \(name) | \(format(figure.bytes)) | \(format(figure.allocations, digits: 1)) |")
        } catch {
            print("| \(name) | \(error.description) | |")
        }
    }
}

if !failures.isEmpty {
    print("\nWRONG RESULTS:")
    for failure in failures { print("  " + failure) }
    exit(1)
}
