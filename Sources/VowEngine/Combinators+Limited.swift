import Synchronization

/// Bounded concurrency (PromiseKit's `when(fulfilled: iterator, concurrently: n)`), the one
/// implementation behind every face: the inputs are made lazily, one call of `make` per
/// input, and at most `limit` of them are pending at once; the result is gathered in input
/// order like `Core.all` / `Core.allSettled`.
///
/// The rules, which the faces document:
/// - `make(i)` is called with `i` = 0, 1, 2, ... in order, each once, never two calls at a
///   time, always on `dispatcher` (never on the thread that called `limited`, unless that is
///   the inline dispatcher). It returns the input for index `i`, nil when there are no more
///   inputs (only asked when `count` is nil), or throws: that input failed with the error.
/// - A new input is made when one settles, until `count` inputs were made (or `make`
///   returned nil).
/// - Mode `.all`: the first rejection settles the result with that same error (or with what
///   the face's `indexing` makes of it and the input's index: C's message names the input);
///   the result remembers the input's index (`rejectedInput`: Swift's
///   `Promise.rejectedInputIndex`); nothing more is made and the inputs still pending are
///   cancelled, each only if nothing else waits on it (the upstream rule). Mode
///   `.allSettled`: rejections are gathered like values; the result never rejects.
/// - Cancelling the result stops making inputs and cancels the pending ones (the upstream
///   rule again).
/// - `make` is released (so what it captures, a C context's `destroy`, goes) exactly once,
///   as soon as no call to it can come any more: after the last input was made, or when the
///   work stopped and no call is running.
///
/// Memory: the live inputs (at most `limit`), one registration each, and one element per
/// input made so far (`element` converts a settled input; its promise is let go).
extension Core {
    /// How a bounded combinator treats rejections (see above).
    package enum LimitedMode: Sendable {
        case all
        case allSettled
    }

    /// The pending result of a bounded combinator (see above). `limit` is at least 1;
    /// `count` is the number of inputs if known (0 settles the result at once with
    /// `gather([])`), nil if `make` says when they end. `element` runs where an input
    /// settles (for `.all`, on fulfilled inputs only); a throw from it counts as that
    /// input's rejection. `gather` runs once, with every element in input order.
    /// `indexing` (mode `.all`): the error the result rejects with when the input at `index`
    /// rejected with `error` (or its `element` threw it), where that input settled; nil: that
    /// same error.
    package static func limited<Element>(count: Int?, limit: Int, mode: LimitedMode, on dispatcher: any Dispatcher,
                                         make: @escaping @Sendable (Int) throws -> Core?,
                                         element: @escaping @Sendable (Core) throws -> Element,
                                         gather: @escaping @Sendable ([Element]) throws -> StoredValue,
                                         indexing: (@Sendable (_ index: Int, _ error: any Error) -> any Error)? = nil)
        -> Core {
        if count == 0 {
            do {
                return Core(settledWith: try gather([]), rejected: false)
            } catch {
                return Core(rejected: error)
            }
        }
        let result = LimitedResult()
        let work = LimitedRun(result: result, count: count, limit: max(1, limit), mode: mode,
                              dispatcher: Dispatchers.resolve(dispatcher), make: make, element: element, gather: gather,
                              indexing: indexing)
        result.work = work
        work.start()
        return result
    }
}

extension Core {
    /// For the result of a bounded combinator (mode `.all`) that rejected because an input
    /// did: that input's index (the order of `make`'s calls); nil for any other promise, or
    /// while pending, fulfilled, or cancelled by its caller.
    package final var rejectedInputIndex: Int? {
        guard isRejected, let result = self as? LimitedResult else { return nil }
        let index = result.rejectedInput.load(ordering: .acquiring)
        return index >= 0 ? index : nil
    }
}

/// What a bounded combinator's result tells its run, and asks it.
protocol LimitedStopping: AnyObject, Sendable {
    /// The result was cancelled: stop, cancel the pending inputs.
    func resultCancelled()
    /// The inputs made that have not settled (the cycle check, `Core.waits(on:)`).
    func pendingInputs() -> [Core]
}

/// The result of a bounded combinator: a promise that learns, inside `cancel()`, that it was
/// cancelled (the engine lets a cancelled promise's work go through `disposeUnrun`), so the
/// run stops at once rather than from a handler queued for later.
final class LimitedResult: Core, ProducerInputs, @unchecked Sendable {
    // @unchecked: `work` is set once, before the result is handed out, and only read after.
    /// The run, while it has work (its inputs' registrations and its pump job keep it).
    weak var work: (any LimitedStopping)?
    /// The index of the input whose rejection settled this result (mode `.all`); -1: none.
    /// Stored before the result settles, by the thread that settles it (and taken back if
    /// the result was settled first, by a cancellation).
    let rejectedInput = Atomic<Int>(-1)

    override init() {
        super.init()
        word.store(Flags.hasProducerInputs.rawValue, ordering: .relaxed)
    }

    override func disposeUnrun() {
        work?.resultCancelled()
    }

    /// The cycle check (`Core.waits(on:)`): the result waits on the inputs its run made
    /// that have not settled (read under the run's lock).
    var inputsMade: [Core] {
        work?.pendingInputs() ?? []
    }

    /// Deadlock detection (`Core.settlementNeeds`): while inputs remain to be made, settling
    /// this result needs a job on the run's dispatcher, so a wait on it from a thread that
    /// runs that (serial) dispatcher could never end; `nil` once every input was made.
    func needsJobs(on dispatcher: ObjectIdentifier?) {
        let flags = lock()
        if !flags.contains(.settled) {
            if let dispatcher {
                extras().settler = dispatcher
            } else {
                existingExtras?.settler = nil
            }
        }
        unlock(flags)
    }
}

/// The state of one bounded combinator. It is also its own pump job: the continuation that
/// runs on the dispatcher and makes inputs while there is room (queued at most once at a
/// time: `pumping`).
///
/// Threads: `run()` (the pump) on the dispatcher; `settled` where an input settles;
/// `resultCancelled` on the thread that cancels the result. Every field below `lock` is
/// guarded by it; `make`, `element`, `gather`, settling and cancelling are called without
/// it, and nothing that may drop the last reference to a promise happens under it.
final class LimitedRun<Element>: Continuation, LimitedStopping, @unchecked Sendable {
    // @unchecked: the mutable fields are guarded by `lock` (see above); the rest is immutable.
    private let count: Int?
    private let limit: Int
    private let mode: Core.LimitedMode
    private let dispatcher: any Dispatcher
    private let element: @Sendable (Core) throws -> Element
    private let gather: @Sendable ([Element]) throws -> StoredValue
    private let indexing: (@Sendable (Int, any Error) -> any Error)?

    private let lock = VowLock()
    /// The result, until the run stops (then nil: the run no longer holds it).
    private var result: LimitedResult?
    /// The producer, until no call to it can come any more.
    private var make: (@Sendable (Int) throws -> Core?)?
    /// The index of the next input to make.
    private var next = 0
    /// Inputs made (or being made) that have not settled.
    private var active = 0
    /// No input will be made any more: `count` reached, or `make` returned nil.
    private var exhausted = false
    /// The result was settled or cancelled: nothing more is made or gathered.
    private var stopped = false
    /// A pump job is queued or running (it checks for room before it ends).
    private var pumping = false
    /// The inputs that have not settled, by index (for cancellation).
    private var pending: [Int: Core] = [:]
    /// One element per input made; nil until it settles.
    private var elements: [Element?] = []

    init(result: LimitedResult, count: Int?, limit: Int, mode: Core.LimitedMode, dispatcher: any Dispatcher,
         make: @escaping @Sendable (Int) throws -> Core?, element: @escaping @Sendable (Core) throws -> Element,
         gather: @escaping @Sendable ([Element]) throws -> StoredValue,
         indexing: (@Sendable (Int, any Error) -> any Error)?) {
        self.result = result
        self.indexing = indexing
        self.count = count
        self.limit = limit
        self.mode = mode
        self.dispatcher = dispatcher
        self.make = make
        self.element = element
        self.gather = gather
        super.init(tag: Continuation.continuationTag)
    }

    /// Queues the first pump job.
    func start() {
        lock.withLock { pumping = true }
        result?.needsJobs(on: ObjectIdentifier(dispatcher))
        submitContinuation(self, to: dispatcher)
    }

    // MARK: The pump (on the dispatcher)

    /// Makes inputs while there is room, then ends (a settling input queues it again).
    override func run() {
        while true {
            lock.lock()
            guard !stopped, !exhausted, active < limit, let make else {
                pumping = false
                let done = takeMakeIfDone()
                lock.unlock()
                withExtendedLifetime(done) {}
                return
            }
            let index = next
            next += 1
            active += 1
            let last = count.map { next >= $0 } ?? false
            if last { exhausted = true }
            elements.append(nil)
            let current = self.result
            lock.unlock()

            let made: Core?
            do {
                made = try make(index)
            } catch {
                made = Core(rejected: error)
            }
            guard let input = made else {
                noMoreInputs()
                continue
            }
            register(refusingCycle(input, of: current), index)
            // Settling no longer needs a job here once the last input was made (not
            // before: a wait on the result inside that last call of make could never end).
            if last { current?.needsJobs(on: nil) }
        }
    }

    /// `input`, or in its place a promise rejected with the cycle error if `input` is the
    /// result itself or leads back to it (`make` returned the result, or a promise that
    /// follows it): the result would wait on itself, pending forever in a cycle nobody
    /// frees. A refused input is not registered on: it settles as the result does.
    private func refusingCycle(_ input: Core, of result: LimitedResult?) -> Core {
        guard let result, input === result || input.waits(on: result) else { return input }
        return Core(rejected: EngineError.cycle)
    }

    /// `make` said there are no more inputs (the reserved index is given back).
    private func noMoreInputs() {
        lock.lock()
        exhausted = true
        active -= 1
        guard !stopped, let result else {
            // A stop while `make` ran took the elements already.
            lock.unlock()
            return
        }
        elements.removeLast()
        guard active == 0 else {
            lock.unlock()
            result.needsJobs(on: nil)
            return
        }
        finish()
    }

    /// Registers on a new input. It goes into `pending` before the registration, so a
    /// registration that runs at once (a settled input) finds it; a stop that came before
    /// the registration could not reach the input, so it is released here once more
    /// (releasing twice does nothing).
    private func register(_ input: Core, _ index: Int) {
        lock.lock()
        let result = self.result
        if !stopped { pending[index] = input }
        lock.unlock()
        guard let result else {
            // Stopped before this input was made: it was never wanted. The registration
            // makes it count as a dependent so that the upstream rule can apply.
            return releaseUnwanted(input)
        }
        input.attach(LimitedSlot(self, input, index, result))
        if lock.withLock({ stopped }) { result.releaseUpstreams([input]) }
    }

    /// An input made after the run stopped (the result is gone): cancelled unless
    /// something else already waits on it.
    private func releaseUnwanted(_ input: Core) {
        let anchor = Core()
        input.attach(LimitedSlot(self, input, -1, anchor))
        anchor.releaseUpstreams([input])
    }

    // MARK: Inputs settling (where they settle)

    /// The input at `index` settled.
    fileprivate func settled(_ input: Core, _ index: Int) {
        // Converted before taking the lock (the face's conversion may allocate).
        var failure = false
        var converted: Element?
        var conversionError: (any Error)?
        if mode == .all, input.isRejected {
            failure = true
        } else {
            do {
                converted = try element(input)
            } catch {
                failure = true
                conversionError = error
            }
        }

        lock.lock()
        if index >= 0 { pending.removeValue(forKey: index) }
        active -= 1
        guard !stopped, index >= 0 else {
            lock.unlock()
            return
        }
        if failure {
            let stopped = stop()
            lock.unlock()
            guard let result = stopped.result else { return }
            result.rejectedInput.store(index, ordering: .releasing)
            let settled: Bool
            if let indexing {
                settled = result.reject(indexing(index, conversionError ?? input.error!))
            } else if let conversionError {
                settled = result.reject(conversionError)
            } else {
                settled = result.settle(like: input)
            }
            if !settled { result.rejectedInput.store(-1, ordering: .releasing) }
            result.releaseUpstreams(stopped.unsettled)
            return
        }
        elements[index] = converted
        if exhausted, active == 0 {
            finish()
            return
        }
        let pump = !exhausted && !pumping && active < limit
        if pump { pumping = true }
        lock.unlock()
        if pump { submitContinuation(self, to: dispatcher) }
    }

    /// Every input settled (called with the lock held; unlocks): the result is gathered.
    private func finish() {
        let stopped = stop()
        lock.unlock()
        guard let result = stopped.result else { return }
        do {
            result.settle(try gather(stopped.elements.map { $0! }), rejected: false)
        } catch {
            result.reject(error)
        }
    }

    /// The inputs made that have not settled, in no particular order.
    func pendingInputs() -> [Core] {
        lock.withLock { Array(pending.values) }
    }

    // MARK: Stopping

    /// The result was cancelled: stops making inputs and cancels the pending ones.
    func resultCancelled() {
        lock.lock()
        guard !stopped else {
            lock.unlock()
            return
        }
        let stopped = stop()
        lock.unlock()
        stopped.result?.releaseUpstreams(stopped.unsettled)
    }

    /// What a run that stops lets go of, after unlocking (dropping it may run user code: a
    /// C `destroy`, an iterator's or a value's deinit, an unhandled-error report).
    private struct Stopped {
        /// The result (nil if the run had stopped already).
        let result: LimitedResult?
        /// The inputs still pending, in input order, to release under the upstream rule.
        let unsettled: [Core]
        /// The producer, if no call to it is running.
        let make: (@Sendable (Int) throws -> Core?)?
        /// The elements gathered so far (a stop before the end discards them).
        let elements: [Element?]
    }

    /// Marks the run stopped (lock held) and hands back what the caller lets go of after
    /// unlocking.
    private func stop() -> Stopped {
        stopped = true
        let result = self.result
        self.result = nil
        let unsettled = pending.sorted { $0.key < $1.key }.map(\.value)
        pending = [:]
        var discarded: [Element?] = []
        swap(&discarded, &elements)
        return Stopped(result: result, unsettled: unsettled, make: takeMakeIfDone(), elements: discarded)
    }

    /// The producer, taken out, once no call to it can come (lock held): the run stopped
    /// or made every input, and no pump is queued or running.
    private func takeMakeIfDone() -> (@Sendable (Int) throws -> Core?)? {
        guard stopped || exhausted, !pumping else { return nil }
        let done = make
        make = nil
        return done
    }

    /// The dispatcher dropped the pump job: the result is cancelled, as a link whose
    /// dispatcher dropped it is.
    override func dropped() {
        let result = lock.withLock { () -> LimitedResult? in
            pumping = false
            return self.result
        }
        if let result {
            result.cancel()
        } else {
            let done = lock.withLock { takeMakeIfDone() }
            withExtendedLifetime(done) {}
        }
    }
}

/// A bounded combinator's registration on one input: runs inline where the input settles.
/// It counts as a dependent of the input on behalf of the result (for the upstream rule).
final class LimitedSlot<Element>: Continuation, @unchecked Sendable {
    // @unchecked: immutable.
    let owner: LimitedRun<Element>
    let input: Core
    let index: Int
    let result: Core

    init(_ owner: LimitedRun<Element>, _ input: Core, _ index: Int, _ result: Core) {
        self.owner = owner
        self.input = input
        self.index = index
        self.result = result
        super.init(tag: Continuation.continuationTag)
    }

    override func run() { owner.settled(input, index) }

    override var dependentPromise: Core? { result }
}
