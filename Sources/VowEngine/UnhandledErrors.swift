import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An error that says how the default unhandled-error report names it (the library's own
/// errors, C errors): "domain code: message".
package protocol UnhandledDescribable {
    var unhandledDescription: String { get }
}

/// The process-wide handler for rejections that nobody handled. One setting, shared by
/// the faces (each sets it through its own API).
///
/// `report` is called from `Core.deinit`, once per unhandled rejection, on the thread that
/// dropped the last reference; the handler runs outside every library lock.
@usableFromInline package enum UnhandledErrors {
    /// Receives the error as the engine holds it (a face's box stays boxed: the face that
    /// installed the sink unwraps it) and where the dropped promise came from (debug mode).
    @usableFromInline package typealias Sink = @Sendable (any Error, DebugRecord?) -> Void

    /// Holds the handler in a class: a closure stored directly in `Locked` would be
    /// re-wrapped in a conversion thunk each time it passes through the generic `inout`
    /// of `withLock`, so every report would call through one more layer (a stack overflow
    /// after some 200,000 reports, a bug once).
    @usableFromInline package final class SinkBox: Sendable {
        @usableFromInline let call: Sink
        init(_ call: @escaping Sink) { self.call = call }
    }

    private static let sink = Locked<SinkBox?>(nil)

    /// The innermost `withSink` scope around the calling code (task-local): it receives the
    /// reports made on the thread that opened it while it is open, and in the tasks started
    /// in it.
    @TaskLocal static var scopedSink: SinkScope? = nil
    /// How many `SinkScope`s exist (open, or held by a task started in one): while none
    /// does, a report reads no task-local value.
    private static let liveScopes = Atomic<Int>(0)

    /// The handler a `withSink` scope binds (nil: the default report), counted in
    /// `liveScopes` from its creation to its release.
    final class SinkScope: Sendable {
        let box: SinkBox?

        init(_ sink: Sink?) {
            box = sink.map(SinkBox.init)
            liveScopes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }

        deinit { liveScopes.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
    }

    /// Reports `error`, the rejection of a promise that is being freed, made where
    /// `record` says (debug mode).
    static func report(_ error: any Error, _ record: DebugRecord?) {
        if liveScopes.load(ordering: .relaxed) != 0, let scope = scopedSink {
            if let box = scope.box {
                box.call(error, record)
            } else {
                writeDefaultReport(error, record)
            }
            return
        }
        // The box is copied (retained) under the setting's lock: a replacement on another
        // thread cannot free it while this report uses it.
        let current = sink.withLock { $0 }
        if let current {
            current.call(error, record)
        } else {
            writeDefaultReport(error, record)
        }
    }

    /// Runs `body` with `newSink` (nil: the default report) receiving the reports made in
    /// the calling code: on this thread while `body` runs, and in the tasks started there.
    /// A promise dropped on another thread (a dispatcher's, after its callback ran) is
    /// reported to the process-wide handler. Scopes nest; the innermost wins.
    package static func withSink<R>(_ newSink: Sink?, _ body: () throws -> R) rethrows -> R {
        try $scopedSink.withValue(SinkScope(newSink), operation: body)
    }

    /// `withSink` for an asynchronous body (the scope covers it across suspensions, and the
    /// tasks it starts).
    package static func withSink<R>(_ newSink: Sink?, isolation: isolated (any Actor)? = #isolation,
                                    _ body: () async throws -> R) async rethrows -> R {
        try await $scopedSink.withValue(SinkScope(newSink), operation: body, isolation: isolation)
    }

    /// Replaces the handler (nil: the default); returns the previous one so the caller
    /// drops it outside the lock (a C handler's `destroy` runs when its last reference
    /// goes, after any report still running it returned).
    @discardableResult
    @usableFromInline package static func replace(with newSink: Sink?) -> SinkBox? {
        let box = newSink.map(SinkBox.init)
        return sink.withLock { current in
            let previous = current
            current = box
            return previous
        }
    }

    /// The handler a report on this thread would call now: the innermost scope's, else the
    /// process-wide one (nil: the default report).
    @usableFromInline package static var current: Sink? {
        if liveScopes.load(ordering: .relaxed) != 0, let scope = scopedSink { return scope.box?.call }
        return sink.withLock { $0 }?.call
    }

    /// The default handler: one line on standard error, nothing for cancellations.
    @usableFromInline package static func writeDefaultReport(_ error: any Error, _ record: DebugRecord?) {
        guard !isCancellation(error) else { return }
        var line = "vow: unhandled error: " + ReportLine.escaped(describe(error), limit: ReportLine.limit)
        if let record { line += " (" + record.reportSites + ")" }
        writeLine(line)
    }

    /// How the default line names an error: "domain code: message" for the library's and
    /// C's errors, "Type: description" for any other.
    @usableFromInline static func describe(_ error: any Error) -> String {
        if let described = error as? any UnhandledDescribable { return described.unhandledDescription }
        return "\(type(of: error)): \(String(describing: error))"
    }
}

/// One line of the library's own output on standard error.
@usableFromInline enum ReportLine {
    /// The longest text a report keeps (in bytes of UTF-8); longer text ends in "…".
    @usableFromInline static let limit = 1024

    /// `text` as one line: control characters escaped (`\n`, `\r`, `\t`, other bytes
    /// below 0x20 and DEL as `\xNN`, a backslash as `\\`), cut at `limit` bytes of UTF-8
    /// (at a character boundary) with "…" at the end.
    @usableFromInline static func escaped(_ text: String, limit: Int) -> String {
        var out = ""
        var bytes = 0
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar {
            case "\n": piece = "\\n"
            case "\r": piece = "\\r"
            case "\t": piece = "\\t"
            case "\\": piece = "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    let hex = String(scalar.value, radix: 16)
                    piece = "\\x" + (hex.count < 2 ? "0" + hex : hex)
                } else {
                    piece = String(scalar)
                }
            }
            let size = piece.utf8.count
            if bytes + size > limit {
                out += "…"
                return out
            }
            out += piece
            bytes += size
        }
        return out
    }
}

/// Writes `line` and a newline to standard error in one `write` (no buffering, no
/// interleaving with other threads' lines).
@usableFromInline package func writeLine(_ line: String) {
    var text = line
    text.append("\n")
    text.withUTF8 { bytes in
        _ = write(2, bytes.baseAddress, bytes.count)
    }
}
