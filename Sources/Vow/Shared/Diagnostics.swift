import CVow

// Misuse lines (vow.h, "Misuse lines"): the one-line diagnostics written when a program
// hands the library something it cannot use (a handle of the wrong kind, a count too
// large, an unknown policy, a malformed signature, a job run twice), from a C entry point
// or from a Swift call that takes a C handle (`AnyPromise(unsafeHandle:)`). By default
// each goes to standard error in one write; `vow_set_misuse_handler` routes or silences
// them.

/// The process-wide misuse handler.
enum MisuseLines {
    /// The handler set through C (nil: the default line on standard error). Read under its
    /// lock, which copies (retains) the reference before unlocking, so a replacement on
    /// another thread cannot free a handler while a report runs it.
    fileprivate static let setting = Locked<CInstalledCallback<vow_misuse_handler>?>(nil)

    /// Replaces the handler (nil: the default line on standard error); returns the previous
    /// one, for the caller to drop outside the lock.
    static func replaceHandler(with installed: CInstalledCallback<vow_misuse_handler>?)
        -> CInstalledCallback<vow_misuse_handler>? {
        setting.withLock { current in
            let previous = current
            current = installed
            return previous
        }
    }
}

/// Reports one misuse line: to the C handler if one is set (on the calling thread, inside
/// the call that was misused, never under a library lock), else to standard error.
func writeDiagnostic(_ line: String) {
    guard let current = MisuseLines.setting.withLock({ $0 }) else {
        writeLine(line)
        return
    }
    line.withCString { text in current.function(current.callback.ctx, text) }
}
