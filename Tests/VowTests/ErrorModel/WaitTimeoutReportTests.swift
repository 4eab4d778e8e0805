import Testing
@testable import Vow

// Issue 12, section 3: a wait that timed out before the promise settled handled nothing;
// a wait that saw the rejection handled it. Swift's public wait() has no time limit, so
// the engine's timed wait (which C's vow_wait uses) is tested here.

extension ErrorModel.ProcessWideSettings.UnhandledErrorTests {
    /// Runs `body` with a fresh recorder installed (in this serialized suite), then
    /// restores the handler.
    private func withRecorder(_ body: (ErrorModel.Recorder) throws -> Void) rethrows {
        let saved = VowRuntime.unhandledErrorHandler
        defer { VowRuntime.unhandledErrorHandler = saved }
        let recorder = ErrorModel.Recorder()
        VowRuntime.unhandledErrorHandler = recorder.handler
        try body(recorder)
    }

    @Test func timedOutWaitDoesNotHandle() {
        withRecorder { recorder in
            do {
                let (promise, resolver) = Promise<Int>.pending()
                #expect(!promise.core.waitUntilSettled(timeout: 0.01))
                #expect(!promise.core.waitUntilSettled(timeout: 0))
                #expect(!promise.core.waitUntilSettled(timeout: .nan))
                resolver.reject(recorder.error(1))
            }
            #expect(ErrorModel.poll { recorder.hits.count >= 1 })
            ErrorModel.drainDefault()
            #expect(recorder.seenIndices == [1])
        }
    }

    @Test func waitThatSawTheRejectionHandles() {
        withRecorder { recorder in
            do {
                let (promise, resolver) = Promise<Int>.pending()
                #expect(!promise.core.waitUntilSettled(timeout: 0))
                resolver.reject(recorder.error(2))
                #expect(throws: ErrorModel.TokenError.self) { try promise.wait() }
            }
            ErrorModel.drainDefault()
            #expect(recorder.hits.count == 0)
        }
    }
}
