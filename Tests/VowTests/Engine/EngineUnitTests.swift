import CVow
import Dispatch
import Synchronization
import Testing
@testable import Vow
@testable import VowEngine

/// glibc's `malloc_usable_size` (malloc.h is not part of the Glibc module).
@_silgen_name("malloc_usable_size")
private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int

/// Unit tests of the engine's building blocks, below the promise API: the state word's
/// flags, the one-word value storage, the report line, and the layout the C face relies on.
@Suite("Engine: building blocks")
struct EngineUnitTests {
    // MARK: State word

    /// Every flag of the state word, with its name (the storage field is separate).
    static let allFlags: [(String, Flags)] = [
        ("locked", .locked), ("settled", .settled), ("rejected", .rejected),
        ("cancelled", .cancelled), ("hadHandlers", .hadHandlers), ("handled", .handled),
        ("resolverUsed", .resolverUsed), ("adopting", .adopting), ("bodyTaken", .bodyTaken),
        ("forwarded", .forwarded), ("debugged", .debugged), ("lazy", .lazy),
        ("faceCached", .faceCached), ("scheduled", .scheduled), ("onLibraryQueue", .onLibraryQueue),
        ("onInline", .onInline),
    ]

    @Test("flags are single bits, pairwise disjoint, and clear of the storage field")
    func flagsAreDisjoint() {
        var seen: UInt32 = 0
        let storageField: UInt32 = 0b11 << Flags.storageShift
        for (name, flag) in Self.allFlags {
            #expect(flag.rawValue.nonzeroBitCount == 1, "\(name) is not one bit")
            #expect(flag.rawValue & seen == 0, "\(name) overlaps another flag")
            #expect(flag.rawValue & storageField == 0, "\(name) overlaps the storage field")
            seen |= flag.rawValue
        }
        #expect(Flags.settledOrRejected.rawValue == Flags.settled.rawValue | Flags.rejected.rawValue)
        #expect(Flags.handledSomehow.rawValue == Flags.hadHandlers.rawValue | Flags.handled.rawValue)
        #expect(Flags.settledOrForwarded.rawValue == Flags.settled.rawValue | Flags.forwarded.rawValue)
        // Every storage kind fits the two bits at the shift.
        for kind in [StoredValue.Storage.plain, .object, .inline, .boxed] {
            #expect(kind.rawValue << Flags.storageShift & ~storageField == 0)
        }
    }

    // MARK: One-word value storage

    final class Tracked: Sendable {
        let id: Int
        let deinits: Counter
        init(_ id: Int, deinits: Counter) {
            self.id = id
            self.deinits = deinits
        }
        deinit { _ = deinits.increment() }
    }

    /// A value of a type too large for one word, holding a reference (boxed storage).
    struct Large: Sendable {
        let a: Int, b: Int, c: Int
        let object: AnyObject & Sendable
    }

    @Test("each storage kind: the value round-trips, a copy is independent, destroy releases once")
    func storageKinds() {
        // plain: a trivial word.
        let plain = StoredValue(42)
        let plainKind = plain.storage
        #expect(plainKind == .plain)
        #expect(StoredValue.load(Int.self, bits: plain.bits, storage: plain.storage) == 42)
        #expect(StoredValue.anyValue(bits: plain.bits, type: plain.type, storage: plain.storage) as? Int == 42)

        // object: a class reference, retained by the stored value and by each copy.
        let deinits = Counter()
        do {
            let object = StoredValue(Tracked(1, deinits: deinits))
            let objectKind = object.storage
        #expect(objectKind == .object)
            let copy = StoredValue.copy(bits: object.bits, type: object.type, storage: object.storage)
            _ = consume object
            #expect(deinits.value == 0, "the copy keeps the object alive")
            #expect(StoredValue.load(Tracked.self, bits: copy.bits, storage: copy.storage).id == 1)
        }
        #expect(deinits.value == 1, "released exactly once")

        // inline: a non-trivial value that fits a word (a String of up to 15 bytes is two
        // words, so use an Optional reference: one word, not a class type).
        do {
            let value: (AnyObject & Sendable)? = Tracked(2, deinits: deinits)
            let inline = StoredValue(value)
            let inlineKind = inline.storage
        #expect(inlineKind == .inline)
            let copy = StoredValue.copy(bits: inline.bits, type: inline.type, storage: inline.storage)
            _ = consume inline
            let loaded = StoredValue.load((AnyObject & Sendable)?.self, bits: copy.bits, storage: copy.storage)
            #expect((loaded as? Tracked)?.id == 2)
        }
        #expect(deinits.value == 2)

        // boxed: too large for a word.
        do {
            let boxed = StoredValue(Large(a: 1, b: 2, c: 3, object: Tracked(3, deinits: deinits)))
            let boxedKind = boxed.storage
        #expect(boxedKind == .boxed)
            let copy = StoredValue.copy(bits: boxed.bits, type: boxed.type, storage: boxed.storage)
            _ = consume boxed
            let loaded = StoredValue.load(Large.self, bits: copy.bits, storage: copy.storage)
            #expect(loaded.a + loaded.b + loaded.c == 6)
            #expect((StoredValue.anyValue(bits: copy.bits, type: copy.type, storage: copy.storage) as? Large)?.c == 3)
        }
        #expect(deinits.value == 3)

        // An error is one word holding the runtime's error box, stored as an object.
        let error = StoredValue(error: TestError(9))
        let errorKind = error.storage
        #expect(errorKind == .object)
        #expect(ObjectIdentifier(error.type) == ObjectIdentifier((any Error).self))
        #expect(StoredValue.load((any Error).self, bits: error.bits, storage: error.storage) as? TestError == TestError(9))
    }

    @Test("release hands the word over without destroying it")
    func releaseKeepsTheValue() {
        let deinits = Counter()
        let parts = StoredValue(Tracked(4, deinits: deinits)).release()
        #expect(deinits.value == 0)
        StoredValue.destroy(bits: parts.bits, type: parts.type, storage: parts.storage)
        #expect(deinits.value == 1)
    }

    // MARK: Report line

    @Test("the report line escapes control characters and stays on one line")
    func reportLineEscapes() {
        #expect(ReportLine.escaped("line\nbreak", limit: 100) == "line\\nbreak")
        #expect(ReportLine.escaped("a\rb\tc\\d", limit: 100) == "a\\rb\\tc\\\\d")
        #expect(ReportLine.escaped("bell\u{07}del\u{7f}", limit: 100) == "bell\\x07del\\x7f")
        #expect(ReportLine.escaped("ünïcode ✓", limit: 100) == "ünïcode ✓")
        #expect(!ReportLine.escaped(String(repeating: "\n", count: 50), limit: 1024).contains("\n"))
    }

    @Test("the report line is cut at the limit, at a character boundary, ending in an ellipsis")
    func reportLineIsCapped() {
        let long = String(repeating: "x", count: 5_000)
        let line = ReportLine.escaped(long, limit: ReportLine.limit)
        #expect(line.hasSuffix("…"))
        #expect(line.utf8.count == ReportLine.limit + "…".utf8.count)
        // A multi-byte character is never split.
        let wide = String(repeating: "é", count: 600)   // 2 bytes each
        let cut = ReportLine.escaped(wide, limit: 1023)
        #expect(cut.dropLast().allSatisfy { $0 == "é" })
        #expect(cut.utf8.count - "…".utf8.count == 1022)
        // An escape is never split either.
        #expect(ReportLine.escaped("ab\n", limit: 3) == "ab…")
    }

    // MARK: Sizes (the pending-memory budget of scripts/check-allocations.sh)

    /// The bytes malloc sets aside for an object that `make` makes (its usable size: what
    /// the budget counts): the smallest of 256 made at once. (glibc may hand out a block a
    /// little larger than asked for when the rest of a free block would be too small to
    /// keep, so one object alone can read larger. Of 64, all did once, in a full run with
    /// the heap of the thread's arena fragmented by the suites running beside it; 256 use
    /// up the free blocks that are too large and reach exact fits. The sanitizers'
    /// allocators report the size asked for, which is at most glibc's figure: hence the
    /// budgets below are upper bounds, and no object can read smaller than it is.)
    static func heapBytes(_ make: () -> AnyObject) -> Int {
        let objects = (0..<256).map { _ in make() }
        return objects.map { mallocUsableSize(Unmanaged.passUnretained($0).toOpaque()) }.min()!
    }

    @Test("a promise takes at most 40 bytes pending or settled, 56 with its resolver inside; a link with a closure 56 on the library's queue or inline, 72 on another dispatcher")
    func objectSizes() throws {
        func within(_ budget: Int, _ make: () -> AnyObject) -> Bool {
            let bytes = Self.heapBytes(make)
            return bytes > 16 && bytes <= budget
        }
        #expect(within(40) { Core() })
        #expect(within(40) { Core(fulfilled: 1) })
        #expect(within(40) { Core(fulfilled: "a string too long for one word") })
        #expect(within(56) {
            let withResolver = ResolvableCore(resolverTag: HandleTag.primaryResolver.rawValue)
            ResolvableCore.releaseResolver(of: .passUnretained(withResolver))
            return withResolver
        })

        let source = Core()
        let body = { ClosureBody { source, link in if let source { link.settle(like: source) } } }
        // (`.default` stands for the library's queue unless a test running in parallel
        // replaced the default: the allocations stage measures it.)
        let elsewhere = SerialDispatcher()
        #expect(within(56) { source.link(on: Dispatchers.librarySerial, body()) })
        #expect(within(56) { source.link(on: .inline, body()) })
        #expect(within(72) { source.link(on: elsewhere, body()) })

        let onLibraryQueue = source.link(on: Dispatchers.librarySerial, body())
        let onInline = source.link(on: .inline, body())
        let onOther = source.link(on: elsewhere, body())
        #expect(onLibraryQueue.flags.contains(.onLibraryQueue))
        #expect(onInline.flags.contains(.onInline))
        #expect(onOther.flags.isDisjoint(with: [.onLibraryQueue, .onInline]))

        // Each still runs where it was placed.
        source.fulfil(7)
        for link in [onLibraryQueue, onInline, onOther] {
            #expect(link.waitUntilSettled(timeout: 10))
            #expect(link.value(as: Int.self) == 7)
        }
    }

    // MARK: C-handle layout

    /// What foreign code reads at fixed offsets (Interface.swift, "C-handle layout"): the
    /// numbers are pinned here, and each is checked against the objects as the compiler
    /// lays them out, so a stored property added in front of a tag, or a tag constant
    /// changed on one side only, fails here and not in a C program.
    @Test("C-handle layout: the tag at 16 bytes, the resolver's tag at 40 and its handle at 24, the tags' ASCII names, the faces' tags the same")
    func handleLayout() {
        #expect(Continuation.tagOffset == 16)
        #expect(ResolvableCore.resolverTagOffset == 40)
        #expect(ResolvableCore.resolverHandleOffset == 24)
        func ascii(_ tag: UInt32) -> String {
            String(decoding: withUnsafeBytes(of: tag.littleEndian) { Array($0) }, as: UTF8.self)
        }
        #expect(ascii(Core.promiseTag) == "prom")
        #expect(ascii(Continuation.releasedTag) == "dead")
        #expect(ascii(Continuation.continuationTag) == "cont")
        // The faces' table of tags (Shared/HandleObject.swift) spells the engine's the same.
        #expect(HandleTag.promise.rawValue == Core.promiseTag)
        #expect(HandleTag.released.rawValue == Continuation.releasedTag)
        #expect(handleTagOffset == Continuation.tagOffset)
        // The tags the C entry points of retain and release pass (vow_counted_handles.h).
        #expect(VOW_COUNTED_PROMISE.rawValue == HandleTag.promise.rawValue)
        #expect(VOW_COUNTED_VALUE.rawValue == HandleTag.value.rawValue)
        #expect(VOW_COUNTED_ERROR.rawValue == HandleTag.error.rawValue)

        // Where the compiler put the fields: read through the object's address.
        func start(_ object: AnyObject) -> UnsafeRawPointer {
            UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        }
        let promise = Core()
        #expect(start(promise).load(fromByteOffset: Continuation.tagOffset, as: UInt32.self) == Core.promiseTag)
        let job = ClosureJob {}
        #expect(start(job).load(fromByteOffset: Continuation.tagOffset, as: UInt32.self) == Continuation.continuationTag)
        let value = VowValue(.int(1))
        #expect(start(value).load(fromByteOffset: Continuation.tagOffset, as: UInt32.self) == HandleTag.value.rawValue)

        let withResolver = ResolvableCore(resolverTag: HandleTag.primaryResolver.rawValue)
        let base = start(withResolver)
        #expect(withUnsafeMutablePointer(to: &withResolver.resolverTag) { UnsafeRawPointer($0) }
                == base + ResolvableCore.resolverTagOffset)
        #expect(UnsafeRawPointer(withResolver.resolverHandle) == base + ResolvableCore.resolverHandleOffset)
        #expect(UnsafeRawPointer(withResolver.resolverHandle)
                    .load(fromByteOffset: Continuation.tagOffset, as: UInt32.self) == HandleTag.primaryResolver.rawValue)
        #expect(ResolvableCore.promise(fromResolverHandle: withResolver.resolverHandle).toOpaque() == UnsafeMutableRawPointer(mutating: base))
        ResolvableCore.releaseResolver(of: .passUnretained(withResolver))
        #expect(base.load(fromByteOffset: ResolvableCore.resolverTagOffset, as: UInt32.self) == Continuation.releasedTag)
    }

    // MARK: A combinator's result

    @Test("a combinator's result waits on its inputs through its registration; a cancel handler moves them into extras, and cancelling it still reaches every input")
    func combinatorResultUpstreams() {
        func upstream(of promise: Core) -> Core? {
            let flags = promise.lock()
            defer { promise.unlock(flags) }
            return promise.upstream
        }
        let a = Core()
        let b = Core()
        let result = Core.all([a, b]) { _ in StoredValue(0) }
        #expect(upstream(of: result) === a)
        #expect(result.existingExtras == nil)
        let handled = Counter()
        result.onCancel { handled.increment() }
        #expect(result.existingExtras != nil)
        #expect(upstream(of: result) === a)
        result.cancel()
        #expect(a.wasCancelled)
        #expect(b.wasCancelled)
        #expect(eventually { handled.value == 1 })

        // Without extras: cancelling the result of a race reaches both inputs too.
        let c = Core()
        let d = Core()
        let raced = Core.race([c, d], emptyError: EngineError.cancelled)
        raced.cancel()
        #expect(c.wasCancelled)
        #expect(d.wasCancelled)
    }

    // MARK: Dispatchers that take continuations

    /// A dispatcher of a type of its own that takes continuations directly.
    final class CountingSink: Dispatcher, ContinuationSink, @unchecked Sendable {
        // @unchecked: `submitted` is atomic.
        let submitted = Atomic<Int>(0)
        func dispatch(_ work: @escaping @Sendable () -> Void) { work() }
        func submit(_ continuation: Continuation) {
            submitted.add(1, ordering: .relaxed)
            continuation.run()
        }
    }

    @Test("whether a dispatcher takes continuations is remembered per type, and right for every type asked about in turn")
    func sinkLookupPerType() {
        let sink = CountingSink()
        let other = CountingSink()
        let queue = DispatchQueue(label: "vow.test.not-a-sink")
        let wrapper = InvalidatableQueue(queue)
        let serial = SerialDispatcher(label: "vow.test.sink")
        for _ in 0..<3 {
            #expect(SinkLookup.sink(sink) === sink)
            #expect(SinkLookup.sink(other) === other)
            #expect(SinkLookup.sink(queue) == nil)
            #expect(SinkLookup.sink(sink) === sink)
            #expect(SinkLookup.sink(wrapper) == nil)
            #expect(SinkLookup.sink(serial) === serial)
        }
        // Jobs reach the sink directly (no closure, no guard object).
        let source = Core(fulfilled: 1)
        let link = source.link(on: sink, ClosureBody { source, link in if let source { link.settle(like: source) } })
        #expect(link.value(as: Int.self) == 1)
        #expect(sink.submitted.load(ordering: .relaxed) == 1)
    }

    // MARK: The C face's result slot

    @Test("a vow_result token names one callback call: refused after it, inside another, and on another thread")
    func resultTokens() {
        let probe = ResultTokenProbe()
        let outcome = callValueCallback({ ctx, _, out in
            let probe = Unmanaged<ResultTokenProbe>.fromOpaque(ctx!).takeUnretainedValue()
            probe.kept = out
            probe.check(UInt(bitPattern: Int(bitPattern: out)) % 16 == 4)  // never an object's address
            // Where a handle is expected it reads as a stray pointer (a line), not a fault.
            probe.check(handle(out, as: VowValue.self, in: "test") == nil)
            probe.check(VowResultSlot.from(out, in: "test") != nil)
            _ = callValueCallback({ ctx, _, innerOut in
                let probe = Unmanaged<ResultTokenProbe>.fromOpaque(ctx!).takeUnretainedValue()
                probe.check(innerOut != probe.kept)
                probe.check(VowResultSlot.from(innerOut, in: "test") != nil)
                probe.check(VowResultSlot.from(probe.kept, in: "test") == nil)  // the outer one's, inside
            }, ctx, nil)
            // The outer callback runs again: what it sets is its outcome.
            vow_result_return(out, VowValue.sharedNull.borrowedHandle)
            let bits = Int(bitPattern: out)
            let elsewhere = try? onNewThread {
                VowResultSlot.from(OpaquePointer(bitPattern: bits), in: "test") == nil
            }
            probe.check(elsewhere == true)
        }, Unmanaged.passUnretained(probe).toOpaque(), nil)
        if case .returned(let value) = outcome {
            #expect(value === VowValue.sharedNull)
        } else {
            Issue.record("the outer callback's outcome was lost")
        }
        #expect(probe.checks == 7)
        #expect(probe.failures == 0)
        #expect(VowResultSlot.from(probe.kept, in: "test") == nil)  // after the call
        #expect(VowResultSlot.from(nil, in: "test") == nil)
    }
}

/// What `resultTokens` looks at from inside its C callbacks.
private final class ResultTokenProbe {
    var kept: OpaquePointer?
    var checks = 0
    var failures = 0

    func check(_ condition: Bool) {
        checks += 1
        if !condition { failures += 1 }
    }
}

