import CVow
import Testing
@testable import Vow

extension FFITests {
    /// The five libffi entry points called from Swift: destroy-exactly-once on every path,
    /// failing calls, and trampolines (another thread, twice, released unused).
    @Suite struct CEntryPoints {
        static let plusOne: @convention(c) (Int64, Ctx) -> Int64 = { q, ctx in
            if let ctx { CallCounter.from(ctx).calls.increment() }
            return q + 1
        }

        static var plusOneFunction: vow_fnptr { unsafeBitCast(plusOne, to: vow_fnptr.self) }

        /// A +1 promise handle fulfilled with `value`.
        private func fulfilled(_ value: Any) -> OpaquePointer {
            Core(fulfilled: VowValue.bridging(value)).retainedHandle
        }

        /// The engine object behind a handle the test owns.
        private func core(_ pointer: OpaquePointer?) throws -> Core {
            try #require(handle(pointer, as: Core.self, in: "test"))
        }

        private func settled(_ handle: OpaquePointer?) throws -> Result<Any, any Error> {
            try outcome(of: AnyPromise(core: try core(handle)))
        }

        // MARK: vow_then_call

        @Test func destroyRunsOnceAfterTheCall() throws {
            let counter = CallCounter()
            let source = fulfilled(41)
            let derived = vow_then_call(source, "q(q)", Self.plusOneFunction, counter.ctx, countDestroy)
            #expect(derived != nil)
            let value = VowValue.bridging(try settled(derived).get())
            #expect(value.content.ffiInt == 42)
            #expect(eventually { counter.destroys.value == 1 })
            #expect(counter.calls.value == 1)
            vow_promise_release(derived)
            vow_promise_release(source)
            #expect(counter.destroys.value == 1)
        }

        @Test func malformedSignatureFailsAndDestroys() {
            let source = fulfilled(1)
            defer { vow_promise_release(source) }
            for bad in ["", "q", "q(x)", "q(q", "v(v)", "q(q)x", String(repeating: "q", count: 300)] {
                let counter = CallCounter()
                let derived = vow_then_call(source, bad, Self.plusOneFunction, counter.ctx, countDestroy)
                #expect(derived == nil, "\(bad.prefix(20))")
                #expect(counter.destroys.value == 1)
                #expect(counter.calls.value == 0)
            }
        }

        @Test func nullArgumentsFailAndDestroy() throws {
            let source = fulfilled(1)
            defer { vow_promise_release(source) }
            let counters = (0..<4).map { _ in CallCounter() }
            #expect(vow_then_call(nil, "q(q)", Self.plusOneFunction, counters[0].ctx, countDestroy) == nil)
            #expect(vow_then_call(source, nil, Self.plusOneFunction, counters[1].ctx, countDestroy) == nil)
            #expect(vow_then_call(source, "q(q)", nil, counters[2].ctx, countDestroy) == nil)
            #expect(vow_then_call_on(nil, source, "q(q)", Self.plusOneFunction, counters[3].ctx, countDestroy) == nil)
            #expect(counters.map { $0.destroys.value } == [1, 1, 1, 1])
        }

        @Test func onInlineDispatcherRunsAtOnce() throws {
            let counter = CallCounter()
            let source = fulfilled(1)
            let derived = vow_then_call_on(vow_dispatcher_inline(), source, "q(q)", Self.plusOneFunction,
                                           counter.ctx, countDestroy)
            // Inline and already fulfilled: the call ran inside vow_then_call_on.
            #expect(counter.calls.value == 1)
            #expect(VowValue.bridging(try settled(derived).get()).content.ffiInt == 2)
            vow_promise_release(derived)
            vow_promise_release(source)
            #expect(counter.destroys.value == 1)
        }

        @Test func cancelledDerivedNeverCallsAndDestroys() throws {
            let counter = CallCounter()
            let (source, resolver) = AnyPromise.pending()
            let derived = vow_then_call(source.core.borrowedHandle, "q(q)", Self.plusOneFunction, counter.ctx,
                                        countDestroy)
            vow_cancel(derived)
            #expect(eventually { counter.destroys.value == 1 })
            resolver.fulfill(3)
            guard case .failure(let error) = try settled(derived) else {
                Issue.record("the cancelled promise fulfilled")
                return
            }
            #expect(isCancellation(error))
            _ = try AnyPromise.value(1).then { $0 }.wait()
            #expect(counter.calls.value == 0)
            #expect(counter.destroys.value == 1)
            vow_promise_release(derived)
        }

        @Test func typeErrorReachesC() throws {
            let source = fulfilled("not a number")
            let derived = vow_then_call(source, "q(q)", Self.plusOneFunction, nil, nil)
            #expect(vow_wait(derived, Stress.waitSeconds, nil, nil) == VOW_REJECTED)
            let error = vow_promise_error(derived)
            #expect(vow_error_code(error) == Int64(VOW_ERROR_TYPE.rawValue))
            #expect(String(cString: vow_error_message(error)!) == "argument 1: expected an INT for 'q', found STRING")
            vow_error_release(error)
            vow_promise_release(derived)
            vow_promise_release(source)
        }

        // MARK: Trampolines

        private func makeTrampoline(_ signature: String) throws -> (trampoline: OpaquePointer, promise: OpaquePointer) {
            var promise: OpaquePointer?
            let trampoline = try #require(vow_trampoline_new(signature, &promise))
            return (trampoline, try #require(promise))
        }

        /// The LIST a trampoline's promise fulfilled with, as values.
        private func arguments(_ promise: OpaquePointer) throws -> [VowValue] {
            let value = VowValue.bridging(try settled(promise).get())
            return try #require(value.listElements)
        }

        @Test func trampolineCalledFromAnotherThread() throws {
            let (trampoline, promise) = try makeTrampoline("v(qsd)")
            typealias Function = @convention(c) (Int64, UnsafePointer<CChar>?, Double) -> Void
            let function = UncheckedSendable(unsafeBitCast(vow_trampoline_function(trampoline), to: Function.self))
            try onNewThread {
                "héllo ✓".withCString { function.value(7, $0, 0.5) }
            }
            let items = try arguments(promise)
            #expect(items.count == 3)
            #expect(items.first?.content.ffiInt == 7)
            #expect(items.dropFirst().first?.content.ffiString == "héllo ✓")
            #expect(items.last?.content.ffiDouble == 0.5)
            vow_trampoline_release(trampoline)
            vow_promise_release(promise)
        }

        @Test func trampolineSecondCallIgnored() throws {
            let (trampoline, promise) = try makeTrampoline("v(b)")
            let function = unsafeBitCast(vow_trampoline_function(trampoline), to: (@convention(c) (Bool) -> Void).self)
            function(true)
            function(false)
            let items = try arguments(promise)
            #expect(items.count == 1)
            #expect(items.first?.content.ffiBool == true)
            vow_trampoline_release(trampoline)
            vow_promise_release(promise)
        }

        @Test func trampolineReleasedUnusedIsBroken() throws {
            let (trampoline, promise) = try makeTrampoline("v(q)")
            vow_trampoline_release(trampoline)
            guard case .failure(let error) = try settled(promise) else {
                Issue.record("fulfilled")
                return
            }
            #expect((error as? VowError)?.vowCode == .broken)
            vow_promise_release(promise)
        }

        @Test func trampolineValueArgumentRetained() throws {
            let (trampoline, promise) = try makeTrampoline("v(V)")
            let function = unsafeBitCast(vow_trampoline_function(trampoline),
                                         to: (@convention(c) (OpaquePointer?) -> Void).self)
            weak var weakItem: VowValue?
            do {
                let item = VowValue.string("kept")
                weakItem = item
                function(item.borrowedHandle)
            }
            // The list holds the value after the caller let go.
            let items = try arguments(promise)
            #expect(items.first === weakItem)
            #expect(items.first?.content.ffiString == "kept")
            vow_trampoline_release(trampoline)
            vow_promise_release(promise)
        }

        @Test func trampolineRefusesNonVoidReturnAndBadSignatures() {
            for bad in ["q()", "V(V)", "v(", "v(v)", "", "v(q)x"] {
                var promise: OpaquePointer? = OpaquePointer(bitPattern: 0x1)
                #expect(vow_trampoline_new(bad, &promise) == nil, "\(bad)")
                #expect(promise == nil)
            }
            var promise: OpaquePointer? = OpaquePointer(bitPattern: 0x1)
            #expect(vow_trampoline_new(nil, &promise) == nil)
            #expect(promise == nil)
            #expect(vow_trampoline_new("v()", nil) == nil)
            #expect(vow_trampoline_function(nil) == nil)
            vow_trampoline_release(nil)
        }

        @Test func trampolineHandleIsTagged() throws {
            let (trampoline, promise) = try makeTrampoline("v()")
            #expect(handle(trampoline, .trampoline, as: Trampoline.self, in: "test") != nil)
            // A promise handle is not a trampoline: refused, nothing released.
            #expect(vow_trampoline_function(promise) == nil)
            vow_trampoline_release(promise)
            #expect(vow_promise_state(promise) == VOW_PENDING)
            vow_trampoline_release(trampoline)
            #expect(vow_promise_state(promise) == VOW_REJECTED)
            _ = try? settled(promise)  // handled: no unhandled-error report
            vow_promise_release(promise)
        }
    }
}
