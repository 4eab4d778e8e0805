import Synchronization

/// The combinators every face shares: all fulfilled, all settled, the race and the first
/// fulfilment (any). One registration per input, run inline where
/// the input settles; the result waits on every input (cancelling it cancels them, each
/// under the upstream rule). What the result is fulfilled with is the face's business:
/// it passes `gather`, called once with the settled inputs in input order.
extension Core {
    /// Fulfils with `gather(inputs)` once every input fulfilled; the first rejection wins
    /// with that same error (the other inputs keep running). No inputs: fulfils with
    /// `gather([])` at once.
    @usableFromInline package static func all(_ inputs: [Core], gather: @escaping @Sendable ([Core]) throws -> StoredValue) -> Core {
        guard !inputs.isEmpty else { return Core.settled(gathering: [], gather) }
        return gathering(inputs, .all(gather))
    }

    /// Fulfils with `gather(inputs)` once every input settled; never rejects.
    @usableFromInline package static func allSettled(_ inputs: [Core], gather: @escaping @Sendable ([Core]) throws -> StoredValue) -> Core {
        guard !inputs.isEmpty else { return Core.settled(gathering: [], gather) }
        return gathering(inputs, .allSettled(gather))
    }

    /// Settles like the first input to settle; then the others are released (cancelled
    /// under the upstream rule). With `fulfilmentOnly` (`any`), rejections are skipped
    /// until every input rejected, and then the last error wins. No inputs rejects with
    /// `emptyError`.
    @usableFromInline package static func race(_ inputs: [Core], fulfilmentOnly: Bool = false, emptyError: @autoclosure () -> any Error) -> Core {
        guard !inputs.isEmpty else { return Core(rejected: emptyError()) }
        return gathering(inputs, fulfilmentOnly ? .any : .race)
    }

    /// The pending result of a combinator over `inputs` (not empty): one registration on
    /// every input, which settles it as `mode` says. The result waits on the inputs
    /// through its registration (its back word holds the `GatherState`, which holds the
    /// inputs: no `Extras` of its own; see `Handlers.swift`).
    private static func gathering(_ inputs: [Core], _ mode: GatherState.Mode) -> Core {
        let result = Core()
        let state = GatherState(result: result, inputs: inputs, mode: mode)
        result.setGathering(state)
        for input in inputs { input.attach(state) }
        return result
    }

    /// A promise settled with what `gather(inputs)` returns (rejected if it throws).
    static func settled(gathering inputs: [Core], _ gather: ([Core]) throws -> StoredValue) -> Core {
        do {
            return Core(settledWith: try gather(inputs), rejected: false)
        } catch {
            return Core(rejected: error)
        }
    }

    /// Settles with what `gather(inputs)` returns (rejects if it throws).
    func settle(gathering inputs: [Core], _ gather: ([Core]) throws -> StoredValue) {
        do {
            settle(try gather(inputs), rejected: false)
        } catch {
            reject(error)
        }
    }
}

/// A combinator's registration: one object, registered on every input (once per
/// occurrence), so a combinator costs no allocation per input. The settle path of an
/// input tells it which input settled (`Core.scheduleSettled` calls `inputSettled`); it
/// counts, and settles the result through the per-thread inline queue, never from inside
/// the input's settle path, so combinators over combinators never recurse.
///
/// Threads: `inputSettled` runs on the thread that settled the input (or attached to a
/// settled one); `remaining` is atomic, and `result` is settled once (the first settle
/// wins).
final class GatherState: Continuation, ExactlyTyped, @unchecked Sendable {
    // @unchecked: immutable but for the atomic count.
    enum Mode: Sendable {
        case all(@Sendable ([Core]) throws -> StoredValue)
        case allSettled(@Sendable ([Core]) throws -> StoredValue)
        case race
        case any
    }

    let result: Core
    let inputs: [Core]
    let mode: Mode
    /// Inputs still to settle (fulfil, for `all`; reject, for `any`).
    let remaining: Atomic<Int>

    init(result: Core, inputs: [Core], mode: Mode) {
        self.result = result
        self.inputs = inputs
        self.mode = mode
        remaining = Atomic(inputs.count)
        super.init(tag: Continuation.continuationTag)
    }

    /// One registration's input settled.
    func inputSettled(_ input: Core) {
        switch mode {
        case .all:
            if input.isRejected {
                settleResult(like: input, thenReleaseTheRest: false)
            } else if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                InlineDispatcher.run(self)
            }
        case .allSettled:
            if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                InlineDispatcher.run(self)
            }
        case .race:
            settleResult(like: input, thenReleaseTheRest: true)
        case .any:
            if !input.isRejected {
                settleResult(like: input, thenReleaseTheRest: true)
            } else if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                settleResult(like: input, thenReleaseTheRest: false)
            }
        }
    }

    /// Settles the result like `input` (through the inline queue); the winner of a race
    /// releases the other inputs (each cancelled under the upstream rule).
    private func settleResult(like input: Core, thenReleaseTheRest: Bool) {
        let result = self.result
        let inputs = self.inputs
        InlineDispatcher.run(ClosureJob {
            if result.settle(like: input), thenReleaseTheRest { result.releaseUpstreams(inputs) }
        })
    }

    /// Every input counted (`all`, `allSettled`): the result gathers them. Queued once.
    override func run() {
        switch mode {
        case .all(let gather), .allSettled(let gather):
            result.settle(gathering: inputs, gather)
        case .race, .any:
            break
        }
    }

    /// Never scheduled without its input (see `Core.scheduleSettled`).
    override func schedule() {
        preconditionFailure("GatherState: scheduled without the input that settled")
    }

    override var dependentPromise: Core? { result }
}
