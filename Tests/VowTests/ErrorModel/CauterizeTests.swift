import Testing
@testable import Vow

// cauterize() (PromiseKit's): the chain ends there; an error is handed to the
// unhandled-error handler once, when the promise settles (not when it is dropped), a
// cancellation is dropped silently, and nothing more is reported for the chain.
//
// Part of `UnhandledErrorTests` (that serialized suite sets the process-wide handler).

extension ErrorModel.ProcessWideSettings.UnhandledErrorTests {
    private func withCauterizeRecorder(_ body: (ErrorModel.Recorder) throws -> Void) rethrows {
        let saved = VowRuntime.unhandledErrorHandler
        defer { VowRuntime.unhandledErrorHandler = saved }
        let recorder = ErrorModel.Recorder()
        VowRuntime.unhandledErrorHandler = recorder.handler
        try body(recorder)
    }

    @Test func cauterizeReportsAnErrorOnceWhenItArrives() throws {
        try withCauterizeRecorder { recorder in
            let (promise, resolver) = Promise<Int>.pending()
            let end = promise.map { $0 + 1 }.cauterize()
            #expect(recorder.hits.count == 0)
            resolver.reject(recorder.error(1))
            _ = try value(of: end) // the end fulfils: the error was handled there
            #expect(ErrorModel.poll { recorder.hits.count >= 1 })
            ErrorModel.drainDefault()
            #expect(recorder.seenIndices == [1])
        }
    }

    @Test func cauterizeIgnoresCancellationAndFulfilment() throws {
        try withCauterizeRecorder { recorder in
            do {
                let (promise, resolver) = Promise<Int>.pending()
                let end = promise.cauterize()
                promise.cancel()
                withExtendedLifetime(resolver) {}
                _ = try value(of: end)
                _ = try value(of: Promise.value(1).cauterize())
                _ = try value(of: Promise<Int>(error: recorder.error(2, cancelled: true)).cauterize())
            }
            ErrorModel.drainDefault()
            #expect(recorder.hits.count == 0)
        }
    }
}
