// The Swift half of the loop check (see scripts/check-allocations.sh): a loop whose every
// step returns the next step's promise, callable from C.
import Vow

/// `step(k)` is `Promise.value(k).then { step($0 - 1) }`, and step 0 is `.value(0)`: the
/// loop of issue 15, which the engine runs in constant memory by collapsing adoptions.
private func step(_ k: Int) -> Promise<Int> {
    k == 0 ? .value(0) : Promise.value(k).then { step($0 - 1) }
}

/// Runs `n` steps and waits for the outermost promise; returns its value (0) or -1.
@_cdecl("vow_alloc_swift_loop")
public func vowAllocSwiftLoop(_ n: Int) -> Int {
    (try? step(n).wait()) ?? -1
}
