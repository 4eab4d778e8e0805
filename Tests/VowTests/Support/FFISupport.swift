import Synchronization
import Testing
@testable import Vow

/// Namespace of the libffi tests that go through promises (`vow_then_call`,
/// `AnyPromise.thenCall`, trampolines); their helpers live here so they cannot clash with
/// other folders' helpers. None of these suites changes a process-wide setting.
enum FFITests {
    typealias Ctx = UnsafeMutableRawPointer?

    /// The address of a `@convention(c)` function value, as `thenCall` takes it.
    static func address<F>(_ function: F) -> UnsafeRawPointer {
        precondition(MemoryLayout<F>.size == MemoryLayout<UnsafeRawPointer>.size, "not a C function pointer")
        return unsafeBitCast(function, to: UnsafeRawPointer.self)
    }

    /// Waits (bounded) for `promise` and returns its raw outcome: the value as the engine
    /// holds it, or the error as Swift sees it. A rejection seen here counts as handled.
    static func outcome(of promise: AnyPromise, within seconds: Double = Stress.waitSeconds) throws -> Result<Any, any Error> {
        guard let settled = promise.core.outcome(waitingAtMost: seconds) else {
            throw TestTimeout(what: "a thenCall promise")
        }
        switch settled {
        case .fulfilled(let value): return .success(value)
        case .rejected(let error):
            promise.core.markHandled()
            return .failure(unboxError(error))
        }
    }

    /// The fulfilled value as a C value (`VowValue`), or the error thrown.
    static func value(of promise: AnyPromise) throws -> VowValue {
        VowValue.bridging(try outcome(of: promise).get())
    }

    /// The rejection, which must be a library error; throws if the promise fulfils.
    static func vowError(of promise: AnyPromise) throws -> VowError {
        switch try outcome(of: promise) {
        case .success(let value): throw UnexpectedFulfilment(value: value)
        case .failure(let error): return try #require(error as? VowError)
        }
    }

    /// A C context that counts calls and destroys (the pointer is unretained: the test
    /// keeps the object alive).
    final class CallCounter: Sendable {
        let calls = Counter()
        let destroys = Counter()
        var ctx: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
        static func from(_ ctx: UnsafeMutableRawPointer?) -> CallCounter {
            Unmanaged<CallCounter>.fromOpaque(ctx!).takeUnretainedValue()
        }
    }

    /// A C `destroy` for `CallCounter` contexts.
    static let countDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
        CallCounter.from(ctx).destroys.increment()
    }

    // MARK: Weighted sums of arities 0 to 12

    /// `int64_t f(int64_t x1, ..., int64_t xn, void *ctx)` returning x1 + 2*x2 + ... + n*xn,
    /// for n = 0...12: a misplaced argument changes the result.
    static func weightedSum(arity: Int) -> UnsafeRawPointer {
        typealias Q = Int64
        let f0: @convention(c) (Ctx) -> Q = { _ in 0 }
        let f1: @convention(c) (Q, Ctx) -> Q = { a, _ in a }
        let f2: @convention(c) (Q, Q, Ctx) -> Q = { a, b, _ in a + 2 * b }
        let f3: @convention(c) (Q, Q, Q, Ctx) -> Q = { a, b, c, _ in a + 2 * b + 3 * c }
        let f4: @convention(c) (Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, _ in a + 2 * b + 3 * c + 4 * d }
        let f5: @convention(c) (Q, Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, e, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e }
        let f6: @convention(c) (Q, Q, Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, e, f, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f }
        let f7: @convention(c) (Q, Q, Q, Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, e, f, g, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g }
        let f8: @convention(c) (Q, Q, Q, Q, Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, e, f, g, h, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h }
        let f9: @convention(c) (Q, Q, Q, Q, Q, Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, e, f, g, h, i, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i }
        let f10: @convention(c) (Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, e, f, g, h, i, j, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j }
        let f11: @convention(c) (Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Ctx) -> Q = { a, b, c, d, e, f, g, h, i, j, k, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j + 11 * k }
        let f12: @convention(c) (Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Ctx) -> Q = {
            a, b, c, d, e, f, g, h, i, j, k, l, _ in
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j + 11 * k + 12 * l }
        let all = [address(f0), address(f1), address(f2), address(f3), address(f4), address(f5), address(f6),
                   address(f7), address(f8), address(f9), address(f10), address(f11), address(f12)]
        return all[arity]
    }

    /// What `weightedSum(arity:)` returns for the arguments 1001, 1002, ...
    static func expectedWeightedSum(arity: Int) -> Int64 {
        (0..<arity).reduce(Int64(0)) { $0 + Int64($1 + 1) * Int64(1000 + $1 + 1) }
    }
}
