import Dispatch
@testable import Vow
@testable import VowEngine

#if canImport(Glibc)
import Glibc
#endif

/// Thrown by the bounded waits below when time runs out: a broken build fails the test
/// instead of hanging the suite.
struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Thrown when a promise fulfilled where the test expected a rejection.
struct UnexpectedFulfilment: Error, CustomStringConvertible {
    let description: String
    init(value: Any) { description = "expected a rejection, the promise fulfilled with \(value)" }
}

/// Waits at most `seconds` for `promise` to settle and returns its outcome, like `wait()`
/// but bounded. A rejection observed here counts as handled (as with `wait()`), so tests
/// that check errors do not report them as unhandled.
func outcome<T>(of promise: Promise<T>, within seconds: Double = Stress.waitSeconds,
                _ what: String = "a promise") throws -> Result<T, any Error> {
    guard let settled = promise.core.outcome(waitingAtMost: seconds) else {
        throw TestTimeout(what: what)
    }
    switch settled {
    case .fulfilled(let raw):
        return castValue(raw, to: T.self)
    case .rejected(let error):
        promise.core.markHandled()
        return .failure(unboxError(error))
    }
}

/// The value of `promise`, waiting at most `seconds`; throws its error or `TestTimeout`.
func value<T: Sendable>(of promise: Promise<T>, within seconds: Double = Stress.waitSeconds) throws -> T {
    try outcome(of: promise, within: seconds).get()
}

/// The error of `promise`, waiting at most `seconds`; throws if it fulfils or times out.
func error<T>(of promise: Promise<T>, within seconds: Double = Stress.waitSeconds) throws -> any Error {
    switch try outcome(of: promise, within: seconds) {
    case .success(let value): throw UnexpectedFulfilment(value: value)
    case .failure(let error): return error
    }
}

/// The library code of the error `promise` rejects with (nil for a foreign error).
func vowCode<T>(of promise: Promise<T>, within seconds: Double = Stress.waitSeconds) throws -> VowError.Code? {
    (try error(of: promise, within: seconds) as? VowError)?.vowCode
}

/// Polls `condition` every millisecond for at most `seconds`; true once it holds.
/// For counters bumped by callbacks that have no promise to wait on.
func eventually(within seconds: Double = Stress.waitSeconds, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        usleep(1000)
    }
}

/// The async form of `eventually`, for tests that must not block a cooperative thread.
func eventuallyAsync(within seconds: Double = Stress.waitSeconds,
                     _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// Waits at most `seconds` for a semaphore; true if it was signalled.
func wait(_ semaphore: DispatchSemaphore, within seconds: Double = Stress.waitSeconds) -> Bool {
    semaphore.wait(timeout: .now() + .milliseconds(Int(seconds * 1000))) == .success
}

extension Core {
    /// Waits at most `seconds` for the promise to settle and returns its outcome (nil if
    /// it did not settle in time). Marks nothing as handled: callers do that.
    func outcome(waitingAtMost seconds: Double) -> Outcome? {
        waitUntilSettled(timeout: seconds) ? outcome : nil
    }
}
