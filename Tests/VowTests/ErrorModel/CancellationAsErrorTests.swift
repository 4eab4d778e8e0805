import Testing
@testable import Vow

extension ErrorModel {
    /// The kinds of error that stand for cancellation.
    enum CancellationKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case cancellableError
        case swiftCancellationError
        case vowCancelledError
        case registeredPair

        var testDescription: String { rawValue }

        /// Domain registered once for `registeredPair` (registration is process-wide and
        /// permanent, so it uses a domain no other test uses).
        static let registeredDomain: String = {
            let domain = "em.registered.\(ErrorModel.makeToken())"
            VowError.registerCancellation(domain: domain, code: 42)
            return domain
        }()

        var error: any Error {
            switch self {
            case .cancellableError: return TokenError("kind", cancelled: true)
            case .swiftCancellationError: return CancellationError()
            case .vowCancelledError: return VowError.cancelledError
            case .registeredPair:
                return VowError(domain: CancellationKind.registeredDomain, code: 42, message: "registered")
            }
        }

        /// True if `error` is the error this kind makes (so a test can tell it arrived intact).
        func matches(_ error: any Error) -> Bool {
            switch self {
            case .cancellableError:
                return (error as? TokenError)?.token == "kind"
            case .swiftCancellationError:
                return error is CancellationError
            case .vowCancelledError:
                return (error as? VowError)?.vowCode == .cancelled
            case .registeredPair:
                return (error as? VowError)?.domain == CancellationKind.registeredDomain
            }
        }
    }

    /// Rule 2: cancellation is an error, which `catch` skips by default and every other
    /// error callback receives.
    @Suite struct CancellationAsErrorTests {
        @Test func cancellableErrorCountsOnlyWhenCancelled() {
            #expect(isCancellation(TokenError("t", cancelled: true)))
            #expect(!isCancellation(TokenError("t", cancelled: false)))
        }

        @Test func swiftCancellationErrorCounts() {
            #expect(isCancellation(CancellationError()))
        }

        @Test func libraryCancelledErrorCounts() {
            #expect(isCancellation(VowError.cancelledError))
            #expect(VowError.cancelledError.isCancelled)
            #expect(VowError.cancelledError.vowCode == .cancelled)
            #expect(!isCancellation(VowError(.timeout, "not a cancellation")))
            #expect(!isCancellation(VowError(.broken, "not a cancellation")))
        }

        @Test func registeredPairCountsAlsoForErrorsMadeBefore() {
            let domain = "em.late.\(ErrorModel.makeToken())"
            let before = VowError(domain: domain, code: 3, message: "made before registering")
            #expect(!before.isCancelled)
            #expect(!isCancellation(before))
            VowError.registerCancellation(domain: domain, code: 3)
            VowError.registerCancellation(domain: domain, code: 3)   // twice is harmless
            #expect(before.isCancelled)
            #expect(isCancellation(before))
            #expect(isCancellation(VowError(domain: domain, code: 3, message: "made after")))
            #expect(!isCancellation(VowError(domain: domain, code: 4, message: "other code")))
            #expect(!isCancellation(VowError(domain: domain + ".other", code: 3, message: "other domain")))
        }

        @Test(arguments: CancellationKind.allCases)
        func catchSkipsCancellationAndStaysRejectedWithIt(kind: CancellationKind) {
            let ran = Counter()
            let caught = Promise<Int>(error: kind.error).catch { _ in ran.increment() }
            let error = ErrorModel.error(of: caught)
            #expect(error.map(kind.matches) == true, "the skipped catch's promise keeps the cancellation")
            #expect(error.map(isCancellation) == true)
            #expect(ran.count == 0)
        }

        @Test(arguments: CancellationKind.allCases)
        func catchWithAllErrorsPolicyReceivesCancellation(kind: CancellationKind) {
            let received = Locked<[Bool]>([])
            let caught = Promise<Int>(error: kind.error).catch(policy: .allErrors) { error in
                received.withLock { $0.append(kind.matches(error)) }
            }
            #expect(ErrorModel.outcome(of: caught).map { (try? $0.get()) != nil } == true)
            #expect(received.withLock { $0 } == [true])
        }

        @Test func catchReceivesOrdinaryErrors() {
            let received = Counter()
            let caught = Promise<Int>(error: TokenError("plain")).catch { _ in received.increment() }
            #expect(ErrorModel.outcome(of: caught).map { (try? $0.get()) != nil } == true)
            #expect(received.count == 1)
        }

        @Test(arguments: CancellationKind.allCases)
        func recoverReceivesCancellation(kind: CancellationKind) {
            let recovered = Promise<Int>(error: kind.error).recover { error -> Int in
                kind.matches(error) ? 1 : -1
            }
            #expect(ErrorModel.value(of: recovered) == 1)
            let recoveredWithPromise = Promise<Int>(error: kind.error).recover { error -> Promise<Int> in
                .value(kind.matches(error) ? 2 : -1)
            }
            #expect(ErrorModel.value(of: recoveredWithPromise) == 2)
        }

        @Test(arguments: CancellationKind.allCases)
        func seedThenErrorCallbackReceivesCancellation(kind: CancellationKind) {
            let received = Locked<[Bool]>([])
            let successes = Counter()
            Promise<Int>(error: kind.error).then({ _ in successes.increment() }, { reason in
                received.withLock { $0.append((reason as? any Error).map(kind.matches) ?? false) }
            })
            #expect(ErrorModel.poll { received.withLock { $0.count } == 1 })
            #expect(received.withLock { $0 } == [true])
            #expect(successes.count == 0)
        }

        @Test(arguments: CancellationKind.allCases)
        func finallyAndAlwaysRunAfterASkippedCatch(kind: CancellationKind) {
            let ran = Counter()
            let end = Promise<Int>(error: kind.error)
                .catch { _ in Issue.record("catch must skip cancellation") }
                .finally { ran.increment() }
                .always { ran.increment() }
            let error = ErrorModel.error(of: end)
            #expect(error.map(kind.matches) == true)
            #expect(ran.count == 2)
        }

        @Test func errorCodesMatchWithTheTildeOperator() {
            func fail(_ error: any Error) throws { throw error }
            var matched: [String] = []
            do {
                try fail(VowError(.timeout, "late"))
            } catch VowError.Code.timeout {
                matched.append("catch")
            } catch {
                matched.append("other")
            }
            do {
                try fail(VowError(.timeout, "late"))
            } catch let error where VowError.Code.timeout ~= error {
                matched.append("where")
            } catch {
                matched.append("other")
            }
            let error: any Error = VowError(.timeout, "late")
            switch error {
            case VowError.Code.cancelled: matched.append("cancelled")
            case VowError.Code.timeout: matched.append("switch")
            default: matched.append("other")
            }
            #expect(matched == ["catch", "where", "switch"])
            #expect(!(VowError.Code.cancelled ~= error))
            #expect(!(VowError.Code.timeout ~= TokenError("other")))
            #expect(!(VowError.Code.timeout ~= VowError(domain: "elsewhere", code: 4, message: "same number")))
        }
    }
}
