// The Swift half of the allocation check (see scripts/check-allocations.sh): builds and
// waits one chain of `then` links through Vow's Swift API, callable from C.
import Vow

/// Builds a chain of `n` links `then { $0 + 1 }` and waits for its end; returns the end
/// value (n) or -1 if the wait failed.
///
/// mode 0: the head is already fulfilled, callbacks on `.default` (links start running on
///         the serial queue while the chain is still being built);
/// mode 1: the head is pending while the chain is built, then fulfilled (`.default`);
/// mode 2: the head is already fulfilled, callbacks on `.inline`.
@_cdecl("vow_alloc_swift_links")
public func vowAllocSwiftLinks(_ n: Int, _ mode: Int32) -> Int {
    let dispatcher: any Dispatcher = mode == 2 ? .inline : .default
    let (head, resolver) = Promise<Int>.pending()
    if mode != 1 { resolver.fulfill(0) }
    var last = head
    for _ in 0..<n { last = last.then(on: dispatcher) { $0 + 1 } }
    if mode == 1 { resolver.fulfill(0) }
    return (try? last.wait()) ?? -1
}
