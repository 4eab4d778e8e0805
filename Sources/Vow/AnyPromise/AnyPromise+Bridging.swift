// AnyPromise <-> Promise<T>, manifolds, and C handles.

extension AnyPromise: PromiseView, Resolvable {
    var promiseCore: Core { core }
    package var resolution: Resolution { .adopt(core) }
}

extension Promise: PromiseView, BridgedPromise {
    var promiseCore: Core { core }

    static func bridgePromise(_ core: Core) -> Any {
        Promise<T>(AnyPromise(core: core))
    }
}

extension AnyPromise: Thenable {
    /// The seed two-callback `then` (see `Promise.then(_:_:)`), with the untyped value.
    public func then(_ onSuccess: (@Sendable (Any?) throws -> ())?, _ onFailure: (@Sendable (Any?) -> ())?) {
        _ = core.link(on: .default, SeedThenBody(onSuccess: onSuccess, onFailure: onFailure) { source in
            Bridging.untyped(source)
        })
    }
}

extension AnyPromise {
    /// A promise fulfilled with a manifold: a LIST of `values`, each in its C form (see
    /// the bridging table), that unboxes to a tuple of the same arity
    /// (`Promise<(Int, String)>(manifold)`) or an array, and that C's `vow_then_call`
    /// spreads into a function's parameters.
    public static func manifold(_ values: Any..., file: StaticString = #fileID, line: UInt = #line) -> AnyPromise {
        AnyPromise(core: Core(fulfilled: VowValue(.list(values.map { VowValue.bridging($0) })))
            .made(at: .source(file, line)))
    }

    /// The same promise, typed: fulfils with the value converted to `T` (see `Bridging`),
    /// or rejects with `VowError.Code.type` naming what was expected and found.
    public func `as`<T: Sendable>(_ type: T.Type) -> Promise<T> { Promise<T>(self) }

    /// The same promise as a pair (the value must be a list of two).
    public func `as`<A: Sendable, B: Sendable>(_ type: (A, B).Type) -> Promise<(A, B)> { Promise<(A, B)>(self) }

    /// The same promise as a triple (the value must be a list of three).
    public func `as`<A: Sendable, B: Sendable, C: Sendable>(_ type: (A, B, C).Type) -> Promise<(A, B, C)> { Promise<(A, B, C)>(self) }

    /// The same promise as a 4-tuple (the value must be a list of four).
    public func `as`<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(_ type: (A, B, C, D).Type) -> Promise<(A, B, C, D)> {
        Promise<(A, B, C, D)>(self)
    }

    /// The same promise as a 5-tuple (the value must be a list of five).
    public func `as`<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable>(_ type: (A, B, C, D, E).Type) -> Promise<(A, B, C, D, E)> {
        Promise<(A, B, C, D, E)>(self)
    }

    // MARK: C handles

    /// Wraps a `vow_promise *` received from C. The handle is borrowed: this promise takes
    /// its own reference (the caller still releases the one it holds). Returns nil for
    /// NULL or for a pointer that is not a live `vow_promise` (a line on standard error
    /// says which), and for a promise of another copy of the engine loaded in the process
    /// (this code built with a copy of its own, say, next to the `libvow.so` that made the
    /// promise): the line then names both files. Swift code that shares promises with C
    /// links the same `libvow.so` as the C code (README, "One engine per process").
    public init?(unsafeHandle: OpaquePointer?) {
        guard let core = handle(unsafeHandle, as: Core.self, in: "AnyPromise(unsafeHandle:)") else { return nil }
        self.core = core
    }

    /// A `vow_promise *` for C, +1: the receiver releases it with `vow_promise_release`
    /// (return it from a `@c` function that hands C a new promise).
    public func unsafeRetainedHandle() -> OpaquePointer {
        core.retainedHandle
    }
}

extension Promise {
    /// The typed view of an untyped promise: fulfils with its value converted to `T`
    /// (C values per the table in `Bridging`; a LIST converts to a tuple through the
    /// tuple initialisers below), or rejects with `VowError.Code.type` naming what was
    /// expected and found. A rejection passes through. Cancelling this promise cancels
    /// `any` unless something else still waits on it.
    ///
    /// Disfavoured so that, for a tuple type, the tuple initialisers below are chosen.
    @_disfavoredOverload
    public init(_ any: AnyPromise) {
        self.init(core: any.core.converted { source in
            try Bridging.cast(source.anyValue!, to: T.self).get()
        })
    }

    /// A pair from an untyped promise fulfilled with a list (a manifold) of two values.
    public init<A: Sendable, B: Sendable>(_ any: AnyPromise) where T == (A, B) {
        self.init(core: any.core.converted { source in
            let v = try Bridging.elements(of: source.anyValue!, count: 2, for: T.self)
            return (try Bridging.element(v, 0, A.self, for: T.self), try Bridging.element(v, 1, B.self, for: T.self))
        })
    }

    /// A triple from an untyped promise fulfilled with a list of three values.
    public init<A: Sendable, B: Sendable, C: Sendable>(_ any: AnyPromise) where T == (A, B, C) {
        self.init(core: any.core.converted { source in
            let v = try Bridging.elements(of: source.anyValue!, count: 3, for: T.self)
            return (try Bridging.element(v, 0, A.self, for: T.self), try Bridging.element(v, 1, B.self, for: T.self), try Bridging.element(v, 2, C.self, for: T.self))
        })
    }

    /// A 4-tuple from an untyped promise fulfilled with a list of four values.
    public init<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(_ any: AnyPromise) where T == (A, B, C, D) {
        self.init(core: any.core.converted { source in
            let v = try Bridging.elements(of: source.anyValue!, count: 4, for: T.self)
            return (try Bridging.element(v, 0, A.self, for: T.self), try Bridging.element(v, 1, B.self, for: T.self), try Bridging.element(v, 2, C.self, for: T.self), try Bridging.element(v, 3, D.self, for: T.self))
        })
    }

    /// A 5-tuple from an untyped promise fulfilled with a list of five values.
    public init<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable>(_ any: AnyPromise) where T == (A, B, C, D, E) {
        self.init(core: any.core.converted { source in
            let v = try Bridging.elements(of: source.anyValue!, count: 5, for: T.self)
            return (try Bridging.element(v, 0, A.self, for: T.self), try Bridging.element(v, 1, B.self, for: T.self), try Bridging.element(v, 2, C.self, for: T.self), try Bridging.element(v, 3, D.self, for: T.self), try Bridging.element(v, 4, E.self, for: T.self))
        })
    }
}

extension Core {
    /// A promise that settles like this one, its value converted by `transform` (a throw
    /// rejects). The link runs inline, where this promise settles: converting is cheap and
    /// runs no user code. In debug mode it is recorded with this promise's site (a view).
    func converted<T>(_ transform: @escaping @Sendable (Core) throws -> T) -> Core {
        link(on: InlineDispatcher.shared, ClosureBody { source, link in
            guard let source else { return }
            if source.isRejected {
                link.settle(like: source)
                return
            }
            link.settle { try transform(source) }
        }, at: .sameAsSource)
    }
}

extension Bridging {
    /// The untyped Swift view of what a fulfilled promise holds (see `untyped(_:)`).
    static func untyped(_ promise: Core) -> Any? {
        untyped(promise.anyValue!)
    }

    /// The untyped Swift view of a value: C values in their Swift form
    /// (`VowValue.swiftValue()`), C's NULL, `()` and `Optional.none` as nil, arrays element
    /// by element.
    static func untyped(_ raw: Any) -> Any? {
        if let cValue = raw as? VowValue {
            if cValue.isNull { return nil }
            return cValue.swiftValue()
        }
        if let optional = raw as? any AnyOptional {
            guard let wrapped = optional.wrappedAny else { return nil }
            return untyped(wrapped)
        }
        if raw is Void { return nil }
        if type(of: raw) == [Any].self {
            return (raw as! [Any]).map { untyped($0) as Any }
        }
        return raw
    }

    /// The elements of a list value (a C LIST, a Swift array or tuple) that must have
    /// `count` elements to become `Tuple`.
    static func elements<Tuple>(of raw: Any, count: Int, for tuple: Tuple.Type) throws -> [Any] {
        let value = VowValue.bridging(raw)
        guard let items = value.listElements, items.count == count else {
            throw typeError(expected: Tuple.self, found: value.kindDescription)
        }
        return items
    }

    /// Element `index` of a tuple being unboxed, converted to `Element`.
    static func element<Element, Tuple>(_ items: [Any], _ index: Int, _ type: Element.Type,
                                        for tuple: Tuple.Type) throws -> Element {
        switch cast(items[index], to: Element.self) {
        case .success(let element):
            return element
        case .failure(let error):
            let reason = (error as? VowError)?.message ?? "\(error)"
            throw VowError(.type, "expected \(Tuple.self), item \(index): \(reason)")
        }
    }
}
