import Dispatch
@testable import Vow

// Foreign thenables for Promises/A+ 2.3.3: types that conform to the seed `Thenable`
// protocol without being promises of this library, each misbehaving in its own way.

/// Calls `onSuccess` with `value` at once, inside `then`; `probe` runs first, each time
/// `then` is called (to count calls or check where they run).
struct SyncThenable<Value>: Thenable {
    let value: Value
    let probe: (@Sendable () -> Void)?

    init(_ value: Value, probe: (@Sendable () -> Void)? = nil) {
        self.value = value
        self.probe = probe
    }

    func then(_ onSuccess: ((Value) throws -> ())?, _ onFailure: ((Any?) -> ())?) {
        probe?()
        try? onSuccess?(value)
    }
}

extension SyncThenable: Sendable where Value: Sendable {}

/// Calls `onFailure` with `reason` at once, inside `then`. The reason need not be an Error.
struct SyncRejectingThenable<Value>: Thenable, Sendable {
    let reason: (any Sendable)?

    func then(_ onSuccess: ((Value) throws -> ())?, _ onFailure: ((Any?) -> ())?) {
        onFailure?(reason)
    }
}

/// Calls `onSuccess` with `value` later, from a thread of the global queue, after
/// `release` is signalled (if given) so the test decides when.
struct AsyncThenable<Value: Sendable>: Thenable {
    let value: Value
    let release: DispatchSemaphore?

    init(_ value: Value, after release: DispatchSemaphore? = nil) {
        self.value = value
        self.release = release
    }

    func then(_ onSuccess: ((Value) throws -> ())?, _ onFailure: ((Any?) -> ())?) {
        // The callback is handed to one other thread and called there once.
        let callback = UncheckedSendable(onSuccess)
        let value = self.value
        let release = self.release
        DispatchQueue.global().async {
            if let release { _ = wait(release) }
            try? callback.value?(value)
        }
    }
}

/// Calls its callbacks in a scripted order, several times: only the first call may count.
struct ScriptedThenable<Value>: Thenable {
    enum Call {
        case success(Value)
        case failure(Any?)
    }
    let script: [Call]

    func then(_ onSuccess: ((Value) throws -> ())?, _ onFailure: ((Any?) -> ())?) {
        for call in script {
            switch call {
            case .success(let value): try? onSuccess?(value)
            case .failure(let reason): onFailure?(reason)
            }
        }
    }
}

/// Never calls back, and keeps neither callback.
struct SilentThenable<Value>: Thenable {
    func then(_ onSuccess: ((Value) throws -> ())?, _ onFailure: ((Any?) -> ())?) {}
}

/// A thenable as the engine sees a C object described by a `vow_thenable_class`: the
/// look-up of `then` may fail, and the method may throw. Counts look-ups (A+ 2.3.3.1).
struct ScriptedSource: ThenableSource {
    let lookUps = Counter()
    let lookUp: @Sendable () -> Result<ThenMethod?, any Error>
    let object: Token

    init(object: Token = Token(), _ lookUp: @escaping @Sendable () -> Result<ThenMethod?, any Error>) {
        self.object = object
        self.lookUp = lookUp
    }

    func lookUpThen() -> Result<ThenMethod?, any Error> {
        lookUps.increment()
        return lookUp()
    }

    func fulfilmentValue() -> StoredValue { StoredValue(object) }

    func resolution(of y: Any) -> Resolution { Resolution.classifying(y) }
}

/// Wraps a `ThenableSource` so a value of this type enters the resolution procedure the
/// way a C thenable does (through `Resolvable`).
struct SourceValue: Resolvable {
    let source: any ThenableSource
    package var resolution: Resolution { .assimilate(source) }
}
