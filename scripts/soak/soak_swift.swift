// The Swift half of the soak (see scripts/soak.sh): one call runs one worker thread's
// loop through Vow's Swift API until its time is up, then drains and reports its counts.
import Dispatch
import Synchronization
import Vow

/// Counters shared by a worker and the callbacks it registers.
private final class Counters: Sendable {
    let finallies = Atomic<Int64>(0)
    let cancelHandlers = Atomic<Int64>(0)
    let settledByProducer = Atomic<Int64>(0)
}

/// Indexes into the stats array handed in by soak.c (keep in step with SWIFT_* there).
private enum Stat: Int {
    case units = 0, fulfilled, rejected, thrown, cancelRequested, cancelObserved, unhandled,
         finallies, wrong, cancelHandlers, settledByProducer, count
}

private struct Failure: Error {}

/// What one unit of work does (the same kinds as the C workers).
private enum Kind: Int {
    case fulfill = 0, reject, throwInThen, cancel, unhandled
}

/// A small deterministic generator (xorshift), so runs differ by seed only.
private struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

/// One unit still in flight: its end promise and what it should end as.
private struct InFlight {
    let end: Promise<Int>
    let kind: Kind
}

/// Runs until `seconds` have passed, then drains. Returns 0, or 1 if a unit ended wrongly
/// or never settled (also counted in stats[wrong]).
@_cdecl("soak_swift_worker")
public func soakSwiftWorker(_ seconds: Double, _ seed: UInt64, _ stats: UnsafeMutablePointer<Int64>) -> Int32 {
    let counters = Counters()
    let settler = DispatchQueue(label: "soak.swift.settler")
    var random = Random(state: seed | 1)
    var window: [InFlight] = []
    var local = [Int64](repeating: 0, count: Stat.count.rawValue)
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    let windowSize = 64

    func check(_ unit: InFlight) {
        // A bounded wait: a unit that does not settle in 30 s is a failure, not a hang.
        // The observer runs inline where the unit settles (no trip through the queue).
        let done = DispatchSemaphore(value: 0)
        unit.end.catch(on: .inline, policy: .allErrors) { _ in }.finally(on: .inline) { done.signal() }
        guard done.wait(timeout: .now() + 30) == .success else {
            local[Stat.wrong.rawValue] += 1
            return
        }
        do {
            let value = try unit.end.wait()
            if unit.kind == .fulfill || unit.kind == .cancel {
                if value != 2 { local[Stat.wrong.rawValue] += 1 }
            } else if value != -1 {
                local[Stat.wrong.rawValue] += 1
            }
        } catch {
            if unit.kind == .cancel && isCancellation(error) {
                local[Stat.cancelObserved.rawValue] += 1
            } else {
                local[Stat.wrong.rawValue] += 1
            }
        }
    }

    while DispatchTime.now().uptimeNanoseconds < deadline {
        let kind = Kind(rawValue: Int(random.next() % 5))!
        local[Stat.units.rawValue] += 1
        let (head, resolver) = Promise<Int>.pending()
        if kind == .unhandled {
            // Nobody handles this rejection: the end of the chain reports it once.
            local[Stat.unhandled.rawValue] += 1
            _ = head.then { $0 + 1 }
            settler.async {
                resolver.reject(VowError(domain: "soak.unhandled", code: 2, message: "deliberately unhandled (Swift)"))
            }
            continue
        }
        resolver.onCancel { counters.cancelHandlers.add(1, ordering: .relaxed) }
        let thrown = kind == .throwInThen
        let end = head
            .then { value -> Int in
                if thrown { throw VowError(domain: "soak.handled", code: 1, message: "thrown in then") }
                return value + 1
            }
            .recover { error -> Int in
                if isCancellation(error) { throw error }
                return -1
            }
            .finally { counters.finallies.add(1, ordering: .relaxed) }
        switch kind {
        case .fulfill, .throwInThen, .cancel:
            local[kind == .throwInThen ? Stat.thrown.rawValue : Stat.fulfilled.rawValue] += 1
            settler.async {
                if resolver.isPending { counters.settledByProducer.add(1, ordering: .relaxed) }
                resolver.fulfill(1)
            }
        case .reject:
            local[Stat.rejected.rawValue] += 1
            settler.async {
                resolver.reject(VowError(domain: "soak.handled", code: 3, message: "rejected by the producer"))
            }
        case .unhandled:
            break
        }
        if kind == .cancel {
            local[Stat.cancelRequested.rawValue] += 1
            end.cancel()
        }
        window.append(InFlight(end: end, kind: kind))
        if window.count >= windowSize {
            for unit in window { check(unit) }
            window.removeAll(keepingCapacity: true)
        }
    }
    for unit in window { check(unit) }
    settler.sync {}
    local[Stat.finallies.rawValue] = counters.finallies.load(ordering: .relaxed)
    local[Stat.cancelHandlers.rawValue] = counters.cancelHandlers.load(ordering: .relaxed)
    local[Stat.settledByProducer.rawValue] = counters.settledByProducer.load(ordering: .relaxed)
    for index in 0..<Stat.count.rawValue { stats[index] = local[index] }
    return local[Stat.wrong.rawValue] == 0 ? 0 : 1
}
