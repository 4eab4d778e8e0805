#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Vow

// VowRuntime.withUnhandledErrorHandler(_:_:), sync and async: the scope's handler receives
// the reports of the promises dropped in the code the scope runs. The first suite leaves
// the process-wide handler alone (its checks count only their own recorder's errors, and
// what leaves a scope is a cancellation, which the default report does not print); the
// tests that compare with the process-wide handler, or capture standard error, are in the
// serialized suite of process-wide settings, below.

@Suite("API: VowRuntime.withUnhandledErrorHandler (scoped handler)")
struct ScopedUnhandledErrorHandlerTests {
    typealias Recorder = ErrorModel.Recorder

    @Test("a promise dropped in the scope on the calling thread is reported to the scope's handler, at once")
    func droppedHere() {
        let recorder = Recorder()
        VowRuntime.withUnhandledErrorHandler(recorder.handler) {
            _ = Promise<Int>(error: recorder.error(1))
            #expect(recorder.seenIndices == [1])
            // A chain dropped here whose end was rejected by a callback that already ran.
            let end = Promise.value(1).map(on: .inline) { _ -> Int in throw recorder.error(2) }
            #expect(!end.isPending)
        }
        #expect(recorder.seenIndices == [1, 2])
    }

    @Test("scopes nest: the innermost wins, and each ends when its body returns or throws")
    func nesting() {
        struct Thrown: Error {}
        let outer = Recorder()
        let inner = Recorder()
        VowRuntime.withUnhandledErrorHandler(outer.handler) {
            VowRuntime.withUnhandledErrorHandler(inner.handler) {
                _ = Promise<Int>(error: inner.error(1))
                _ = Promise<Int>(error: outer.error(1))
            }
            _ = Promise<Int>(error: outer.error(2))
            _ = Promise<Int>(error: inner.error(2))
            #expect(throws: Thrown.self) {
                try VowRuntime.withUnhandledErrorHandler(inner.handler) { () throws -> Void in throw Thrown() }
            }
            _ = Promise<Int>(error: inner.error(3, cancelled: true))
        }
        // Outside every scope: the process-wide handler (the default report prints no
        // cancellation).
        _ = Promise<Int>(error: outer.error(4, cancelled: true))
        // The inner scope saw its own error only; the outer one saw the one the inner
        // scope's handler ignored (it counts only its own token) not at all: a scope
        // replaces, it does not chain.
        #expect(inner.seenIndices == [1])
        #expect(outer.seenIndices == [2])
    }

    @Test("reading unhandledErrorHandler in a scope gives the scope's handler; nil in a nil scope")
    func readingInScope() throws {
        let recorder = Recorder()
        VowRuntime.withUnhandledErrorHandler(recorder.handler) {
            let read = VowRuntime.unhandledErrorHandler
            #expect(read != nil)
            read?(recorder.error(1))
            #expect(recorder.seenIndices == [1])
            VowRuntime.withUnhandledErrorHandler(nil) {
                #expect(VowRuntime.unhandledErrorHandler == nil)
            }
            #expect(VowRuntime.unhandledErrorHandler != nil)
        }
    }

    @Test("async: the scope covers the body across suspensions and its child tasks, not Task.detached")
    func asyncScope() async throws {
        let recorder = Recorder()
        @Sendable func drop(_ index: Int, cancelled: Bool = false) {
            _ = Promise<Int>(error: recorder.error(index, cancelled: cancelled))
        }
        try await VowRuntime.withUnhandledErrorHandler(recorder.handler) {
            drop(1)
            try await Promise.value(()).map(on: .background) { _ in }.value
            drop(2)
            async let child: Void = drop(3)
            await child
            await withTaskGroup(of: Void.self) { group in group.addTask { drop(4) } }
            await Task { drop(5) }.value
            await Task.detached { drop(6, cancelled: true) }.value
        }
        #expect(recorder.seenIndices.sorted() == [1, 2, 3, 4, 5])
    }
}

// The tests that need the process-wide handler (or standard error) as it is.
extension ErrorModel.ProcessWideSettings.UnhandledErrorTests {
    @Test("scoped handler: a promise dropped on another thread goes to the process-wide handler")
    func scopeIsThisThreadsOnly() {
        let saved = VowRuntime.unhandledErrorHandler
        defer { VowRuntime.unhandledErrorHandler = saved }
        let processWide = ErrorModel.Recorder()
        VowRuntime.unhandledErrorHandler = processWide.handler
        let scoped = ErrorModel.Recorder(token: processWide.token)
        VowRuntime.withUnhandledErrorHandler(scoped.handler) {
            let handedOver = Locked<Promise<Int>?>(Promise<Int>(error: processWide.error(1)))
            let other = ErrorModel.startThread {
                // The last reference goes on this other thread.
                let taken = handedOver.withLock { $0.take() }
                withExtendedLifetime(taken) {}
            }
            pthread_join(other, nil)
            _ = Promise<Int>(error: processWide.error(2))
        }
        #expect(processWide.seenIndices == [1])
        #expect(scoped.seenIndices == [2])
    }

    @Test("scoped handler: a nil scope writes the default report, not the process-wide handler")
    func nilScopeIsTheDefaultReport() {
        let saved = VowRuntime.unhandledErrorHandler
        defer { VowRuntime.unhandledErrorHandler = saved }
        let processWide = ErrorModel.Recorder()
        VowRuntime.unhandledErrorHandler = processWide.handler
        let output = Self.capturingStandardError {
            VowRuntime.withUnhandledErrorHandler(nil) {
                _ = Promise<Int>(error: processWide.error(1))
                _ = Promise<Int>(error: processWide.error(2, cancelled: true))
            }
        }
        #expect(processWide.seenIndices.isEmpty)
        let lines = output.split(separator: "\n").filter { $0.contains(processWide.token) }
        #expect(lines.count == 1, "one line for the rejection, none for the cancellation: \(lines)")
    }
}
