// The libffi signature mini-language: a return code, then the parameter codes in
// parentheses, no spaces ("d(qs)", "v()").
//
// Signatures come from C callers and are untrusted input: the parser reads a C string
// with a bounded scan (never past its NUL, never past `Signature.maxLength + 1` bytes),
// checks every byte, and reports the first problem from the left with its offset.
//
// This file depends on the standard library only, so the fuzz harness
// (Tests/Fuzz/fuzz_signature.swift) can compile it on its own.

/// One type code of the signature language.
enum FFICode: UInt8, Sendable, CaseIterable {
    /// `void`: return only.
    case void = 0x76     // v
    /// `bool` (C99 `_Bool`, one byte).
    case bool = 0x62     // b
    /// `int32_t`.
    case int32 = 0x69    // i
    /// `int64_t`.
    case int64 = 0x71    // q
    /// `double`.
    case double = 0x64   // d
    /// `float`.
    case float = 0x66    // f
    /// `const char *`, NUL-terminated UTF-8.
    case string = 0x73   // s
    /// `void *`.
    case pointer = 0x70  // p
    /// `const vow_value *`.
    case value = 0x56    // V

    /// The code's letter.
    var letter: Character { Character(Unicode.Scalar(rawValue)) }

    /// A pointer code (s, p, V): a missing argument of it can be passed as NULL.
    var isPointer: Bool { self == .string || self == .pointer || self == .value }

    /// The C type it stands for, for messages.
    var cTypeName: String {
        switch self {
        case .void: return "void"
        case .bool: return "bool"
        case .int32: return "int32_t"
        case .int64: return "int64_t"
        case .double: return "double"
        case .float: return "float"
        case .string: return "const char *"
        case .pointer: return "void *"
        case .value: return "const vow_value *"
        }
    }
}

/// A parsed signature: what a C function returns and takes (without `vow_then_call`'s
/// trailing `void *ctx`, which the call layer appends).
struct Signature: Equatable, Sendable {
    /// The longest signature accepted, in bytes, the NUL not counted (`VOW_FFI_MAX_SIGNATURE`).
    static let maxLength = 256
    /// The most parameters accepted, ctx not counted (`VOW_FFI_MAX_PARAMETERS`).
    static let maxParameters = 32

    let returnCode: FFICode
    let parameters: [FFICode]

    init(returning returnCode: FFICode, _ parameters: [FFICode]) {
        self.returnCode = returnCode
        self.parameters = parameters
    }

    /// The signature written back in the mini-language (equal to the text it was parsed
    /// from, which admits no variations).
    var text: String {
        var result = String(returnCode.letter)
        result.append("(")
        for code in parameters { result.append(code.letter) }
        result.append(")")
        return result
    }

    /// Parses a NUL-terminated C string. Reads at most `maxLength + 1` bytes and never
    /// past the NUL, so an unterminated or huge buffer is reported as too long, not read.
    init(parsingCString cString: UnsafePointer<CChar>) throws(SignatureError) {
        let count = Signature.boundedLength(cString, limit: Signature.maxLength + 1)
        let bytes = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
        try self.init(parsing: UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Parses a Swift string (its UTF-8 bytes; an embedded NUL is an error).
    init(parsing string: String) throws(SignatureError) {
        var copy = string
        let result = copy.withUTF8 { bytes in
            Result { () throws(SignatureError) -> Signature in try Signature(parsing: bytes) }
        }
        self = try result.get()
    }

    /// Parses `bytes` (the whole buffer is the signature; no terminator expected).
    init(parsing bytes: UnsafeBufferPointer<UInt8>) throws(SignatureError) {
        let count = bytes.count
        guard count > 0 else { throw SignatureError(.empty, at: 0) }
        guard count <= Signature.maxLength else { throw SignatureError(.tooLong, at: Signature.maxLength) }

        // Offset 0: the return code.
        let first = bytes[0]
        try Signature.checkByte(first, at: 0)
        guard let returnCode = FFICode(rawValue: first) else {
            if first == UInt8(ascii: "(") { throw SignatureError(.missingReturnCode, at: 0) }
            throw SignatureError(.unknownCode(first), at: 0)
        }

        // Offset 1: the opening parenthesis.
        guard count > 1 else { throw SignatureError(.missingOpen(found: nil), at: 1) }
        let second = bytes[1]
        try Signature.checkByte(second, at: 1)
        guard second == UInt8(ascii: "(") else { throw SignatureError(.missingOpen(found: second), at: 1) }

        // The parameter codes, up to the closing parenthesis.
        var parameters: [FFICode] = []
        var offset = 2
        while true {
            guard offset < count else { throw SignatureError(.missingClose, at: offset) }
            let byte = bytes[offset]
            try Signature.checkByte(byte, at: offset)
            if byte == UInt8(ascii: ")") { break }
            if byte == UInt8(ascii: "(") { throw SignatureError(.nestedOpen, at: offset) }
            guard let code = FFICode(rawValue: byte) else { throw SignatureError(.unknownCode(byte), at: offset) }
            guard code != .void else { throw SignatureError(.voidParameter, at: offset) }
            guard parameters.count < Signature.maxParameters else {
                throw SignatureError(.tooManyParameters, at: offset)
            }
            parameters.append(code)
            offset += 1
        }

        // Nothing may follow.
        offset += 1
        if offset < count {
            let byte = bytes[offset]
            try Signature.checkByte(byte, at: offset)
            throw SignatureError(.trailing(byte), at: offset)
        }
        self.init(returning: returnCode, parameters)
    }

    /// Rejects bytes that cannot appear in any signature: NUL (from a Swift string),
    /// control characters, DEL, and every non-ASCII byte.
    @inline(__always)
    private static func checkByte(_ byte: UInt8, at offset: Int) throws(SignatureError) {
        if byte < 0x20 || byte >= 0x7F { throw SignatureError(.invalidByte(byte), at: offset) }
    }

    /// The number of bytes before the NUL, or `limit` if there is none among the first
    /// `limit` bytes. Reads byte by byte and stops at the first NUL.
    static func boundedLength(_ cString: UnsafePointer<CChar>, limit: Int) -> Int {
        var count = 0
        while count < limit, cString[count] != 0 { count += 1 }
        return count
    }
}

/// Why a signature was refused, and where: `offset` is the 0-based byte offset of the
/// problem in the signature text.
struct SignatureError: Error, Equatable, Sendable, CustomStringConvertible {
    enum Reason: Equatable, Sendable {
        /// The signature is the empty string.
        case empty
        /// More than `Signature.maxLength` bytes.
        case tooLong
        /// NUL, a control character, DEL or a non-ASCII byte.
        case invalidByte(UInt8)
        /// A printable character that is not a type code (a space included).
        case unknownCode(UInt8)
        /// The signature starts with '(' (no return code).
        case missingReturnCode
        /// The return code is not followed by '(' (nil: the signature ends there).
        case missingOpen(found: UInt8?)
        /// The parameter list is not closed.
        case missingClose
        /// '(' inside the parameter list.
        case nestedOpen
        /// 'v' as a parameter.
        case voidParameter
        /// A parameter beyond `Signature.maxParameters`.
        case tooManyParameters
        /// Something after the closing ')'.
        case trailing(UInt8)
    }

    let reason: Reason
    let offset: Int

    init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// One line, naming the problem and its offset.
    var message: String {
        switch reason {
        case .empty:
            return "the signature is empty"
        case .tooLong:
            return "the signature is longer than \(Signature.maxLength) characters"
        case .invalidByte(0):
            return "NUL byte at offset \(offset)"
        case .invalidByte(let byte) where byte >= 0x80:
            return "non-ASCII byte \(SignatureError.hex(byte)) at offset \(offset)"
        case .invalidByte(let byte):
            return "control character \(SignatureError.hex(byte)) at offset \(offset)"
        case .unknownCode(UInt8(ascii: " ")):
            return "space at offset \(offset) (spaces are not allowed)"
        case .unknownCode(UInt8(ascii: ")")) where offset == 0:
            return "unexpected ')' at offset 0 (a signature starts with its return code)"
        case .unknownCode(let byte):
            return "unknown type code '\(SignatureError.show(byte))' at offset \(offset) (codes: v b i q d f s p V)"
        case .missingReturnCode:
            return "missing return code before '(' at offset 0"
        case .missingOpen(nil):
            return "missing '(' after the return code at offset \(offset)"
        case .missingOpen(let found?):
            return "expected '(' after the return code at offset \(offset), found '\(SignatureError.show(found))'"
        case .missingClose:
            return "missing ')' at offset \(offset) (unbalanced parentheses)"
        case .nestedOpen:
            return "unexpected '(' at offset \(offset) (unbalanced parentheses)"
        case .voidParameter:
            return "'v' (void) at offset \(offset) is only allowed as the return code"
        case .tooManyParameters:
            return "more than \(Signature.maxParameters) parameters (parameter \(Signature.maxParameters + 1) at offset \(offset))"
        case .trailing(let byte):
            return "unexpected '\(SignatureError.show(byte))' at offset \(offset) after the closing ')'"
        }
    }

    var description: String { message }

    private static func show(_ byte: UInt8) -> String {
        String(Character(Unicode.Scalar(byte)))
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }

    /// `text` quoted for a message: printable ASCII as it is, other bytes as `\xNN`, at most
    /// `limit` bytes (then "..."). Reads a C string with the same bounded scan as the parser.
    static func quoted(cString: UnsafePointer<CChar>, limit: Int = 64) -> String {
        let count = Signature.boundedLength(cString, limit: limit + 1)
        var result = "\""
        for index in 0..<min(count, limit) {
            let byte = UInt8(bitPattern: cString[index])
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                result.append(Character(Unicode.Scalar(byte)))
            } else {
                result += "\\x" + hex(byte).dropFirst(2)
            }
        }
        result += count > limit ? "\"..." : "\""
        return result
    }
}
