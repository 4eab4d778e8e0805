import CVow

// Unhandled errors and cancellation (vow.h, "Unhandled errors and cancellation").

/// A C unhandled-error handler installed as the engine's sink. The sink closure holds it;
/// when the setting is replaced and no report still runs it, its last reference goes and
/// `destroy(ctx)` runs (CCallback's deinit).
private final class CUnhandledHandler: @unchecked Sendable {
    // @unchecked: immutable; the host vouches that `ctx` may be used from any thread.
    let handler: vow_unhandled_handler
    let callback: CCallback

    init(_ handler: vow_unhandled_handler, _ callback: CCallback) {
        self.handler = handler
        self.callback = callback
    }

    /// Calls the handler with `error`; `record`'s sites (debug mode) are readable through
    /// `vow_unhandled_site` during the call.
    func report(_ error: any Error, _ record: DebugRecord?) {
        let box = VowErrorBox.boxing(error)
        withExtendedLifetime(box) {
            CUnhandledSites.with(record) {
                handler(callback.ctx, box.borrowedHandle)
            }
        }
    }
}

@c @implementation
public func vow_set_unhandled_error_handler(_ h: vow_unhandled_handler?, _ ctx: UnsafeMutableRawPointer?,
                                            _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
    let callback = CCallback(ctx: ctx, destroy: destroy)
    let previous: UnhandledErrors.SinkBox?
    if let h {
        let installed = CUnhandledHandler(h, callback)
        previous = UnhandledErrors.replace(with: { error, record in installed.report(error, record) })
    } else {
        previous = UnhandledErrors.replace(with: nil)
    }
    // Dropped here, outside the setting's lock: the previous C handler's destroy runs now,
    // or when a report that is still running it returns. With NULL h, `callback` goes at
    // the end of this call and its destroy runs.
    withExtendedLifetime(previous) {}
}

@c @implementation
public func vow_cancel(_ p: OpaquePointer?) {
    promiseHandle(p, in: "vow_cancel")?.cancel()
}
