#if NIO
import NIOConcurrencyHelpers
import NIOCore
import VowEngine

// Time belongs to the dispatcher: Vow's timers asked of an `EventLoopDispatcher`
// (`after(seconds:on:)`, `timeout(seconds:on:)`, `delay(seconds:on:)`, and every timer made
// where the dispatcher is the default) run on the loop's own timers, as NIO's
// `scheduleCallback` does, instead of Dispatch's real clock.

extension EventLoopDispatcher {
    /// A one-shot timer of the loop: `fire` runs on the loop's thread when the time has
    /// come; a loop that shuts down first runs `dropped` instead (the promise of an `after`
    /// is then cancelled). Cancelling it cancels the loop's callback. A delay beyond what
    /// NIO counts (some 292 years) never fires, and the timer keeps nothing. Any thread.
    public func scheduleTimer(after seconds: Double, fire: @escaping @Sendable () -> Void,
                              dropped: @escaping @Sendable () -> Void) -> any DispatcherTimer {
        // A loop that is shutting down is not called into (NIO reports that): dropped now.
        LoopTimer(on: queue.isAcceptingWork ? eventLoop : nil, after: seconds, fire: fire, dropped: dropped)
    }
}

/// A Vow timer on a NIO loop (`NIOScheduledCallback`). `fire` and `dropped` are taken once,
/// by whichever of fire, the loop's cancellation (shutdown) and `cancel` comes first.
final class LoopTimer: NIOScheduledCallbackHandler, DispatcherTimer, Sendable {
    private struct Closures {
        var fire: (@Sendable () -> Void)?
        var dropped: (@Sendable () -> Void)?
    }

    private let closures: NIOLockedValueBox<Closures>
    private let scheduled = NIOLockedValueBox<NIOScheduledCallback?>(nil)

    /// A timer on `loop`; nil: a loop that shut down (`dropped` runs at once).
    init(on loop: (any EventLoop)?, after seconds: Double, fire: @escaping @Sendable () -> Void,
         dropped: @escaping @Sendable () -> Void) {
        guard seconds < Double(Int64.max / 2) / 1e9 else {
            closures = NIOLockedValueBox(Closures())  // never fires: keeps nothing
            return
        }
        closures = NIOLockedValueBox(Closures(fire: fire, dropped: dropped))
        guard let loop else {
            take().dropped?()
            return
        }
        do {
            let callback = try loop.scheduleCallback(in: .nanoseconds(Int64(max(0, seconds) * 1e9)), handler: self)
            scheduled.withLockedValue { $0 = callback }
        } catch {
            take().dropped?()  // the loop has shut down already
        }
    }

    func handleScheduledCallback(eventLoop: some EventLoop) {
        let taken = take()
        withExtendedLifetime(taken.dropped) {}
        taken.fire?()
    }

    func didCancelScheduledCallback(eventLoop: some EventLoop) {
        // The loop shut down (after `cancel`, nothing is left to take).
        let taken = take()
        withExtendedLifetime(taken.fire) {}
        taken.dropped?()
    }

    func cancel() {
        let taken = take()
        guard taken.fire != nil || taken.dropped != nil else { return }  // fired, dropped or cancelled
        withExtendedLifetime(taken) {}
        scheduled.withLockedValue { callback in
            defer { callback = nil }
            return callback
        }?.cancel()
    }

    private func take() -> Closures {
        closures.withLockedValue { held in
            defer { held = Closures() }
            return held
        }
    }
}
#endif
