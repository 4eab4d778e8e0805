import Dispatch

// Timers: `after`, `timeout`, `delayed`, and the pauses of `retry`. Time belongs to the
// dispatcher: every timer asks a dispatcher for it (`Dispatcher.scheduleTimer`), by
// default the one `.default` stands for where the call that asked for it was made. A
// dispatcher with a clock of its own supplies its own timers (a test loop's virtual clock,
// a C host's loop through `vow_dispatcher_new_with_timers`, a swift-nio loop); the others
// keep the default, Dispatch's real clock (`RealClockTimer`).

/// A one-shot timer a dispatcher armed (`Dispatcher.scheduleTimer`).
public protocol DispatcherTimer: AnyObject, Sendable {
    /// Stops the timer: from now on neither its `fire` nor its `dropped` starts, and the
    /// timer lets go of both (and of what they captured) at once. A `fire` already running
    /// on another thread finishes. Idempotent; any thread.
    func cancel()
}

extension Dispatcher {
    /// The default: Dispatch's real clock. `fire` runs on one of Dispatch's global threads;
    /// a delay beyond what Dispatch can count (some 290 years) never fires, and then the
    /// timer keeps nothing. `dropped` never runs (Dispatch never goes away).
    public func scheduleTimer(after seconds: Double, fire: @escaping @Sendable () -> Void,
                              dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer {
        RealClockTimer(seconds: seconds, fire)
    }
}

/// A timer on Dispatch's global queue: the default `scheduleTimer` (and a host's, while it
/// has no timers of its own).
package final class RealClockTimer: DispatcherTimer, @unchecked Sendable {
    // @unchecked: DispatchWorkItem and `Locked` are thread-safe; both set once in init.
    private let item: DispatchWorkItem?
    /// The body, until it fires or is cancelled. Dispatch keeps a cancelled work item (and
    /// whatever its block captured) until the deadline, so the item's block captures only
    /// this box, which `cancel` empties at once: a cancelled `timeout` of an hour does not
    /// keep its promise, its result and their value for an hour.
    private let body: Locked<(@Sendable () -> Void)?>

    package init(seconds: Double, _ fire: @escaping @Sendable () -> Void) {
        // Dispatch counts nanoseconds in 63 bits; a longer delay never comes.
        guard seconds.isFinite, seconds < Double(Int64.max / 2) / 1e9 else {
            item = nil
            body = Locked(nil)
            return
        }
        let held = Locked<(@Sendable () -> Void)?>(fire)
        let item = DispatchWorkItem { RealClockTimer.take(held)?() }
        self.item = item
        body = held
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(max(0, seconds) * 1e9)), execute: item)
    }

    package func cancel() {
        item?.cancel()
        // Released here, outside the lock (its captures may be the last references to
        // promises whose release runs code).
        withExtendedLifetime(RealClockTimer.take(body)) {}
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

/// A one-shot timer, cancellable, on a dispatcher's clock.
final class OneShotTimer: @unchecked Sendable {
    // @unchecked: set once in init; the dispatcher's timer is thread-safe.
    private let armed: (any DispatcherTimer)?

    /// Fires `body` after `seconds` (see `Timing` for zero, negative, NaN and infinite
    /// delays) on `dispatcher`'s clock (`Dispatchers.clock(of:)`, at the call). A timer
    /// that never fires does not keep `body` (nor what it captured). `onDrop` runs instead
    /// of `body` if the dispatcher goes away first (a test loop released before the timer
    /// fired: the one case where a timer neither fires nor is cancelled).
    init(seconds: Double, on dispatcher: any Dispatcher, onDrop: @escaping @Sendable () -> Void = {},
         _ body: @escaping @Sendable () -> Void) {
        guard let delay = Timing.delaySeconds(seconds) else {
            armed = nil
            return
        }
        armed = Dispatchers.clock(of: dispatcher).scheduleTimer(after: delay, fire: body, dropped: onDrop)
    }

    func cancel() {
        armed?.cancel()
    }
}

/// How the engine reads a time in seconds, the one rule of every call that takes one:
/// zero, negative and -infinity mean now (no wait); +infinity means never (no limit);
/// NaN is a caller's mistake and means now, so nothing hangs on it (the faces may also
/// say so). Every finite time is a time: how far a clock can count is its dispatcher's
/// business (Dispatch's real clock: some 290 years; a test loop's: any time).
@usableFromInline package enum Timing {
    /// The delay of a timer in seconds: 0 for now, nil for never (see above), else
    /// `seconds`.
    @usableFromInline package static func delaySeconds(_ seconds: Double) -> Double? {
        if seconds.isNaN || seconds <= 0 { return 0 }
        if seconds == .infinity { return nil }
        return seconds
    }

    /// The delay in nanoseconds for a clock that counts them in an `Int`: 0 for now, nil
    /// for never and for a delay too long to count (some 146 years: a wait with no limit).
    @usableFromInline package static func delayNanoseconds(_ seconds: Double) -> Int? {
        guard let delay = delaySeconds(seconds) else { return nil }
        if delay >= Double(Int.max / 2) / 1e9 { return nil }
        return Int(delay * 1e9)
    }
}

extension Core {
    /// A promise fulfilled with `value` after `seconds` on `dispatcher`'s clock. Cancelling
    /// it stops the timer; a dispatcher that goes away before it fired (a test loop
    /// released) cancels it.
    package static func after<T: Sendable>(seconds: Double, value: T, on dispatcher: any Dispatcher) -> Core {
        let core = Core()
        let timer = OneShotTimer(seconds: seconds, on: dispatcher, onDrop: { core.cancel() }) { core.fulfil(value) }
        core.onCancel { timer.cancel() }
        return core
    }

    /// Settles like this promise unless `seconds` pass first on `dispatcher`'s clock; then
    /// rejects with the timeout error and releases this promise (cancelling it unless
    /// something else still waits on it). `site`: the face's caller's, recorded once in
    /// debug mode (by the link).
    @usableFromInline package final func timeout(seconds: Double, on dispatcher: any Dispatcher,
                                                 at site: Site = .unknown) -> Core {
        let result = link(on: InlineDispatcher.shared, ClosureBody { source, link in
            if let source { link.settle(like: source) }
        }, at: site)
        let timer = OneShotTimer(seconds: seconds, on: dispatcher) { [self] in
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
    /// `site`: as for `timeout`. The pause runs on the clock of `dispatcher` as it stood at
    /// this call (`.default`: the default where this was called), whichever thread the
    /// source fulfils on.
    @usableFromInline package final func delayed(seconds: Double, on dispatcher: any Dispatcher,
                                                 at site: Site = .unknown) -> Core {
        let clock = Dispatchers.clock(of: dispatcher)
        return link(on: InlineDispatcher.shared, ClosureBody { source, link in
            guard let source else { return }
            if source.isRejected || Timing.delaySeconds(seconds) == 0 {
                link.settle(like: source)
                return
            }
            let timer = OneShotTimer(seconds: seconds, on: clock, onDrop: { link.cancel() }) {
                link.settle(like: source)
            }
            link.onCancel { timer.cancel() }
        }, at: site)
    }
}
