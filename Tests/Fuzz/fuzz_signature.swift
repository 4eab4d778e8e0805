// libFuzzer harness for the libffi signature parser (Sources/Vow/FFI/Signature.swift),
// compiled together with that one file:
//
//   swiftc -sanitize=fuzzer,address -parse-as-library -O \
//       Tests/Fuzz/fuzz_signature.swift Sources/Vow/FFI/Signature.swift -o fuzz_signature
//
// Each input is a candidate signature (raw bytes). The harness checks, besides "no crash,
// no out-of-bounds read" (AddressSanitizer):
//   1. the parser accepts exactly what an independent reference recogniser accepts
//      (a return code, '(', up to 32 parameter codes, ')', at most 256 bytes);
//   2. an accepted signature writes back to the same bytes;
//   3. a refusal points inside the input (offset <= length, or 256 for "too long");
//   4. the C-string path (bounded scan) agrees with the buffer path on the bytes before the
//      first NUL, and never reads past a buffer of 257 unterminated bytes (ASan checks
//      the read: the buffer is allocated to its exact size).
// A failed check traps, which libFuzzer reports as a crash with the input saved.

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignature(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let parsed = Result { () throws(SignatureError) -> Signature in try Signature(parsing: bytes) }

    // 1. Acceptance agrees with the reference.
    let expected = referenceAccepts(bytes)
    switch parsed {
    case .success(let signature):
        check(expected, "accepted a signature the reference refuses")
        // 2. Round trip.
        check(Array(signature.text.utf8) == Array(bytes), "text does not round-trip")
        check(signature.parameters.count <= Signature.maxParameters, "too many parameters accepted")
        check(!signature.parameters.contains(.void), "void parameter accepted")
    case .failure(let error):
        check(!expected, "refused a signature the reference accepts: \(error.message)")
        // 3. The offset points into the input.
        check(error.offset >= 0 && error.offset <= max(size, Signature.maxLength), "offset out of range")
        check(!error.message.isEmpty, "empty message")
    }

    // 4. The C-string path.
    let nul = bytes.firstIndex(of: 0) ?? size
    let prefix = UnsafeBufferPointer(rebasing: bytes[0..<nul])
    let viaBuffer = Result { () throws(SignatureError) -> Signature in try Signature(parsing: prefix) }
    if nul <= Signature.maxLength {
        // Terminated copy of the prefix.
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: nul + 1)
        defer { copy.deallocate() }
        for index in 0..<nul { copy[index] = CChar(bitPattern: bytes[index]) }
        copy[nul] = 0
        let viaC = Result { () throws(SignatureError) -> Signature in try Signature(parsingCString: copy) }
        check(viaC == viaBuffer, "C-string path disagrees with the buffer path")
        _ = SignatureError.quoted(cString: copy)
    } else {
        // 257 bytes, no terminator, allocated to the exact size: the scan must stop at the
        // limit (ASan reports a read past the end).
        let limit = Signature.maxLength + 1
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: limit)
        defer { copy.deallocate() }
        for index in 0..<limit { copy[index] = CChar(bitPattern: bytes[index]) }
        let viaC = Result { () throws(SignatureError) -> Signature in try Signature(parsingCString: copy) }
        check(viaC == .failure(SignatureError(.tooLong, at: Signature.maxLength)), "long C string not refused")
        _ = SignatureError.quoted(cString: copy, limit: 64)
    }
    return 0
}

/// An independent recogniser of the grammar, written as plainly as possible.
private func referenceAccepts(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let returnCodes = Array("vbiqdfspV".utf8)
    let parameterCodes = Array("biqdfspV".utf8)
    guard bytes.count >= 3, bytes.count <= 256 else { return false }
    guard returnCodes.contains(bytes[0]), bytes[1] == UInt8(ascii: "("),
          bytes[bytes.count - 1] == UInt8(ascii: ")") else { return false }
    let inner = bytes[2..<(bytes.count - 1)]
    return inner.count <= 32 && inner.allSatisfy { parameterCodes.contains($0) }
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        let text = "fuzz_signature: " + message() + "\n"
        _ = text.withCString { fputs($0, stderr) }
        abort()
    }
}
