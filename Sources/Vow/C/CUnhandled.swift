import CVow

// Unhandled errors and cancellation (vow.h, "Unhandled errors and cancellation").

/// A C unhandled-error handler installed as the engine's sink (the sink closure holds it).
extension CInstalledCallback where Function == vow_unhandled_handler {
    /// Calls the handler with `error`; `record`'s sites (debug mode) are readable through
    /// `vow_unhandled_site` during the call.
    func report(_ error: any Error, _ record: DebugRecord?) {
        let box = VowErrorBox.boxing(error)
        withExtendedLifetime(box) {
            CUnhandledSites.with(record) {
                function(callback.ctx, box.borrowedHandle)
            }
        }
    }
}

@c @implementation
func vowface_set_unhandled_error_handler(_ h: vow_unhandled_handler?, _ ctx: UnsafeMutableRawPointer?,
                                            _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
    let callback = CCallback(ctx: ctx, destroy: destroy)
    let previous: UnhandledErrors.SinkBox?
    if let h {
        let installed = CInstalledCallback(h, callback)
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
func vowface_cancel(_ p: OpaquePointer?) {
    handle(p, as: Core.self, in: "vow_cancel")?.cancel()
}
