import CVow
import Testing
@testable import Vow

/// The signature mini-language: every accepted form, every class of malformed input, and
/// the limits exactly at 256/257 characters and 32/33 parameters.
@Suite struct SignatureTests {
    private func parse(_ text: String) -> Result<Signature, SignatureError> {
        Result { () throws(SignatureError) -> Signature in try Signature(parsing: text) }
    }

    private func failure(_ text: String) -> SignatureError? {
        if case .failure(let error) = parse(text) { return error }
        return nil
    }

    // MARK: Accepted

    @Test func parsesEveryCode() throws {
        let signature = try Signature(parsing: "V(biqdfspV)")
        #expect(signature.returnCode == .value)
        #expect(signature.parameters == [.bool, .int32, .int64, .double, .float, .string, .pointer, .value])
        for code in FFICode.allCases {
            let returning = try Signature(parsing: "\(code.letter)()")
            #expect(returning.returnCode == code)
            #expect(returning.parameters.isEmpty)
        }
    }

    @Test func exampleFromTheHeader() throws {
        let signature = try Signature(parsing: "d(qs)")
        #expect(signature == Signature(returning: .double, [.int64, .string]))
        #expect(signature.text == "d(qs)")
    }

    @Test func textRoundTrips() throws {
        for text in ["v()", "b(b)", "i(iiii)", "q(pqs)", "f(fdfd)", "s(s)", "p(V)", "V()"] {
            #expect(try Signature(parsing: text).text == text)
        }
    }

    @Test func cStringPathMatchesStringPath() throws {
        let fromC = try "q(dsp)".withCString { pointer throws(SignatureError) in
            try Signature(parsingCString: pointer)
        }
        #expect(fromC == (try Signature(parsing: "q(dsp)")))
    }

    // MARK: Limits

    @Test func limitsMatchTheHeader() {
        #expect(Signature.maxLength == Int(VOW_FFI_MAX_SIGNATURE))
        #expect(Signature.maxParameters == Int(VOW_FFI_MAX_PARAMETERS))
    }

    @Test func thirtyTwoParametersAccepted() throws {
        let text = "q(" + String(repeating: "q", count: 32) + ")"
        let signature = try Signature(parsing: text)
        #expect(signature.parameters.count == Signature.maxParameters)
    }

    @Test func thirtyThreeParametersRejected() {
        let text = "q(" + String(repeating: "d", count: 33) + ")"
        let error = failure(text)
        #expect(error?.reason == .tooManyParameters)
        #expect(error?.offset == 2 + 32)
        #expect(error?.message.contains("more than 32 parameters") == true)
    }

    @Test func exactly256CharactersIsParsed() {
        // 256 characters pass the length check and are parsed (and fail on the parameter
        // count instead): the length limit is inclusive.
        let text = "v(" + String(repeating: "q", count: 253) + ")"
        #expect(text.utf8.count == 256)
        #expect(failure(text)?.reason == .tooManyParameters)
    }

    @Test func exactly257CharactersIsTooLong() {
        let text = "v(" + String(repeating: "q", count: 254) + ")"
        #expect(text.utf8.count == 257)
        let error = failure(text)
        #expect(error?.reason == .tooLong)
        #expect(error?.message == "the signature is longer than 256 characters")
    }

    @Test func longCStringIsReadOnlyUpToTheLimit() {
        // A buffer of exactly 257 non-NUL bytes and no terminator: the bounded scan must stop
        // at the limit (under ASan, reading one byte further is reported).
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Signature.maxLength + 1)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: CChar(UInt8(ascii: "q")), count: Signature.maxLength + 1)
        #expect(Signature.boundedLength(buffer, limit: Signature.maxLength + 1) == Signature.maxLength + 1)
        #expect(throws: SignatureError(.tooLong, at: Signature.maxLength)) {
            try Signature(parsingCString: buffer)
        }
    }

    @Test func boundedLengthStopsAtTheNUL() {
        "d(q)".withCString { pointer in
            #expect(Signature.boundedLength(pointer, limit: 257) == 4)
            #expect(Signature.boundedLength(pointer, limit: 2) == 2)
            #expect(Signature.boundedLength(pointer, limit: 0) == 0)
        }
    }

    // MARK: Malformed

    @Test func emptyRejected() {
        #expect(failure("") == SignatureError(.empty, at: 0))
        #expect(failure("")?.message == "the signature is empty")
    }

    @Test func unknownCodeNamedWithItsOffset() {
        let error = failure("d(qx)")
        #expect(error == SignatureError(.unknownCode(UInt8(ascii: "x")), at: 3))
        #expect(error?.message.contains("'x'") == true)
        #expect(error?.message.contains("offset 3") == true)
        #expect(failure("Q()") == SignatureError(.unknownCode(UInt8(ascii: "Q")), at: 0))
        #expect(failure("d(I)") == SignatureError(.unknownCode(UInt8(ascii: "I")), at: 2))
    }

    @Test func spacesRejected() {
        #expect(failure("d(q s)") == SignatureError(.unknownCode(0x20), at: 3))
        #expect(failure("d(q s)")?.message.contains("spaces are not allowed") == true)
        #expect(failure(" d()") == SignatureError(.unknownCode(0x20), at: 0))
        #expect(failure("d ()") == SignatureError(.missingOpen(found: 0x20), at: 1))
    }

    @Test func missingOpenParenthesis() {
        #expect(failure("d") == SignatureError(.missingOpen(found: nil), at: 1))
        #expect(failure("dq)") == SignatureError(.missingOpen(found: UInt8(ascii: "q")), at: 1))
        #expect(failure("d)") == SignatureError(.missingOpen(found: UInt8(ascii: ")")), at: 1))
        #expect(failure("d")?.message.contains("missing '('") == true)
    }

    @Test func missingReturnCode() {
        #expect(failure("(q)") == SignatureError(.missingReturnCode, at: 0))
        #expect(failure("()") == SignatureError(.missingReturnCode, at: 0))
        #expect(failure(")") == SignatureError(.unknownCode(UInt8(ascii: ")")), at: 0))
    }

    @Test func unbalancedParentheses() {
        #expect(failure("d(q") == SignatureError(.missingClose, at: 3))
        #expect(failure("d(") == SignatureError(.missingClose, at: 2))
        #expect(failure("d((q))") == SignatureError(.nestedOpen, at: 2))
        #expect(failure("d(q(") == SignatureError(.nestedOpen, at: 3))
        #expect(failure("d(q))") == SignatureError(.trailing(UInt8(ascii: ")")), at: 4))
        #expect(failure("d(q")?.message.contains("unbalanced") == true)
    }

    @Test func trailingCharacters() {
        #expect(failure("d(q)x") == SignatureError(.trailing(UInt8(ascii: "x")), at: 4))
        #expect(failure("d(q)q()") == SignatureError(.trailing(UInt8(ascii: "q")), at: 4))
        #expect(failure("v() ") == SignatureError(.trailing(0x20), at: 3))
        #expect(failure("d(q)x")?.message.contains("after the closing ')'") == true)
    }

    @Test func voidOnlyAsReturn() {
        #expect(failure("v(v)") == SignatureError(.voidParameter, at: 2))
        #expect(failure("q(qv)") == SignatureError(.voidParameter, at: 3))
        #expect(failure("v(v)")?.message.contains("only allowed as the return code") == true)
    }

    @Test func nulAndControlBytesRejected() {
        #expect(failure("d(\0q)") == SignatureError(.invalidByte(0), at: 2))
        #expect(failure("\0") == SignatureError(.invalidByte(0), at: 0))
        #expect(failure("d(q)\0") == SignatureError(.invalidByte(0), at: 4))
        #expect(failure("d(\tq)") == SignatureError(.invalidByte(9), at: 2))
        #expect(failure("d(\u{7F})") == SignatureError(.invalidByte(0x7F), at: 2))
        #expect(failure("d(\0q)")?.message == "NUL byte at offset 2")
    }

    @Test func nonASCIIRejected() {
        // "é" is 0xC3 0xA9 in UTF-8: the first byte is reported.
        #expect(failure("d(é)") == SignatureError(.invalidByte(0xC3), at: 2))
        #expect(failure("d(é)")?.message == "non-ASCII byte 0xC3 at offset 2")
        #expect(failure("✓()") == SignatureError(.invalidByte(0xE2), at: 0))
    }

    @Test func firstProblemFromTheLeftWins() {
        // An unknown code before a missing ')' is reported first, and an invalid byte after
        // the first problem is never reached.
        #expect(failure("d(x") == SignatureError(.unknownCode(UInt8(ascii: "x")), at: 2))
        #expect(failure("d(q)\u{1}") == SignatureError(.invalidByte(1), at: 4))
    }

    @Test func quotedSignatureForMessages() {
        "d(\u{1}\"q)".withCString { pointer in
            #expect(SignatureError.quoted(cString: pointer) == "\"d(\\x01\\x22q)\"")
        }
        let long = String(repeating: "q", count: 100)
        long.withCString { pointer in
            let quoted = SignatureError.quoted(cString: pointer, limit: 10)
            #expect(quoted == "\"qqqqqqqqqq\"...")
        }
    }
}
