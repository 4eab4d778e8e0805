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

    /// Holds the handler in a class: a closure stored directly in `Locked` would be
    /// re-wrapped in a conversion thunk each time it passes through the generic `inout`
    /// of `withLock`, so every report would call through one more layer (a stack overflow
    /// after some 200,000 reports, a bug once).
    final class SinkBox: Sendable {
        let call: Sink
        init(_ call: @escaping Sink) { self.call = call }
    }

    private static let sink = Locked<SinkBox?>(nil)

    static func report(_ error: any Error) {
        let current = sink.withLock { $0 }
        if let current {
            current.call(error)
        } else {
            writeDefaultReport(error)
        }
    }

    /// Replaces the handler; returns the previous one so the caller drops it outside the
    /// lock (a C handler's `destroy` runs when its last reference goes).
    @discardableResult
    static func replace(with newSink: Sink?) -> SinkBox? {
        let box = newSink.map(SinkBox.init)
        return sink.withLock { current in
            let previous = current
            current = box
            return previous
        }
    }

    static var current: Sink? { sink.withLock { $0 }?.call }

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
