/// The workloads measured, and the implementations each is measured on.
///
/// A workload on one implementation is a `Trial`: `prepare` builds what must exist before
/// the clock starts (untimed), `run` is the measured part, `finish` checks the result and
/// releases everything (untimed). Both runners (the ordo-one suite and `BenchSummary`)
/// build trials here, so they measure the same code.
public enum Workload: String, CaseIterable, Sendable {
    /// Create a pending promise, attach one handler, resolve it, the handler runs.
    case createThenResolve = "create-then-resolve"
    /// 1,000 `then { $0 + 1 }` links on an already-resolved promise, waited for.
    case chain1k = "chain-1k"
    /// `when` over 10,000 resolved promises, waited for.
    case fanIn = "fan-in-10k"
    /// `when` over 10,000 pending promises, each resolved after the `when` was made,
    /// waited for: making the inputs, registering on them and settling them counts.
    case fanInPending = "fan-in-pending-10k"
    /// 1,000,000 links built on a pending promise, then the head is resolved.
    case deepChain = "deep-chain-1m"
    /// Promises whose handlers run on a serial queue, resolved from another thread.
    case hop = "cross-thread-hop"

    /// What one "op" is, for the per-op figures.
    public var unit: String {
        switch self {
        case .createThenResolve, .hop: return "ns/op"
        case .chain1k, .deepChain: return "ns/link"
        case .fanIn, .fanInPending: return "ns/input"
        }
    }

    public var title: String {
        switch self {
        case .createThenResolve: return "create → then → resolve → handler ran"
        case .chain1k: return "chain of 1,000 links on a resolved promise"
        case .fanIn: return "fan-in: when() over 10,000 resolved promises"
        case .fanInPending: return "fan-in: when() over 10,000 pending promises, then each resolved"
        case .deepChain: return "1,000,000-link chain built pending, then resolved"
        case .hop: return "cross-thread hop: resolved on thread A, handler on a serial queue"
        }
    }

    /// Ops per trial at scale 1 (the figure the time is divided by).
    public func ops(scale: Double) -> Int {
        let base: Int
        switch self {
        case .createThenResolve: base = 10_000
        case .chain1k: return Swift.max(1, Int(20 * scale)) * 1_000   // 20 chains of 1,000
        case .fanIn, .fanInPending: base = 10_000            // one fan-in of 10,000
        case .deepChain: base = 1_000_000
        case .hop: base = 10_000
        }
        return Swift.max(1, Int(Double(base) * scale))
    }
}

/// Implementations, in the two modes each library offers.
///
/// Inline modes run a callback on the thread that settles (Vow `.inline`, swift-nio's
/// EmbeddedEventLoop, the box without a queue). Queued modes run callbacks on a serial
/// queue or loop thread (Vow `.default`, a real swift-nio event loop with the work running
/// on the loop, the box with a `BoxQueue`).
public enum Impl: String, CaseIterable, Sendable {
    case boxInline = "box inline"
    case boxQueue = "box queue"
    case nioEmbedded = "nio embedded"
    case nioLoop = "nio loop"
    case vowInline = "Vow .inline"
    case vowDefault = "Vow .default"
    case cInline = "Vow C inline"
    case cDefault = "Vow C default"

    public var isC: Bool { self == .cInline || self == .cDefault }
}

/// One measurement: build with `prepare`, time `run`, check and clean up with `finish`.
public final class Trial {
    public let run: () -> Void
    /// Returns nil if the result is right, or a description of what was wrong.
    public let finish: () -> String?

    init(run: @escaping () -> Void, finish: @escaping () -> String?) {
        self.run = run
        self.finish = finish
    }
}

/// Why a combination has no trial.
public enum Skip: Error, CustomStringConvertible {
    /// Recursive by construction: a deep chain overflows the stack.
    case recursive
    /// The mode does not exist for this workload (an inline "hop"), or is the same code as
    /// the other mode (Vow's `when` takes no dispatcher).
    case notApplicable
    /// The linked libvow has no C interface.
    case noCInterface
    /// The measured Vow has no VowNIO (a copy from before it).
    case noNIOBridge

    public var description: String {
        switch self {
        case .recursive: return "stack overflow"
        case .notApplicable: return "n/a"
        case .noCInterface: return "no C API"
        case .noNIOBridge: return "no VowNIO"
        }
    }
}

/// Why `workload` cannot run on `impl`, or nil if it can. Cheap: builds nothing.
public func skipReason(_ workload: Workload, _ impl: Impl) -> Skip? {
    if impl.isC && !CWorkloads.available { return .noCInterface }
    switch (workload, impl) {
    case (.deepChain, .boxInline): return .recursive
    case (.hop, .boxInline), (.hop, .nioEmbedded), (.hop, .vowInline), (.hop, .cInline): return .notApplicable
    case (.fanIn, .vowInline), (.fanIn, .cInline), (.fanInPending, .vowInline), (.fanInPending, .cInline):
        return .notApplicable
    default: return nil
    }
}

/// Builds the trial of `workload` on `impl` (its `prepare` step runs here).
public func makeTrial(_ workload: Workload, _ impl: Impl, scale: Double = 1) throws(Skip) -> Trial {
    if let reason = skipReason(workload, impl) { throw reason }
    let ops = workload.ops(scale: scale)
    switch impl {
    case .boxInline, .boxQueue:
        return try BoxWorkloads.trial(workload, queued: impl == .boxQueue, ops: ops)
    case .nioEmbedded, .nioLoop:
        return try NIOWorkloads.trial(workload, embedded: impl == .nioEmbedded, ops: ops)
    case .vowInline, .vowDefault:
        return try VowWorkloads.trial(workload, inline: impl == .vowInline, ops: ops)
    case .cInline, .cDefault:
        return try CWorkloads.trial(workload, inline: impl == .cInline, ops: ops)
    }
}

/// Checks a result for `finish`.
@inline(__always)
func expect(_ found: Int, _ expected: Int, _ what: String) -> String? {
    found == expected ? nil : "\(what): expected \(expected), found \(found)"
}
