// wordcount.swift: a Swift component that C programs call through vow.h.
//
// It exports two C functions (declared for C in wordcount.h):
//   vow_promise *wc_count(vow_promise *directory, double timeout_seconds);
//   int64_t wc_files_counted(void);
//
// The work is typed Swift: Promise<String> in, Promise<(Int, Int, Int, Int)> out. The C
// program sees the same promises as vow_promise handles; a Swift tuple reaches C as a
// LIST. Built as libwordcount.so against the libvow.so the C program links (see
// Examples/run-examples.sh), so the process has one promise engine.

import Glibc
import Synchronization
import Vow

/// Progress, readable from C at any time: files counted by every request so far.
private let filesCounted = Atomic<Int>(0)

/// The component's own errors. In C they arrive with the domain "WordCountError" and this
/// description as the message.
enum WordCountError: Error, CustomStringConvertible {
    case cannotOpen(path: String, errno: Int32)

    var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            return "cannot open \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// Lines, words and bytes of one file, or of many added up.
struct Counts {
    var files = 0, lines = 0, words = 0, bytes = 0

    static func + (a: Counts, b: Counts) -> Counts {
        Counts(files: a.files + b.files, lines: a.lines + b.lines,
               words: a.words + b.words, bytes: a.bytes + b.bytes)
    }
}

@_cdecl("wc_count")
public func wc_count(_ directory: OpaquePointer?, _ timeoutSeconds: Double) -> OpaquePointer? {
    // Borrow C's promise: AnyPromise(unsafeHandle:) retains it; C keeps its own reference.
    guard let input = AnyPromise(unsafeHandle: directory) else { return nil }

    let counted = Promise<String>(input)                      // a typed view: a STRING is a String
        .map(on: .background) { path in try listFiles(in: path) }
        .flatMap { paths in
            // One job per file on the background pool; `when` fulfils once all are done,
            // or rejects with the first error. Cancelling it cancels the jobs that have not
            // started (nothing else waits on them).
            when(fulfilled: paths.map { path in Promise(on: .background) { try countFile(path) } })
        }
        .map { perFile in perFile.reduce(Counts(), +) }
        .map { total in (total.files, total.lines, total.words, total.bytes) }  // a LIST of four INTs in C
        .timeout(seconds: timeoutSeconds)

    // Hand C a +1 reference to the same promise; C releases it with vow_promise_release.
    return AnyPromise(counted).unsafeRetainedHandle()
}

@_cdecl("wc_files_counted")
public func wc_files_counted() -> Int64 {
    Int64(filesCounted.load(ordering: .relaxed))
}

/// Every regular file under `directory`, depth first, hidden entries skipped.
private func listFiles(in directory: String) throws -> [String] {
    guard let handle = opendir(directory) else {
        throw WordCountError.cannotOpen(path: directory, errno: errno)
    }
    defer { closedir(handle) }
    var files: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name.hasPrefix(".") { continue }
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        switch Int32(entry.pointee.d_type) {
        case Int32(DT_DIR): files += try listFiles(in: path)
        case Int32(DT_REG): files.append(path)
        default: continue   // links, sockets, devices: not counted
        }
    }
    return files
}

/// Counts one file the way `wc` does: newlines, runs of non-space bytes, bytes.
private func countFile(_ path: String) throws -> Counts {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw WordCountError.cannotOpen(path: path, errno: errno) }
    defer { close(fd) }
    var counts = Counts(files: 1)
    var inWord = false
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        counts.bytes += n
        for byte in buffer[0..<n] {
            if byte == UInt8(ascii: "\n") { counts.lines += 1 }
            let isSpace = byte == 0x20 || (byte >= 0x09 && byte <= 0x0d)
            if !isSpace && !inWord { counts.words += 1 }
            inWord = !isSpace
        }
    }
    filesCounted.wrappingAdd(1, ordering: .relaxed)
    return counts
}
