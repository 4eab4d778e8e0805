#if canImport(Glibc)
import Glibc
#endif

/// The process-wide handler for rejections that nobody handled. One setting, shared by
/// Swift (`Vow.unhandledErrorHandler`) and C (`vow_set_unhandled_error_handler`).
///
/// `report` is called from `Core.deinit`, once per unhandled rejection, on the thread that
/// dropped the last reference; the handler runs outside every library lock.
enum UnhandledErrors {
    /// nil: the default handler (one line on standard error, silent for cancellations).
    /// Receives the error as the engine holds it (a C error stays boxed).
    typealias Sink = @Sendable (any Error) -> Void

    private static let sink = Locked<Sink?>(nil)

    static func report(_ error: any Error) {
        let current = sink.withLock { $0 }
        if let current {
            current(error)
        } else {
            writeDefaultReport(error)
        }
    }

    /// Replaces the handler; returns the previous one so the caller drops it outside the
    /// lock (a C handler's `destroy` runs when its last reference goes).
    @discardableResult
    static func replace(with newSink: Sink?) -> Sink? {
        sink.withLock { current in
            let previous = current
            current = newSink
            return previous
        }
    }

    static var current: Sink? { sink.withLock { $0 } }

    private static func writeDefaultReport(_ error: any Error) {
        guard !isCancellation(error) else { return }
        var line = "vow: unhandled error: \(describe(error))\n"
        line.withUTF8 { bytes in
            _ = write(2, bytes.baseAddress, bytes.count)
        }
    }

    static func describe(_ error: any Error) -> String {
        let unboxed = unboxError(error)
        if let vow = unboxed as? VowError {
            return "\(vow.domain) \(vow.code): \(vow.message)"
        }
        return "\(type(of: unboxed)): \(String(describing: unboxed))"
    }
}
