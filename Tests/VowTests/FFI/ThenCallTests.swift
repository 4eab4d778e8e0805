import Testing
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

extension FFITests {
    /// `AnyPromise.thenCall`: a promise's value spread into a C function through libffi.
    @Suite struct ThenCall {
        // MARK: Functions called (C functions written in Swift)

        static let describeArguments: @convention(c) (Int64, UnsafePointer<CChar>?, Double, Ctx) -> Double = {
            q, s, d, _ in
            guard let s, String(cString: s) == "héllo ✓" else { return -1 }
            return Double(q) + Double(strlen(s)) + d
        }
        static let returnVoid: @convention(c) (Ctx) -> Void = { ctx in CallCounter.from(ctx).calls.increment() }
        static let returnBool: @convention(c) (Bool, Ctx) -> Bool = { b, _ in !b }
        static let returnInt32: @convention(c) (Int32, Ctx) -> Int32 = { i, _ in i &- 1 }
        static let returnInt64: @convention(c) (Int64, Ctx) -> Int64 = { q, _ in q &* 2 }
        static let returnDouble: @convention(c) (Double, Ctx) -> Double = { d, _ in d / 4 }
        static let returnFloat: @convention(c) (Float, Ctx) -> Float = { f, _ in f * 2 }
        static let returnString: @convention(c) (UnsafePointer<CChar>?, Ctx) -> UnsafePointer<CChar>? = { s, _ in s }
        static let returnPointer: @convention(c) (UnsafeMutableRawPointer?, Ctx) -> UnsafeMutableRawPointer? = {
            p, _ in p?.advanced(by: 8)
        }
        static let returnContext: @convention(c) (Int64, Int64, Ctx) -> UnsafeMutableRawPointer? = { _, _, ctx in ctx }
        /// V in, V out: returns its argument with a +1 reference (the library takes it).
        static let returnSameValue: @convention(c) (UnsafeRawPointer?, Ctx) -> UnsafeRawPointer? = { v, _ in
            guard let v else { return nil }
            return UnsafeRawPointer(Unmanaged<VowValue>.fromOpaque(v).retain().toOpaque())
        }
        static let counted: @convention(c) (Int64, Ctx) -> Int64 = { q, ctx in
            CallCounter.from(ctx).calls.increment()
            return q
        }

        // MARK: Spreading

        @Test func manifoldSpreadsIntoParameters() throws {
            let result = try AnyPromise.manifold(3, "héllo ✓", 0.5)
                .thenCall(signature: "d(qsd)", function: address(Self.describeArguments))
            // 3 + strlen("héllo ✓") (10 bytes of UTF-8) + 0.5
            #expect(try value(of: result).content.ffiDouble == 13.5)
            #expect(try result.as(Double.self).wait() == 13.5)
        }

        @Test func swiftTupleIsAManifold() throws {
            let source = AnyPromise(Promise.value((3, "héllo ✓", 0.5)))
            let result = try source.thenCall(signature: "d(qsd)", function: address(Self.describeArguments))
            #expect(try value(of: result).content.ffiDouble == 13.5)
        }

        @Test func singleValueIsAListOfOne() throws {
            let result = try AnyPromise.value(21).thenCall(signature: "q(q)", function: address(Self.returnInt64))
            #expect(try value(of: result).content.ffiInt == 42)
            let typed = try AnyPromise(Promise.value(21)).thenCall(signature: "q(q)", function: address(Self.returnInt64))
            #expect(try typed.as(Int.self).wait() == 42)
        }

        @Test func nothingFeedsAFunctionWithoutParameters() throws {
            let counter = CallCounter()
            let result = try AnyPromise.value(nil).thenCall(signature: "v()", function: address(Self.returnVoid),
                                                            context: counter.ctx)
            #expect(try value(of: result).isNull)
            #expect(counter.calls.value == 1)
        }

        @Test func aritiesZeroToTwelve() throws {
            for arity in 0...12 {
                let items: [Any] = (0..<arity).map { 1000 + $0 + 1 }
                let signature = "q(" + String(repeating: "q", count: arity) + ")"
                let source = AnyPromise.value(VowValue(.list(items.map { VowValue.bridging($0) })))
                let result = try source.thenCall(signature: signature, function: weightedSum(arity: arity))
                #expect(try value(of: result).content.ffiInt == expectedWeightedSum(arity: arity), "arity \(arity)")
            }
        }

        @Test func contextComesLast() throws {
            let marker = UnsafeMutableRawPointer(bitPattern: 0xFACE)
            let result = try AnyPromise.manifold(1, 2).thenCall(signature: "p(qq)", function: address(Self.returnContext),
                                                                context: marker)
            guard case .pointer(let pointer, _) = try value(of: result).content else {
                Issue.record("not a POINTER")
                return
            }
            #expect(pointer == marker)
        }

        // MARK: Every type

        @Test func everyReturnType() throws {
            #expect(try value(of: AnyPromise.value(true).thenCall(signature: "b(b)", function: address(Self.returnBool)))
                .content.ffiBool == false)
            #expect(try value(of: AnyPromise.value(Int(Int32.min) + 1)
                .thenCall(signature: "i(i)", function: address(Self.returnInt32))).content.ffiInt == Int64(Int32.min))
            #expect(try value(of: AnyPromise.value(Int64(1) << 40)
                .thenCall(signature: "q(q)", function: address(Self.returnInt64))).content.ffiInt == Int64(1) << 41)
            #expect(try value(of: AnyPromise.value(3.0)
                .thenCall(signature: "d(d)", function: address(Self.returnDouble))).content.ffiDouble == 0.75)
            #expect(try value(of: AnyPromise.value(1.25)
                .thenCall(signature: "f(f)", function: address(Self.returnFloat))).content.ffiDouble == 2.5)
            #expect(try value(of: AnyPromise.value("héllo ✓")
                .thenCall(signature: "s(s)", function: address(Self.returnString))).content.ffiString == "héllo ✓")
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 8)
            defer { buffer.deallocate() }
            let pointerResult = try value(of: AnyPromise.value(buffer)
                .thenCall(signature: "p(p)", function: address(Self.returnPointer)))
            guard case .pointer(let returned, _) = pointerResult.content else {
                Issue.record("not a POINTER: \(FFIValues.kindName(pointerResult))")
                return
            }
            #expect(returned == buffer + 8)
        }

        @Test func nullStringReturnIsTheNullValue() throws {
            let result = try AnyPromise.value(nil).thenCall(signature: "s(s)", function: address(Self.returnString))
            #expect(try value(of: result).isNull)
        }

        @Test func valueParameterAndReturnKeepIdentity() throws {
            let item = VowValue.string("same")
            let result = try AnyPromise.value(VowValue(.list([item])))
                .thenCall(signature: "V(V)", function: address(Self.returnSameValue))
            #expect(try value(of: result) === item)
        }

        @Test func intWidensToDoubleAndFloat() throws {
            #expect(try value(of: AnyPromise.value(6).thenCall(signature: "d(d)", function: address(Self.returnDouble)))
                .content.ffiDouble == 1.5)
            #expect(try value(of: AnyPromise.value(3).thenCall(signature: "f(f)", function: address(Self.returnFloat)))
                .content.ffiDouble == 6)
        }

        // MARK: Mismatches

        @Test func kindMismatchNamesThePosition() throws {
            let counter = CallCounter()
            let result = try AnyPromise.manifold(1, "x").thenCall(signature: "q(qi)", function: weightedSum(arity: 2),
                                                                  context: counter.ctx)
            let error = try vowError(of: result)
            #expect(error.vowCode == .type)
            #expect(error.message == "argument 2: expected an INT for 'i', found STRING")
        }

        @Test func int32RangeChecked() throws {
            let error = try vowError(of: AnyPromise.value(5_000_000_000)
                .thenCall(signature: "i(i)", function: address(Self.returnInt32)))
            #expect(error.message == "argument 1: INT 5000000000 does not fit in int32_t for 'i'")
            #expect(try value(of: AnyPromise.value(Int(Int32.max))
                .thenCall(signature: "i(i)", function: address(Self.returnInt32))).content.ffiInt == Int64(Int32.max) - 1)
        }

        @Test func countMismatchNamesThePosition() throws {
            let counter = CallCounter()
            let tooFew = try vowError(of: AnyPromise.manifold(1).thenCall(
                signature: "q(qq)", function: address(Self.counted), context: counter.ctx))
            #expect(tooFew.vowCode == .type)
            #expect(tooFew.message == "argument 2 missing: q(qq) takes 2 arguments, found 1 value")
            let tooMany = try vowError(of: AnyPromise.manifold(1, 2, 3).thenCall(
                signature: "q(q)", function: address(Self.counted), context: counter.ctx))
            #expect(tooMany.message == "argument 2 unexpected: q(q) takes 1 argument, found 3 values")
            #expect(counter.calls.value == 0)
        }

        @Test func everyKindMismatch() throws {
            let cases: [(Any?, String, String)] = [
                (1.5, "q(q)", "expected an INT for 'q', found DOUBLE"),
                (1, "b(b)", "expected a BOOL for 'b', found INT"),
                ("1", "d(d)", "expected an INT or DOUBLE for 'd', found STRING"),
                (true, "f(f)", "expected an INT or DOUBLE for 'f', found BOOL"),
                (7, "s(s)", "expected a STRING or NULL for 's', found INT"),
                ([UInt8]([1, 2]), "s(s)", "expected a STRING or NULL for 's', found BYTES"),
                ("p", "p(p)", "expected a POINTER or NULL for 'p', found STRING"),
                (nil, "q(q)", "expected an INT for 'q', found NULL"),
            ]
            let counter = CallCounter()
            for (input, signature, message) in cases {
                let error = try vowError(of: AnyPromise.value(input).thenCall(
                    signature: signature, function: address(Self.counted), context: counter.ctx))
                #expect(error.vowCode == .type)
                #expect(error.message == "argument 1: " + message)
            }
            #expect(counter.calls.value == 0)
        }

        @Test func malformedSignatureThrows() {
            let counter = CallCounter()
            #expect(throws: VowError.self) {
                _ = try AnyPromise.value(1).thenCall(signature: "q(x)", function: address(Self.counted),
                                                     context: counter.ctx)
            }
            do {
                _ = try AnyPromise.value(1).thenCall(signature: "q(q", function: address(Self.counted))
                Issue.record("a malformed signature was accepted")
            } catch {
                #expect(error.vowCode == .signature)
                #expect(error.message == "missing ')' at offset 3 (unbalanced parentheses)")
            }
            #expect(counter.calls.value == 0)
        }

        // MARK: Promise rules

        @Test func rejectionPassesThrough() throws {
            struct Private: Error, Equatable { let token: Int }
            let counter = CallCounter()
            let result = try AnyPromise(error: Private(token: 77))
                .thenCall(signature: "q(q)", function: address(Self.counted), context: counter.ctx)
            guard case .failure(let error) = try outcome(of: result) else {
                Issue.record("fulfilled")
                return
            }
            #expect(error as? Private == Private(token: 77))
            #expect(counter.calls.value == 0)
        }

        @Test func cancelledBeforeTheSourceFulfilsNeverCalls() throws {
            let counter = CallCounter()
            let (source, resolver) = AnyPromise.pending()
            let result = try source.thenCall(signature: "q(q)", function: address(Self.counted), context: counter.ctx)
            result.cancel()
            resolver.fulfill(5)
            let error = try vowError(of: result)
            #expect(error.vowCode == .cancelled)
            // Give a wrongly scheduled call every chance to run: a later link on the same
            // serial dispatcher runs after it would have.
            _ = try AnyPromise.value(1).then { $0 }.wait()
            #expect(counter.calls.value == 0)
        }

        @Test func runsOnTheGivenDispatcherNeverInline() throws {
            let dispatcher = ManualDispatcher()
            let counter = CallCounter()
            let result = try AnyPromise.value(4).thenCall(on: dispatcher, signature: "q(q)",
                                                          function: address(Self.counted), context: counter.ctx)
            #expect(result.isPending)
            #expect(counter.calls.value == 0)
            #expect(dispatcher.drain() == 1)
            #expect(counter.calls.value == 1)
            #expect(try value(of: result).content.ffiInt == 4)
        }

        @Test func chainOfCalls() throws {
            var promise = AnyPromise.value(1)
            for _ in 0..<20 {
                promise = try promise.thenCall(signature: "q(q)", function: address(Self.returnInt64))
            }
            #expect(try value(of: promise).content.ffiInt == 1 << 20)
        }
    }
}

extension VowValue.Content {
    /// Test accessors: the payload of one kind, or nil.
    var ffiInt: Int64? { if case .int(let value) = self { return value } else { return nil } }
    var ffiDouble: Double? { if case .double(let value) = self { return value } else { return nil } }
    var ffiBool: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    var ffiString: String? { if case .string(let value) = self { return value } else { return nil } }
}
