import Dispatch

/// A one-shot timer, cancellable: on Dispatch's global queue, or on a test loop's virtual
/// clock (see `TimerClock`).
final class OneShotTimer: @unchecked Sendable {
    // @unchecked: DispatchWorkItem and `Locked` are thread-safe, so is VirtualTimer; all
    // set once in init.
    private let item: DispatchWorkItem?
    /// A real-clock timer's body, until it fires or is cancelled. Dispatch keeps a
    /// cancelled work item (and whatever its block captured) until the deadline, so the
    /// item's block captures only this box, which `cancel` empties at once: a cancelled
    /// `timeout` of an hour does not keep its promise, its result and their value for an
    /// hour.
    private let realBody: Locked<(@Sendable () -> Void)?>?
    private let virtual: VirtualTimer?

    /// Fires `body` after `seconds` (see `Timing` for zero, negative, NaN and infinite
    /// delays) on `clock`'s time. A timer that never fires does not keep `body` (nor what it
    /// captured). `onDrop` runs instead of `body` if the clock goes away first (a test loop
    /// released before the timer fired: the one case where a timer neither fires nor is
    /// cancelled).
    init(seconds: Double, clock: TimerClock = .current,
                                   onDrop: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable () -> Void) {
        guard let nanoseconds = Timing.delayNanoseconds(seconds) else {
            item = nil
            realBody = nil
            virtual = nil
            return
        }
        switch clock {
        case .real:
            let held = Locked<(@Sendable () -> Void)?>(body)
            let item = DispatchWorkItem { OneShotTimer.take(held)?() }
            self.item = item
            realBody = held
            virtual = nil
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: item)
        case .loop(let loop):
            item = nil
            realBody = nil
            virtual = loop.makeTimer(nanoseconds: nanoseconds, onDrop: onDrop, body)
        }
    }

    func cancel() {
        item?.cancel()
        if let realBody {
            // Released here, outside the lock (its captures may be the last references
            // to promises whose release runs code).
            withExtendedLifetime(OneShotTimer.take(realBody)) {}
        }
        virtual?.cancel()
    }

    /// Empties `held`, handing back what it held: the body runs at most once, and is
    /// released by whoever took it.
    private static func take(_ held: Locked<(@Sendable () -> Void)?>) -> (@Sendable () -> Void)? {
        held.withLock { body in
            defer { body = nil }
            return body
        }
    }
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
    /// A promise fulfilled with `value` after `seconds` on `clock`'s time. Cancelling it
    /// stops the timer; a test loop released before it fired cancels it.
    package static func after<T: Sendable>(seconds: Double, value: T, clock: TimerClock = .current) -> Core {
        let core = Core()
        let timer = OneShotTimer(seconds: seconds, clock: clock, onDrop: { core.cancel() }) { core.fulfil(value) }
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
    /// `site`: as for `timeout`. The pause runs on the clock of the thread that called
    /// this (see `TimerClock`), whichever thread the source fulfils on.
    @usableFromInline package final func delayed(seconds: Double, at site: Site = .unknown) -> Core {
        let clock = TimerClock.current
        return link(on: InlineDispatcher.shared, ClosureBody { source, link in
            guard let source else { return }
            if source.isRejected || Timing.delayNanoseconds(seconds) == 0 {
                link.settle(like: source)
                return
            }
            let timer = OneShotTimer(seconds: seconds, clock: clock, onDrop: { link.cancel() }) {
                link.settle(like: source)
            }
            link.onCancel { timer.cancel() }
        }, at: site)
    }
}
