import CVow

// Helpers (vow.h, "Helpers: lazy promises, delay, retry"): thin entry points over the
// engine's lazy promises, delay and retry. The C callbacks and their `ctx` live in a
// `CCallback`, whose `destroy` runs once, when the last closure holding it is released. Each function is written once, as
// `func NAME(<its C parameters>, at site:)` with the site to record in debug mode; its C
// entry points NAME and NAME_site are generated from the header's table
// `VOW_PROMISE_MAKERS` into CPromiseMakers.swift.

@inline(__always)
func vow_promise_lazy(_ body: vow_lazy_body?, _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?,
                      at site: Site) -> OpaquePointer? {
    cPromiseLazy(.plain, body, ctx, destroy, in: "vow_promise_lazy", at: site)
}

@inline(__always)
func vow_promise_lazy_on(_ d: OpaquePointer?, _ body: vow_lazy_body?, _ ctx: UnsafeMutableRawPointer?,
                         _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    cPromiseLazy(.on(d), body, ctx, destroy, in: "vow_promise_lazy_on", at: site)
}

/// `vow_promise_lazy` and `vow_promise_lazy_on`: the lazy promise whose producer calls
/// `body(ctx, resolver)`; the resolver handed to C is borrowed for the call (a C program
/// retains it to settle later).
@inline(__always)
private func cPromiseLazy(_ d: CDispatcherArgument, _ body: vow_lazy_body?, _ ctx: UnsafeMutableRawPointer?,
                  _ destroy: CDestroy?, in function: StaticString, at site: Site) -> OpaquePointer? {
    guard let dispatcher = d.dispatcher(in: function), let body else {
        var context = CContext(ctx, destroy)
        context.destroyNow()
        return nil
    }
    let callback = CCallback(ctx: ctx, destroy: destroy)
    return Core.lazy(on: dispatcher) { core in
        let resolver = PrimaryResolver(core)
        withExtendedLifetime(resolver) {
            body(callback.ctx, resolver.borrowedHandle)
        }
    }.made(at: site).retainedHandle
}

@inline(__always)
func vow_delay(_ p: OpaquePointer?, _ seconds: Double, at site: Site) -> OpaquePointer? {
    guard let core = handle(p, as: Core.self, in: "vow_delay") else { return nil }
    return core.delayed(seconds: cSeconds(seconds, in: "vow_delay"), on: DefaultDispatcher.shared, at: site).retainedHandle
}

@inline(__always)
func vow_retry(_ times: Int32, _ delay_seconds: Double, _ make: vow_retry_make?, _ should_retry: vow_retry_if?,
               _ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?, at site: Site) -> OpaquePointer? {
    guard let make else {
        var context = CContext(ctx, destroy)
        context.destroyNow()
        return nil
    }
    let callback = CCallback(ctx: ctx, destroy: destroy)
    var predicate: (@Sendable (any Error) -> Bool)?
    if let should_retry {
        predicate = { error in
            let box = VowErrorBox.boxing(error)
            return withExtendedLifetime(box) { should_retry(callback.ctx, box.borrowedHandle) }
        }
    }
    return Core.retry(times: Int(times), delay: cSeconds(delay_seconds, in: "vow_retry"), firstInline: false,
                      shouldRetry: predicate) {
        let made = make(callback.ctx)
        guard let core = handle(made, as: Core.self, in: "vow_retry") else {
            throw VowError(.type, "vow_retry: make returned NULL or not a vow_promise")
        }
        releaseHandle(made, .promise, in: "vow_retry")
        return core
    }.made(at: site).retainedHandle
}
