import Dispatch

/// A one-shot timer on Dispatch's global queue, cancellable.
@usableFromInline package final class OneShotTimer: @unchecked Sendable {
    // @unchecked: DispatchWorkItem is thread-safe; `item` is set once in init.
    private let item: DispatchWorkItem

    /// Fires `body` after `seconds` (see `Timing.delay(_:)` for zero, negative, NaN and
    /// infinite delays).
    @usableFromInline package init(seconds: Double, _ body: @escaping @Sendable () -> Void) {
        item = DispatchWorkItem(block: body)
        guard let nanoseconds = Timing.delayNanoseconds(seconds) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: item)
    }

    @usableFromInline package func cancel() { item.cancel() }
}

/// How the engine reads a time in seconds.
@usableFromInline package enum Timing {
    /// The delay of a timer: zero and negative delays fire at once, NaN too; +infinity
    /// (and anything beyond about 146 years) never fires (nil).
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
    /// waits on it).
    @usableFromInline package final func timeout(seconds: Double) -> Core {
        let result = link(on: InlineDispatcher.shared, ClosureBody { source, link in
            if let source { link.settle(like: source) }
        })
        let timer = OneShotTimer(seconds: seconds) { [self] in
            if result.reject(EngineError.timeout(seconds: seconds)) {
                result.releaseUpstreams([self])
            }
        }
        result.onCancel { timer.cancel() }
        result.attach(ClosureJob { timer.cancel() }, countsAsHandler: false)
        return result
    }
}
