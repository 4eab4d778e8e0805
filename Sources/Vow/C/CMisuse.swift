import CVow

// Misuse lines (vow.h, "Misuse lines"): `vow_set_misuse_handler` (the lines themselves are
// written by `writeDiagnostic`, Shared/Diagnostics.swift), and the check of C counts.

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
func vowface_set_misuse_handler(_ h: vow_misuse_handler?, _ ctx: UnsafeMutableRawPointer?,
                                   _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
    let callback = CCallback(ctx: ctx, destroy: destroy)
    let previous = MisuseLines.replaceHandler(with: h.map { CInstalledCallback($0, callback) })
    // Dropped here, outside the lock: the previous handler's destroy runs now, or when a
    // report still running it returns. With NULL h, `callback` goes at the end of this
    // call and its destroy runs.
    withExtendedLifetime(previous) {}
}

@c @implementation
func vowface_report_misuse(_ function: UnsafePointer<CChar>?, _ message: UnsafePointer<CChar>?) {
    guard let function, let message else { return }
    writeDiagnostic("vow: \(String(cString: function)): \(String(cString: message))")
}
