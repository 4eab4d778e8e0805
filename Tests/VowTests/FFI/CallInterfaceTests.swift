import Testing
@testable import Vow

/// The libffi layer on its own: calls through `ffi_call` with every parameter and return
/// type, arities 0 to 32, and the trailing ctx argument.
@Suite struct CallInterfaceTests {
    typealias Ctx = UnsafeMutableRawPointer?

    private func interface(_ text: String, context: Bool = true) throws -> CallInterface {
        let signature = try Signature(parsing: text)
        return try #require(CallInterface(signature, appendingContext: context))
    }

    private func erase<F>(_ function: F) -> @convention(c) () -> Void {
        unsafeBitCast(function, to: (@convention(c) () -> Void).self)
    }

    private let marker = UnsafeMutableRawPointer(bitPattern: 0xC0FFEE)

    // MARK: Returns

    @Test func returnsOfEveryType() throws {
        let void: @convention(c) (Ctx) -> Void = { _ in }
        #expect(try interface("v()").call(erase(void), [], context: nil) == .void)

        let yes: @convention(c) (Ctx) -> Bool = { _ in true }
        let no: @convention(c) (Ctx) -> Bool = { _ in false }
        #expect(try interface("b()").call(erase(yes), [], context: nil) == .bool(true))
        #expect(try interface("b()").call(erase(no), [], context: nil) == .bool(false))

        let int32: @convention(c) (Ctx) -> Int32 = { _ in -123_456 }
        #expect(try interface("i()").call(erase(int32), [], context: nil) == .int32(-123_456))
        let int32Min: @convention(c) (Ctx) -> Int32 = { _ in Int32.min }
        #expect(try interface("i()").call(erase(int32Min), [], context: nil) == .int32(Int32.min))

        let int64: @convention(c) (Ctx) -> Int64 = { _ in Int64.min + 1 }
        #expect(try interface("q()").call(erase(int64), [], context: nil) == .int64(Int64.min + 1))

        let double: @convention(c) (Ctx) -> Double = { _ in -2.5e300 }
        #expect(try interface("d()").call(erase(double), [], context: nil) == .double(-2.5e300))

        let float: @convention(c) (Ctx) -> Float = { _ in 1.5 }
        #expect(try interface("f()").call(erase(float), [], context: nil) == .float(1.5))

        let pointer: @convention(c) (Ctx) -> UnsafeMutableRawPointer? = { ctx in ctx }
        let ctx = UnsafeMutableRawPointer(bitPattern: 0x1234)
        #expect(try interface("p()").call(erase(pointer), [], context: ctx) == .pointer(ctx))
        #expect(try interface("s()").call(erase(pointer), [], context: ctx) == .pointer(ctx))
        #expect(try interface("V()").call(erase(pointer), [], context: nil) == .pointer(nil))
    }

    // MARK: Parameters

    @Test func parametersOfEveryTypeAndContextLast() throws {
        let function: @convention(c) (Bool, Int32, Int64, Double, Float, UnsafePointer<CChar>?,
                                      UnsafeMutableRawPointer?, UnsafeRawPointer?, Ctx) -> Double = {
            b, i, q, d, f, s, p, v, ctx in
            guard b, let s, String(cString: s) == "héllo ✓",
                  p == UnsafeMutableRawPointer(bitPattern: 0xAB), v == UnsafeRawPointer(bitPattern: 0xCD),
                  ctx == UnsafeMutableRawPointer(bitPattern: 0xC0FFEE) else { return -1 }
            return Double(i) + Double(q) + d + Double(f)
        }
        let result = try "héllo ✓".withCString { text in
            try interface("d(biqdfspV)").call(erase(function), [
                .bool(true), .int32(-7), .int64(1 << 40), .double(0.25), .float(0.5),
                .pointer(UnsafeMutableRawPointer(mutating: text)),
                .pointer(UnsafeMutableRawPointer(bitPattern: 0xAB)),
                .pointer(UnsafeMutableRawPointer(bitPattern: 0xCD)),
            ], context: marker)
        }
        #expect(result == .double(-7 + Double(1 << 40) + 0.75))
    }

    @Test func boolParameterFalse() throws {
        let function: @convention(c) (Bool, Ctx) -> Int32 = { b, _ in b ? 1 : 2 }
        #expect(try interface("i(b)").call(erase(function), [.bool(false)], context: nil) == .int32(2))
        #expect(try interface("i(b)").call(erase(function), [.bool(true)], context: nil) == .int32(1))
    }

    @Test func withoutContext() throws {
        let function: @convention(c) (Int64, Int64) -> Int64 = { a, b in a * 10 + b }
        #expect(try interface("q(qq)", context: false).call(erase(function), [.int64(4), .int64(2)], context: marker)
                == .int64(42))
    }

    // MARK: Arities

    @Test func aritiesZeroToTwelve() throws {
        // Int64 sums: each arity is a real C function of that arity (+ ctx), so the check
        // fails if an argument lands in the wrong register or stack slot.
        for arity in 0...12 {
            let text = "q(" + String(repeating: "q", count: arity) + ")"
            let arguments = (0..<arity).map { FFIScalar.int64(Int64(1000 + $0 + 1)) }
            let function = unsafeBitCast(FFITests.weightedSum(arity: arity), to: (@convention(c) () -> Void).self)
            let result = try interface(text).call(function, arguments, context: marker)
            #expect(result == .int64(FFITests.expectedWeightedSum(arity: arity)), "arity \(arity)")
        }
    }

    @Test func twelveMixedArgumentsSpillToTheStack() throws {
        // Nine doubles exhaust the eight SSE registers of x86-64 and the integers go around
        // them: a misplaced argument changes the weighted sum.
        let function: @convention(c) (Double, Int32, Double, Int64, Double, Float, Double, Double, Double,
                                      Double, Int32, Double, Ctx) -> Double = {
            a, b, c, d, e, f, g, h, i, j, k, l, _ in
            a + 2 * Double(b) + 3 * c + 4 * Double(d) + 5 * e + 6 * Double(f) + 7 * g + 8 * h + 9 * i
                + 10 * j + 11 * Double(k) + 12 * l
        }
        let arguments: [FFIScalar] = [
            .double(1), .int32(2), .double(3), .int64(4), .double(5), .float(6), .double(7), .double(8),
            .double(9), .double(10), .int32(11), .double(12),
        ]
        let expected = (1...12).reduce(0.0) { $0 + Double($1 * $1) }
        #expect(try interface("d(didqdfddddid)").call(erase(function), arguments, context: nil) == .double(expected))
    }

    @Test func thirtyTwoParametersPlusContext() throws {
        typealias Q = Int64
        let function: @convention(c) (Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q,
                                      Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Ctx) -> Q = {
            a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16,
            a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, ctx in
            let all = [a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16,
                       a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32]
            var sum: Q = 0
            for (index, value) in all.enumerated() { sum += Q(index + 1) * value }
            return ctx == UnsafeMutableRawPointer(bitPattern: 0xC0FFEE) ? sum : -1
        }
        let arguments = (1...32).map { FFIScalar.int64(Int64($0)) }
        let expected = (1...32).reduce(Int64(0)) { $0 + Int64($1 * $1) }
        let text = "q(" + String(repeating: "q", count: 32) + ")"
        #expect(try interface(text).call(erase(function), arguments, context: marker) == .int64(expected))
    }

    @Test func oneInterfaceServesManyThreads() throws {
        let shared = try interface("q(qq)")
        let function: @convention(c) (Int64, Int64, Ctx) -> Int64 = { a, b, _ in a &* 31 &+ b }
        let erased = UncheckedSendable(erase(function))
        let sums = Locked<[Int64]>(Array(repeating: 0, count: 4))
        try concurrently(4) { task in
            var sum: Int64 = 0
            for index in 0..<10_000 {
                if case .int64(let value) = shared.call(erased.value, [.int64(Int64(task)), .int64(Int64(index))],
                                                         context: nil) {
                    sum &+= value
                }
            }
            sums.withLock { $0[task] = sum }
        }
        let expected = (0..<4).map { task in (0..<10_000).reduce(Int64(0)) { $0 + Int64(task) * 31 + Int64($1) } }
        #expect(sums.withLock { $0 } == expected)
    }
}

/// The cache of prepared interfaces that `vow_then_call` links share.
@Suite struct CallInterfaceCacheTests {
    private func lookUp(_ text: String) throws -> CallInterface {
        try CallInterfaceCache.interface(for: text).get()
    }

    @Test func sameSignatureSharesOneInterface() throws {
        // Other suites add signatures concurrently; 32 insertions between two lookups would
        // evict the entry, so the identity is retried a few times before it counts as lost.
        var shared = false
        for _ in 0..<3 where !shared {
            let first = try lookUp("d(qsV)")
            let second = try "d(qsV)".withCString { try CallInterfaceCache.interface(forCString: $0).get() }
            shared = first === second
        }
        #expect(shared)
        let interface = try lookUp("d(qsV)")
        #expect(interface.signature == Signature(returning: .double, [.int64, .string, .value]))
        #expect(interface.appendsContext)
        #expect(interface.argumentCount == 4)
    }

    @Test func differentSignaturesDiffer() throws {
        #expect(try lookUp("q(q)") !== (try lookUp("q(qq)")))
        #expect(try lookUp("i(q)").signature.returnCode == .int32)
    }

    @Test func malformedIsRefusedEveryTime() {
        for _ in 0..<3 {
            guard case .failure(let error) = CallInterfaceCache.interface(for: "q(x)") else {
                Issue.record("a malformed signature was accepted")
                return
            }
            #expect(error.vowCode == .signature)
            #expect(error.message == "unknown type code 'x' at offset 2 (codes: v b i q d f s p V)")
        }
    }

    @Test func staysBounded() throws {
        // 40 distinct signatures: the cache keeps at most `capacity`, and every interface
        // handed out stays valid while held, evicted or not.
        var held: [CallInterface] = []
        for index in 0..<40 {
            let codes = String(repeating: "d", count: index % 8) + String(repeating: "p", count: index / 8)
            held.append(try lookUp("q(\(codes)V)"))
        }
        #expect(CallInterfaceCache.count <= CallInterfaceCache.capacity)
        // The first one has been evicted by now (40 > 32) and still works: "q(V)" + ctx.
        let function: @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int64 = { v, _ in v == nil ? 7 : 8 }
        let erased = unsafeBitCast(function, to: (@convention(c) () -> Void).self)
        #expect(held[0].signature.text == "q(V)")
        #expect(held[0].call(erased, [.pointer(nil)], context: nil) == .int64(7))
    }
}
