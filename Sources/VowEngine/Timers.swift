import Dispatch

/// A one-shot timer on Dispatch's global queue, cancellable.
@usableFromInline package final class OneShotTimer: @unchecked Sendable {
    // @unchecked: DispatchWorkItem is thread-safe; `item` is set once in init.
    private let item: DispatchWorkItem?

    /// Fires `body` after `seconds` (see `Timing` for zero, negative, NaN and infinite
    /// delays). A timer that never fires does not keep `body` (nor what it captured).
    @usableFromInline package init(seconds: Double, _ body: @escaping @Sendable () -> Void) {
        guard let nanoseconds = Timing.delayNanoseconds(seconds) else {
            item = nil
            return
        }
        let item = DispatchWorkItem(block: body)
        self.item = item
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: item)
    }

    @usableFromInline package func cancel() { item?.cancel() }
}

/// How the engine reads a time in seconds, the one rule of every call that takes one:
/// zero, negative and -infinity mean now (no wait); +infinity means never (no limit);
/// NaN is a caller's mistake and means now, so nothing hangs on it (the faces may also
/// say so). Anything beyond about 146 years counts as never.
@usableFromInline package enum Timing {
    /// The delay of a timer in nanoseconds: 0 for now, nil for never (see above).
    @usableFromInline package static func delayNanoseconds(_ seconds: Double) -> Int? {
        if seconds.isNaN || seconds <= 0 { return 0 }
        if seconds >= Double(Int.max / 2) / 1e9 { return nil }
        return Int(seconds * 1e9)
    }
}

extension Core {
    /// A promise fulfilled with `value` after `seconds`. Cancelling it stops the timer.
    @inlinable
    package static func after<T: Sendable>(seconds: Double, value: T) -> Core {
        let core = Core()
        let timer = OneShotTimer(seconds: seconds) { core.fulfil(value) }
        core.onCancel { timer.cancel() }
        return core
    }

    /// Settles like this promise unless `seconds` pass first; then rejects with the
    /// timeout error and releases this promise (cancelling it unless something else still
    /// waits on it). `site`: the face's caller's, recorded once in debug mode (by the link).
    @usableFromInline package final func timeout(seconds: Double, at site: Site = .unknown) -> Core {
        let result = link(on: InlineDispatcher.shared, ClosureBody { source, link in
            if let source { link.settle(like: source) }
        }, at: site)
        let timer = OneShotTimer(seconds: seconds) { [self] in
            if result.reject(EngineError.timeout(seconds: seconds)) {
                result.releaseUpstreams([self])
            }
        }
        result.onCancel { timer.cancel() }
        result.attach(ClosureJob { timer.cancel() }, countsAsHandler: false)
        return result
    }

    /// Settles like this promise, a pause of `seconds` after it fulfils (Hydra's `defer`):
    /// the value waits, a rejection passes on at once (an error is not worth waiting
    /// for). Cancelling the result during the pause stops the timer; cancelling it before
    /// this promise settles releases this promise under the upstream rule, like a link.
    /// `site`: as for `timeout`.
    @usableFromInline package final func delayed(seconds: Double, at site: Site = .unknown) -> Core {
        link(on: InlineDispatcher.shared, ClosureBody { source, link in
            guard let source else { return }
            if source.isRejected || Timing.delayNanoseconds(seconds) == 0 {
                link.settle(like: source)
                return
            }
            let timer = OneShotTimer(seconds: seconds) { link.settle(like: source) }
            link.onCancel { timer.cancel() }
        }, at: site)
    }
}
