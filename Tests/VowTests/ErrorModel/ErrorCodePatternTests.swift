import CVow
import Testing
@testable import Vow

/// `VowError.Code` constants work as patterns in `catch` and `switch` (a regression test:
/// while `Code` was an enum, `catch VowError.Code.timeout` did not compile).
@Suite struct ErrorCodePatternTests {
    @Test func catchClauseMatchesByCode() {
        var matched = ""
        do {
            throw VowError(.timeout, "late")
        } catch VowError.Code.timeout {
            matched = "timeout"
        } catch {
            matched = "other: \(error)"
        }
        #expect(matched == "timeout")
    }

    @Test func switchMatchesByCodeAndNotOtherCodes() {
        func name(_ error: any Error) -> String {
            switch error {
            case VowError.Code.cancelled: return "cancelled"
            case VowError.Code.timeout: return "timeout"
            default: return "other"
            }
        }
        #expect(name(VowError(.timeout, "")) == "timeout")
        #expect(name(VowError.cancelledError) == "cancelled")
        #expect(name(VowError(.broken, "")) == "other")
        #expect(name(VowError(domain: "elsewhere", code: 4, message: "same number, other domain")) == "other")
    }

    @Test func rawValuesFollowTheCHeaderAndUnknownNumbersAreNil() {
        // The whole table against include/vow.h: ErrorCodeTableTests.
        #expect(VowError.Code.timeout.rawValue == Int64(VOW_ERROR_TIMEOUT.rawValue))
        #expect(VowError.Code(rawValue: 0) == nil)
        #expect(VowError.Code(rawValue: 9) == nil)
        #expect(VowError.Code(rawValue: 4) == .timeout)
        #expect(VowError(.deadlock, "").vowCode == .deadlock)
    }
}
