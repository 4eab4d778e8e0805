// PromiseKit's ways to end or mend a chain that Vow's own vocabulary (Promise+Chain.swift)
// lacks: `recover(policy:)`, `ensureThen`, `cauterize`. Each registers one link on this
// promise (the engine's link primitive), like every operator there.

extension Promise {
    /// Handles a rejection by returning a promise to continue with, as PromiseKit's
    /// `recover(policy:)`: with `.allErrorsExceptCancellation` a cancellation is not
    /// handled and passes through; with `.allErrors` every error reaches `body` (as with
    /// `recover` without a policy, Vow's rule, where PromiseKit skips cancellation by
    /// default). A fulfilment passes through.
    @_disfavoredOverload
    public func recover(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        policy: CatchPolicy,
                        _ body: @escaping @Sendable (any Error) throws -> Promise<T>) -> Promise<T> {
        Promise(core: core.link(on: dispatcher, RecoverBody(.promise(body), policy: policy), at: .source(file, line)))
    }

    /// Handles a rejection by returning a replacement value; `policy` as for the
    /// promise-returning `recover(policy:)`.
    public func recover(on dispatcher: any Dispatcher = .default,
                        file: StaticString = #fileID, line: UInt = #line,
                        policy: CatchPolicy,
                        _ body: @escaping @Sendable (any Error) throws -> T) -> Promise<T> {
        Promise(core: core.link(on: dispatcher, RecoverBody(.value(body), policy: policy), at: .source(file, line)))
    }

    /// Runs `body` whatever happened, waits for the promise it returns, then settles like
    /// this promise (PromiseKit's `ensureThen`: asynchronous cleanup). If `body`'s promise
    /// rejects, the returned promise rejects with that error instead (as JavaScript's
    /// `finally`; PromiseKit's cleanup returns a `Guarantee`, which cannot fail). Like
    /// `finally`, `body` runs also when the returned promise was cancelled.
    public func ensureThen(on dispatcher: any Dispatcher = .default,
                           file: StaticString = #fileID, line: UInt = #line,
                           _ body: @escaping @Sendable () -> Promise<Void>) -> Promise<T> {
        Promise(core: core.link(on: dispatcher, EnsureThenBody(body), at: .source(file, line)))
    }

    /// Ends the chain (PromiseKit's `cauterize`): every error is handled here. One that is
    /// not a cancellation is passed to `VowRuntime.unhandledErrorHandler` at once, on the
    /// thread that settled this promise (by default: one line on standard error), as
    /// PromiseKit logs it; a cancellation is dropped silently. The returned promise always
    /// fulfils once this one settled.
    @discardableResult
    public func cauterize(file: StaticString = #fileID, line: UInt = #line) -> Promise<Void> {
        `catch`(on: .inline, file: file, line: line, policy: .allErrors) { error in
            guard !isCancellation(error) else { return }
            reportCauterized(error)
        }
    }
}

/// Hands a cauterized error to the unhandled-error handler set now (Swift's or C's), or
/// writes the default line.
private func reportCauterized(_ error: any Error) {
    if let handler = UnhandledErrors.current {
        handler(error, nil)
    } else {
        UnhandledErrors.writeDefaultReport(error, nil)
    }
}

/// `ensureThen { () -> Promise<Void> }`: a cleanup body (it runs also when its link was
/// cancelled); the link then follows the cleanup's promise, and settles like the source
/// once it fulfils (like the cleanup's promise if it rejects).
struct EnsureThenBody: LinkBody {
    var body: (@Sendable () -> Promise<Void>)?

    init(_ body: @escaping @Sendable () -> Promise<Void>) { self.body = body }

    static var isCleanup: Bool { true }

    func run(from source: Core?, settling link: Core) {
        guard let body else { return }
        let cleanup = body().core
        guard let source else { return }
        link.follow(cleanup.link(on: .inline, ClosureBody { cleanup, next in
            guard let cleanup else { return }
            next.settle(like: cleanup.isRejected ? cleanup : source)
        }))
    }

    mutating func dispose() { body = nil }
}
