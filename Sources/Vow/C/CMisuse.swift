import CVow

// Misuse lines (vow.h, "Misuse lines"): the one-line diagnostics the C entry points write
// when a program hands them something they cannot use (a handle of the wrong kind, a
// count too large, an unknown policy, a malformed signature, a job run twice). By default
// each goes to standard error in one write; `vow_set_misuse_handler` routes or silences
// them.

/// The handler set through C (nil: the default line on standard error). Read under its
/// lock, which copies (retains) the reference before unlocking, so a replacement on
/// another thread cannot free a handler while a report runs it.
private let misuseSetting = Locked<CInstalledCallback<vow_misuse_handler>?>(nil)

/// Reports one misuse line: to the C handler if one is set (on the calling thread, inside
/// the call that was misused, never under a library lock), else to standard error.
func writeDiagnostic(_ line: String) {
    guard let current = misuseSetting.withLock({ $0 }) else {
        writeLine(line)
        return
    }
    line.withCString { text in current.function(current.callback.ctx, text) }
}

/// Whether `n`, a C `size_t` count of elements of `stride` bytes starting at `base`, is
/// one the program can mean: it fits in a signed `Int` (Swift reads `size_t` as `Int`, so
/// a count with the top bit set arrives negative) and the elements fit in the address
/// space after `base`. A count that does not is misuse: a line names `function`, and the
/// caller answers as for NULL.
func validCount(_ n: Int, stride: Int, base: UnsafeRawPointer?, in function: StaticString) -> Bool {
    if n >= 0 {
        let (bytes, overflow) = n.multipliedReportingOverflow(by: stride)
        let start = UInt(bitPattern: base)
        if !overflow, start <= UInt.max - UInt(bytes) { return true }
    }
    writeDiagnostic("vow: \(function): count \(UInt(bitPattern: n)) is too large")
    return false
}

@c @implementation
public func vow_set_misuse_handler(_ h: vow_misuse_handler?, _ ctx: UnsafeMutableRawPointer?,
                                   _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
    let callback = CCallback(ctx: ctx, destroy: destroy)
    let installed = h.map { CInstalledCallback($0, callback) }
    let previous = misuseSetting.withLock { current -> CInstalledCallback<vow_misuse_handler>? in
        let previous = current
        current = installed
        return previous
    }
    // Dropped here, outside the lock: the previous handler's destroy runs now, or when a
    // report still running it returns. With NULL h, `callback` goes at the end of this
    // call and its destroy runs.
    withExtendedLifetime(previous) {}
}
