import CVow
import Testing
@testable import Vow
import VowEngine

#if canImport(Glibc)
import Glibc
#endif

/// The table of the library's error codes is C's `enum vow_error_codes` in include/vow.h.
/// The Swift face's `VowError.Code` reads its numbers from it; these tests check that it
/// also lists every code of the header (by name and number) and nothing else, and that
/// every code of the engine's `EngineError.Code` is one of them under the same name. So a
/// code added in one place and not in the others fails here.
@Suite struct ErrorCodeTableTests {
    /// The header's codes, as (name in lower case without `VOW_ERROR_`, number), in order.
    static let headerCodes: [(name: String, value: Int64)] = parseErrorCodes(readHeader())

    @Test("the header's enum vow_error_codes is found, and numbered as the compiler numbers it")
    func headerIsRead() {
        #expect(Self.headerCodes.count >= 8)
        // The parser agrees with the compiler on the codes Swift can name.
        let compiled: [(String, vow_error_codes)] = [("cancelled", VOW_ERROR_CANCELLED), ("timeout", VOW_ERROR_TIMEOUT),
                                                     ("deadlock", VOW_ERROR_DEADLOCK)]
        for (name, constant) in compiled {
            #expect(Self.headerCodes.first { $0.name == name }?.value == Int64(constant.rawValue))
        }
    }

    @Test("VowError.Code lists the header's codes: same names, same numbers, same order")
    func swiftFaceMatchesTheHeader() {
        let swift = VowError.Code.allCases.map { ($0.description, $0.rawValue) }
        #expect(swift.map(\.0) == Self.headerCodes.map(\.name))
        #expect(swift.map(\.1) == Self.headerCodes.map(\.value))
        for code in Self.headerCodes {
            #expect(VowError.Code(rawValue: code.value)?.description == code.name)
        }
        let known = Set(Self.headerCodes.map(\.value))
        for number in -8...Int64(64) where !known.contains(number) {
            #expect(VowError.Code(rawValue: number) == nil, "\(number) is not a code of the header")
        }
    }

    @Test("every EngineError.Code is a header code of the same name")
    func engineCodesAreHeaderCodes() {
        // EngineError.Code is an Int64 enum the engine keeps without the header (it imports
        // nothing): its cases are found by number.
        var found = 0
        for number in Int64(-1024)...1024 {
            guard let engine = EngineError.Code(rawValue: number) else { continue }
            found += 1
            let header = Self.headerCodes.first { $0.value == number }
            #expect(header?.name == "\(engine)", "EngineError.Code.\(engine) = \(number) is not in vow.h")
        }
        #expect(found >= 6)
    }
}

/// include/vow.h of this checkout (found from this file's path), as text.
private func readHeader() -> String {
    var path = "\(#filePath)"
    for _ in 0..<4 {  // Tests/VowTests/ErrorModel/ErrorCodeTableTests.swift -> the checkout
        path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }
    path += "/include/vow.h"
    guard let file = fopen(path, "r") else { return "" }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The enumerators of `enum vow_error_codes { ... };` with their values, as C gives them
/// (an explicit `= N`, or one more than the previous).
private func parseErrorCodes(_ header: String) -> [(name: String, value: Int64)] {
    guard let start = header.firstRange(of: "enum vow_error_codes {"),
          let end = header[start.upperBound...].firstRange(of: "};") else { return [] }
    var codes: [(name: String, value: Int64)] = []
    var next: Int64 = 0
    for line in header[start.upperBound..<end.lowerBound].split(separator: "\n") {
        let code = line.split(separator: "/", maxSplits: 1).first ?? ""  // drop the comment
        let trimmed = code.filter { $0 != " " && $0 != "," }
        guard trimmed.hasPrefix("VOW_ERROR_") else { continue }
        let parts = trimmed.dropFirst("VOW_ERROR_".count).split(separator: "=")
        let value = parts.count == 2 ? Int64(parts[1]) ?? -1 : next
        codes.append((parts[0].lowercased(), value))
        next = value + 1
    }
    return codes
}
