import Testing
import Synchronization
@testable import Vow

/// The closure machinery under the C trampolines, with a plain receiver: arguments of
/// every type arrive, only the first call counts, `unused` runs on release without a call.
@Suite struct TrampolineMachineryTests {
    /// What a receiver saw, guarded by a lock (the function may be called on any thread).
    final class Recorder: Sendable {
        let calls = Atomic<Int>(0)
        let unused = Atomic<Int>(0)
        let seen = Locked<[FFIScalar]>([])
        let strings = Locked<[String]>([])

        func receiver(copyingStringsAt stringIndices: Set<Int> = []) -> Trampoline.Receiver {
            { arguments in
                self.calls.add(1, ordering: .relaxed)
                self.seen.withLock { $0 = arguments }
                for index in stringIndices.sorted() {
                    if case .pointer(let raw?) = arguments[index] {
                        let text = String(cString: raw.assumingMemoryBound(to: CChar.self))
                        self.strings.withLock { $0.append(text) }
                    }
                }
            }
        }

        var unusedHandler: @Sendable () -> Void { { self.unused.add(1, ordering: .relaxed) } }
    }

    @Test func receivesEveryParameterType() throws {
        let recorder = Recorder()
        let signature = try Signature(parsing: "v(biqdfspV)")
        do {
            let trampoline = try #require(
                Trampoline(signature, receiver: recorder.receiver(copyingStringsAt: [5]), unused: recorder.unusedHandler))
            typealias Function = @convention(c) (Bool, Int32, Int64, Double, Float, UnsafePointer<CChar>?,
                                                 UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void
            let function = unsafeBitCast(trampoline.function, to: Function.self)
            "héllo ✓".withCString { text in
                function(true, -5, Int64.max, 2.5, -0.5, text, UnsafeMutableRawPointer(bitPattern: 0x10),
                         UnsafeRawPointer(bitPattern: 0x20))
            }
            #expect(trampoline.wasCalled)
        }
        #expect(recorder.calls.load(ordering: .relaxed) == 1)
        let seen = recorder.seen.withLock { $0 }
        #expect(seen.count == 8)
        #expect(Array(seen.prefix(5)) == [.bool(true), .int32(-5), .int64(Int64.max), .double(2.5), .float(-0.5)])
        #expect(seen.count == 8 && seen[6] == .pointer(UnsafeMutableRawPointer(bitPattern: 0x10)))
        #expect(seen.count == 8 && seen[7] == .pointer(UnsafeMutableRawPointer(bitPattern: 0x20)))
        #expect(recorder.strings.withLock { $0 } == ["héllo ✓"])
        // Released after its call: `unused` does not run.
        #expect(recorder.unused.load(ordering: .relaxed) == 0)
    }

    @Test func secondCallIgnored() throws {
        let recorder = Recorder()
        let trampoline = try #require(Trampoline(try Signature(parsing: "v(q)"), receiver: recorder.receiver(),
                                                 unused: recorder.unusedHandler))
        let function = unsafeBitCast(trampoline.function, to: (@convention(c) (Int64) -> Void).self)
        function(1)
        function(2)
        function(3)
        #expect(recorder.calls.load(ordering: .relaxed) == 1)
        #expect(recorder.seen.withLock { $0 } == [.int64(1)])
    }

    @Test func noParameters() throws {
        let recorder = Recorder()
        let trampoline = try #require(Trampoline(try Signature(parsing: "v()"), receiver: recorder.receiver(),
                                                 unused: recorder.unusedHandler))
        unsafeBitCast(trampoline.function, to: (@convention(c) () -> Void).self)()
        #expect(recorder.calls.load(ordering: .relaxed) == 1)
        #expect(recorder.seen.withLock { $0 }.isEmpty)
    }

    @Test func releasedUnusedRunsUnusedOnce() throws {
        let recorder = Recorder()
        var trampoline = Trampoline(try Signature(parsing: "v(d)"), receiver: recorder.receiver(),
                                    unused: recorder.unusedHandler)
        #expect(trampoline != nil)
        trampoline = nil
        #expect(recorder.unused.load(ordering: .relaxed) == 1)
        #expect(recorder.calls.load(ordering: .relaxed) == 0)
    }

    @Test func nonVoidReturnRefused() throws {
        let recorder = Recorder()
        for text in ["q()", "b(b)", "V(V)", "s()"] {
            #expect(Trampoline(try Signature(parsing: text), receiver: recorder.receiver(),
                               unused: recorder.unusedHandler) == nil)
        }
        #expect(recorder.unused.load(ordering: .relaxed) == 0)
    }

    @Test func concurrentCallsFromManyThreadsDeliverOnce() throws {
        let recorder = Recorder()
        let trampoline = try #require(Trampoline(try Signature(parsing: "v(i)"), receiver: recorder.receiver(),
                                                 unused: recorder.unusedHandler))
        let function = UncheckedSendable(unsafeBitCast(trampoline.function, to: (@convention(c) (Int32) -> Void).self))
        try concurrently(4) { index in
            for call in 0..<1_000 { function.value(Int32(index * 1_000 + call)) }
        }
        #expect(recorder.calls.load(ordering: .relaxed) == 1)
        withExtendedLifetime(trampoline) {}
    }
}
