// C functions and their contexts, held by the objects behind C handles and by the C
// entry points alike: a context with its `destroy` run once (`CContext` inside a link
// body, `CCallback` owned by closures), a process-wide handler a program installed
// (`CInstalledCallback`).

/// A C `destroy` function for a context pointer.
typealias CDestroy = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// A C `ctx` and its `destroy`, run at most once (`destroyNow`). Kept inside link bodies.
struct CContext: @unchecked Sendable {
    // @unchecked: see `CLinkBody`.
    let ctx: UnsafeMutableRawPointer?
    private var destroy: CDestroy?

    init(_ ctx: UnsafeMutableRawPointer?, _ destroy: CDestroy?) {
        self.ctx = ctx
        self.destroy = destroy
    }

    /// Runs `destroy(ctx)` if it has not run yet.
    mutating func destroyNow() {
        let destroy = self.destroy
        self.destroy = nil
        destroy?(ctx)
    }
}

/// A C `ctx` and its `destroy` owned by a closure (cancel handlers, the unhandled-error
/// handler, a dispatcher's host): `destroy` runs once, when the last reference goes.
final class CCallback: @unchecked Sendable {
    // @unchecked: immutable; see `CLinkBody`.
    let ctx: UnsafeMutableRawPointer?
    private let destroy: CDestroy?
    /// A plain `fn(ctx)` (cancel handlers).
    let plain: CDestroy?

    init(ctx: UnsafeMutableRawPointer?, destroy: CDestroy?, plain: CDestroy? = nil) {
        self.ctx = ctx
        self.destroy = destroy
        self.plain = plain
    }

    deinit { destroy?(ctx) }
}

/// A process-wide C handler a program installed (the unhandled-error handler, the misuse
/// handler): its function pointer with its `ctx` and `destroy`. The setting holds it;
/// when it is replaced and no report still runs it, its last reference goes and
/// `destroy(ctx)` runs (CCallback's deinit).
final class CInstalledCallback<Function>: @unchecked Sendable {
    // @unchecked: immutable; the host vouches that `ctx` may be used from any thread.
    let function: Function
    let callback: CCallback

    init(_ function: Function, _ callback: CCallback) {
        self.function = function
        self.callback = callback
    }
}
