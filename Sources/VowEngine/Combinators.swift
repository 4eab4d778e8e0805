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

    /// The pending result of a combinator over `inputs` (not empty): one registration per
    /// input, which settles it as `mode` says.
    private static func gathering(_ inputs: [Core], _ mode: GatherState.Mode) -> Core {
        let result = Core(waitingOn: inputs)
        let state = GatherState(result: result, inputs: inputs, mode: mode)
        for input in inputs { input.attach(GatherSlot(state, input)) }
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

    /// A pending promise waiting on every one of `upstreams` (for cancellation).
    @usableFromInline package convenience init(waitingOn upstreams: [Core]) {
        self.init()
        if let first = upstreams.first {
            if upstreams.count == 1 {
                setFirstUpstream(first)
            } else {
                let extras = self.extras()
                extras.upstream = first
                extras.moreUpstreams = Array(upstreams.dropFirst())
            }
        }
    }
}

/// What a combinator's registrations share.
final class GatherState: Sendable {
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
    }

    /// One input settled.
    func settled(_ input: Core) {
        switch mode {
        case .all(let gather):
            if input.isRejected {
                result.settle(like: input)
            } else if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                result.settle(gathering: inputs, gather)
            }
        case .allSettled(let gather):
            if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                result.settle(gathering: inputs, gather)
            }
        case .race:
            if result.settle(like: input) { result.releaseUpstreams(inputs) }
        case .any:
            if input.isRejected {
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { result.settle(like: input) }
            } else if result.settle(like: input) {
                result.releaseUpstreams(inputs)
            }
        }
    }
}

/// A combinator's registration on one input: runs inline where the input settles.
final class GatherSlot: Continuation, @unchecked Sendable {
    // @unchecked: immutable.
    let state: GatherState
    let input: Core

    init(_ state: GatherState, _ input: Core) {
        self.state = state
        self.input = input
        super.init(tag: Continuation.continuationTag)
    }

    override func run() { state.settled(input) }

    override var dependentPromise: Core? { state.result }
}
