import Dispatch

// PromiseKit's `on: DispatchQueue?` and `flags: DispatchWorkItemFlags?`, as Vow dispatchers.
//
//   on: nil                  `.inline`: runs where the promise settles (PromiseKit's zalgo).
//   on: queue                the queue itself (a `DispatchQueue` is a Vow `Dispatcher`).
//   on: queue, flags: f      each job goes to the queue with `async(flags: f)` (a barrier on
//                            a concurrent queue is a barrier): flags are honoured.
//   on: .vowDefault          Vow's default dispatcher (what `conf.Q` reads as until set).
//   flags without a queue    ignored: Vow's default is a serial queue, on which a barrier
//                            changes nothing, and `on: nil` runs inline, as in PromiseKit.

extension DispatchQueue {
    /// Stands for Vow's default dispatcher where PromiseKit takes a `DispatchQueue?`: it is
    /// what `conf.Q` reads as until a queue is set, the default `on:` of `Guarantee`'s
    /// methods, and setting `conf.Q` back to it restores Vow's default. Used anywhere else,
    /// it is an ordinary serial queue of its own.
    public static let vowDefault = DispatchQueue(label: "VowPromiseKit.vowDefault")
}

/// The Vow dispatcher for PromiseKit's `on:` and `flags:` (see above).
@inlinable
func dispatcher(_ queue: DispatchQueue?, _ flags: DispatchWorkItemFlags? = nil) -> any Dispatcher {
    guard let queue else { return .inline }
    if queue === DispatchQueue.vowDefault { return .default }
    guard let flags, !flags.isEmpty else { return queue }
    return QueueWithOptions(queue, flags: flags)
}

/// A `DispatchQueue` with the options PromiseKit passes to `async` (`flags:`, and for
/// `async(.promise)` `group:` and `qos:`): each job is submitted with them. Made per call
/// only when options are given; without them the queue itself is the dispatcher.
@usableFromInline
final class QueueWithOptions: Dispatcher, @unchecked Sendable {
    // @unchecked: every field is immutable; a queue and a group are thread-safe objects,
    // the flags and QoS plain values.
    let queue: DispatchQueue
    let flags: DispatchWorkItemFlags
    let qos: DispatchQoS
    let group: DispatchGroup?

    @usableFromInline
    init(_ queue: DispatchQueue, flags: DispatchWorkItemFlags, qos: DispatchQoS = .unspecified,
         group: DispatchGroup? = nil) {
        self.queue = queue
        self.flags = flags
        self.qos = qos
        self.group = group
    }

    @usableFromInline
    func dispatch(_ work: @escaping @Sendable () -> Void) {
        guard flags.contains(.barrier) else {
            queue.async(group: group, qos: qos, flags: flags, execute: work)
            return
        }
        // A barrier is submitted as exactly `.barrier` (libdispatch's barrier_async), and the
        // other options are applied to the job as it runs: combined with QoS, a group or
        // other flags, Dispatch makes a block object that carries the barrier flag, and a
        // wrapper of that block (ThreadSanitizer's, for one) loses it.
        let rest = flags.subtracting(.barrier).rawValue   // the flags type is not Sendable; its bits are
        let (qos, group) = (self.qos, self.group)
        group?.enter()
        queue.async(flags: .barrier) {
            if rest == 0, qos == .unspecified {
                work()
            } else {
                DispatchWorkItem(qos: qos, flags: DispatchWorkItemFlags(rawValue: rest), block: work).perform()
            }
            group?.leave()
        }
    }
}
