/// Adoption: a promise that follows another (Promises/A+ 2.3.2: resolving with a promise,
/// a link whose body returned a promise, a resolver that adopted one).
///
/// The follower registers itself on the source (as an adopter: scheduled inline, it
/// settles as the source did, with the same value or error). Cycles are refused: a promise
/// that would end up waiting on itself is rejected with the cycle error.
extension Core {
    /// Makes this promise follow `source`. The caller has the right to settle this promise
    /// (it claimed the resolver, or runs the link's body). Rejects with the cycle error if
    /// `source` is this promise or waits on it. Does nothing if this promise is settled.
    @usableFromInline package final func follow(_ source: Core) {
        if source === self || source.waits(on: self) {
            reject(EngineError.cycle)
            return
        }
        var flags = lock()
        guard !flags.contains(.settled) else {
            unlock(flags)
            return
        }
        let previous = back.replaceUpstream(with: source)
        flags.insert(.adopting)
        unlock(flags)
        withExtendedLifetime(previous) {}
        source.attach(self)
    }

    /// True if this promise, or a promise it waits on through its chain of upstreams, is
    /// `target` (a walk over pending promises only, no recursion).
    @usableFromInline package final func waits(on target: Core) -> Bool {
        var current: Core = self
        while true {
            let flags = current.lock()
            let next = flags.contains(.settled) ? nil : current.back.upstream
            current.unlock(flags)
            guard let next else { return false }
            if next === target { return true }
            current = next
        }
    }

    /// A continuation attaches to a promise whose adopters were handed to its upstream
    /// (adoption collapsing): the promise registers on its upstream again now, so that it
    /// settles, and the continuation waits on it as usual.
    @usableFromInline package final func attachToForwarded(_ continuation: Continuation, countsAsHandler: Bool) {
        var flags = lock()
        flags.remove(.forwarded)
        if countsAsHandler { flags.insert(.hadHandlers) }
        let settled = flags.contains(.settled)
        let upstream = settled ? nil : back.upstream
        if !settled { handlers.append(continuation) }
        unlock(flags)
        if settled {
            continuation.schedule()
        } else if let upstream {
            upstream.attach(self)
        }
    }
}
