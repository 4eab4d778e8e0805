#if canImport(Testing)
import Testing
#endif
import Vow

#if canImport(Glibc)
import Glibc
#endif

extension TestLoop {
    /// Fails the current test, listing where each was made, if promises made on the loop's
    /// thread while it was installed are still pending (see `pendingPromises`). Returns true
    /// when none is.
    ///
    /// The failure is a Swift Testing issue at the caller's location (the default arguments
    /// give it: the caller needs no `import Testing`); outside a Swift Testing test (or in a
    /// build without Swift Testing, such as one with a static standard library) it is
    /// written to standard error instead. Call it at the end of a test,
    /// after the loop ran what it should and the test let go of the promises it no longer
    /// needs: a promise still referenced and pending is listed.
    @discardableResult
    public func assertNoPendingPromises(fileID: String = #fileID, filePath: String = #filePath,
                                        line: Int = #line, column: Int = #column) -> Bool {
        let pending = pendingPromises
        guard !pending.isEmpty else { return true }
        let lines = pending.map { "  \($0)" }.joined(separator: "\n")
        let message = "\(self): \(pending.count) promise\(pending.count == 1 ? "" : "s") still pending:\n\(lines)"
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(Comment(rawValue: message),
                         sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
            return false
        }
        #endif
        writeLine(message)
        return false
    }
}

/// Writes `text` and a newline to standard error, in one write.
func writeLine(_ text: String) {
    var line = text
    line.append("\n")
    line.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
            if written <= 0 { break }
            offset += written
        }
    }
}
