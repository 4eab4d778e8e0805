import CVow
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Vow

// VowRuntime.withDefaultDispatcher(_:_:), sync and async: `.default` stands for the scope's
// dispatcher in the code the scope runs, and nowhere else. None of these tests touches the
// process-wide setting (ErrorModel.ProcessWideSettings may change it meanwhile: checks
// outside a scope only ask "not this test's queue"). The scope inside an installed
// TestLoop: Tests/VowTestingTests/ScopedDefaultTests.swift.

/// The tag of the queue a `.default` callback registered now runs on (nil: none of `key`'s).
private func tagOfDefault(_ key: DispatchSpecificKey<Int>) throws -> Int? {
    try value(of: Promise.value(1).map { _ in DispatchQueue.getSpecific(key: key) })
}

@Suite("API: VowRuntime.withDefaultDispatcher (scoped default)")
struct ScopedDefaultDispatcherTests {
    @Test("a .default callback registered in the scope runs on the scope's dispatcher; a thread running meanwhile does not see it")
    func scopeIsThisThreadsOnly() throws {
        let tagged = TaggedQueue(tag: 61)
        let key = tagged.key
        let barrier = ErrorModel.Barrier(parties: 2)
        let otherSaw = Locked<(dispatcherWasScopes: Bool, tag: Int?)?>(nil)
        let other = ErrorModel.startThread {
            // 1: the scope is open on the test thread. 2: this thread is done.
            _ = barrier.arriveAndWait(generation: 1)
            let wasScopes = VowRuntime.defaultDispatcher === tagged.queue
            let tag = try? tagOfDefault(key)
            otherSaw.withLock { $0 = (wasScopes, tag ?? nil) }
            _ = barrier.arriveAndWait(generation: 2)
        }
        let inside = try VowRuntime.withDefaultDispatcher(tagged.queue) { () throws -> Int? in
            #expect(barrier.arriveAndWait(generation: 1))
            #expect(VowRuntime.defaultDispatcher === tagged.queue)
            let tag = try tagOfDefault(key)
            #expect(barrier.arriveAndWait(generation: 2), "both ran while the scope was open")
            return tag
        }
        pthread_join(other, nil)
        #expect(inside == 61)
        let seen = try #require(otherSaw.withLock { $0 })
        #expect(!seen.dispatcherWasScopes)
        #expect(seen.tag == nil)
        // The scope is over on this thread too.
        #expect(VowRuntime.defaultDispatcher !== tagged.queue)
        #expect(try tagOfDefault(key) == nil)
    }

    @Test("the callbacks registered in the scope keep the scope's dispatcher when they run after it ended")
    func registrationTime() throws {
        let tagged = TaggedQueue(tag: 62)
        let key = tagged.key
        let (promise, resolver) = Promise<Int>.pending()
        let registered = VowRuntime.withDefaultDispatcher(tagged.queue) {
            promise.map { _ in DispatchQueue.getSpecific(key: key) }
        }
        let after = promise.map { _ in DispatchQueue.getSpecific(key: key) }
        resolver.fulfill(0)
        #expect(try value(of: registered) == 62)
        #expect(try value(of: after) == nil)
    }

    @Test("scopes nest: the innermost wins, and each ends when its body returns or throws")
    func nesting() throws {
        struct Thrown: Error {}
        let outer = TaggedQueue(tag: 63)
        let inner = TaggedQueue(tag: 64)
        try VowRuntime.withDefaultDispatcher(outer.queue) {
            #expect(try tagOfDefault(outer.key) == 63)
            try VowRuntime.withDefaultDispatcher(inner.queue) { () throws in
                #expect(VowRuntime.defaultDispatcher === inner.queue)
                #expect(try tagOfDefault(inner.key) == 64)
                #expect(try tagOfDefault(outer.key) == nil)
            }
            #expect(VowRuntime.defaultDispatcher === outer.queue)
            #expect(try tagOfDefault(outer.key) == 63)
            #expect(throws: Thrown.self) {
                try VowRuntime.withDefaultDispatcher(inner.queue) { () throws -> Void in throw Thrown() }
            }
            #expect(VowRuntime.defaultDispatcher === outer.queue)
            #expect(try tagOfDefault(inner.key) == nil)
        }
        #expect(VowRuntime.defaultDispatcher !== outer.queue)
        #expect(try tagOfDefault(outer.key) == nil)
        #expect(try tagOfDefault(inner.key) == nil)
    }

    @Test("a scope given .default or the library's queue means the library's queue, also inside another scope")
    func libraryQueue() throws {
        let tagged = TaggedQueue(tag: 65)
        try VowRuntime.withDefaultDispatcher(tagged.queue) {
            try VowRuntime.withDefaultDispatcher(.default) { () throws in
                #expect(VowRuntime.defaultDispatcher === VowRuntime.librarySerial)
                #expect(try tagOfDefault(tagged.key) == nil)
                // It is really the library's queue (its work is drained with it).
                let ranOnLibraryQueue = Promise.value(1).map { _ in VowRuntime.librarySerial.isIsolatingCurrentContext() == true }
                #expect(try value(of: ranOnLibraryQueue))
            }
            VowRuntime.withDefaultDispatcher(VowRuntime.librarySerial) {
                #expect(VowRuntime.defaultDispatcher === VowRuntime.librarySerial)
            }
            #expect(VowRuntime.defaultDispatcher === tagged.queue)
        }
    }

    @Test("a callback's own body runs outside the scope it was registered in")
    func callbackBodyIsOutside() throws {
        let tagged = TaggedQueue(tag: 66)
        let key = tagged.key
        let nested = VowRuntime.withDefaultDispatcher(tagged.queue) {
            Promise.value(1).then { _ in
                // Registered on `tagged`'s thread, later: the scope does not reach here.
                Promise.value(2).map { _ in DispatchQueue.getSpecific(key: key) }
            }
        }
        #expect(try value(of: nested) == nil)
    }

    @Test("C calls made in the scope see it: vow_dispatcher_default() is the scope's dispatcher")
    func cFaceSeesTheScope() {
        let tagged = TaggedQueue(tag: 68)
        VowRuntime.withDefaultDispatcher(tagged.queue) {
            #expect(VowRuntime.dispatcher(unsafeHandle: vow_dispatcher_default()) === tagged.queue)
        }
        #expect(VowRuntime.dispatcher(unsafeHandle: vow_dispatcher_default()) !== tagged.queue)
    }

    // MARK: async

    @Test("async: the scope covers the body across suspensions, its child tasks and the Task { } it starts, not Task.detached")
    func asyncScope() async throws {
        let tagged = TaggedQueue(tag: 67)
        let key = tagged.key
        @Sendable func tagNow() async throws -> Int? {
            try await Promise.value(1).map { _ in DispatchQueue.getSpecific(key: key) }.value
        }
        let (late, lateResolver) = Promise<Void>.pending()
        let (straggler, stragglerResolver) = Promise<Int?>.pending()
        try await VowRuntime.withDefaultDispatcher(tagged.queue) {
            #expect(try await tagNow() == 67)
            // A real suspension: resumed by a callback on another queue.
            try await Promise.value(()).map(on: .background) { _ in }.value
            #expect(try await tagNow() == 67)
            await Task.yield()
            #expect(VowRuntime.defaultDispatcher === tagged.queue)
            async let child = tagNow()
            #expect(try await child == 67)
            let grouped = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<4 { group.addTask { try await tagNow() } }
                var tags: [Int?] = []
                for try await tag in group { tags.append(tag) }
                return tags
            }
            #expect(grouped == [67, 67, 67, 67])
            #expect(try await Task { try await tagNow() }.value == 67)
            #expect(try await Task.detached { try await tagNow() }.value == nil)
            // A task started in the scope that registers after the scope ended.
            Task {
                try await late.value
                stragglerResolver.fulfill(try await tagNow())
            }
        }
        #expect(VowRuntime.defaultDispatcher !== tagged.queue)
        #expect(try await tagNow() == nil)
        lateResolver.fulfill(())
        #expect(try await straggler.value == 67, "a task keeps the scope it was started in")
    }
}
