// The process-wide settings as Swift sets them (the same settings as C's
// `vow_set_default_dispatcher` and `vow_set_unhandled_error_handler`).

extension VowRuntime {
    /// The library's own default dispatcher: one serial queue, never the main queue.
    static var librarySerial: SerialDispatcher { Dispatchers.librarySerial }

    /// The dispatcher `.default` stands for. Setting it affects callbacks registered after
    /// the change, in the whole process; `resetDefaultDispatcher()` (or setting `.default`
    /// itself) restores the library's own serial queue. Same setting as C's
    /// `vow_set_default_dispatcher`. Thread-safe.
    ///
    /// Read, it is what `.default` stands for in the calling code now: the innermost
    /// `withDefaultDispatcher(_:_:)` scope's dispatcher, else the test loop installed on
    /// this thread, else the setting. Setting it inside such a scope still sets the
    /// process-wide setting.
    public static var defaultDispatcher: any Dispatcher {
        get { Dispatchers.currentDefault }
        set { Dispatchers.setDefault(newValue) }
    }

    /// Restores the library's own default dispatcher.
    public static func resetDefaultDispatcher() { Dispatchers.setDefault(nil) }

    /// Runs `body` with `.default` standing for `dispatcher` in the code `body` runs: on
    /// the calling thread until `body` returns or throws, and in the tasks started there
    /// (child tasks and `Task { }`, for as long as they run; not `Task.detached`). The
    /// process-wide setting and every other thread are untouched, so a test (or a component) can use a
    /// dispatcher of its own as the default without another one running at the same time
    /// seeing it, as swift-nio code binds its work to an explicit event loop.
    ///
    /// What the scope covers is where callbacks are registered: a callback registered on
    /// `.default` inside the scope runs on `dispatcher`, wherever and whenever it runs.
    /// Code that runs later on a dispatcher (a callback's own body) is outside the scope:
    /// callbacks it registers on `.default` go to the process-wide default, unless it opens
    /// a scope of its own. `.default` itself, or the library's queue, means the library's
    /// own serial queue, as in the setting.
    ///
    /// Scopes nest; the innermost wins, also over a `TestLoop` installed on the thread
    /// (which makes `.default` the loop on that thread): a scope inside an installed loop
    /// sends the callbacks registered in it to its own dispatcher, while timers still read
    /// the installed loop's clock and the promises made there are still the loop's pending
    /// promises. `TestLoop.with { }` inside a scope installs the loop as usual, but
    /// `.default` stays the scope's dispatcher.
    public static func withDefaultDispatcher<R>(_ dispatcher: any Dispatcher, _ body: () throws -> R) rethrows -> R {
        try Dispatchers.withDefault(dispatcher, body)
    }

    /// `withDefaultDispatcher(_:_:)` for an asynchronous body: the scope covers it across
    /// its suspensions (whatever thread it resumes on), and the child tasks and `Task { }`
    /// it starts, for as long as they run.
    public static func withDefaultDispatcher<R>(_ dispatcher: any Dispatcher,
                                                isolation: isolated (any Actor)? = #isolation,
                                                _ body: () async throws -> R) async rethrows -> R {
        try await Dispatchers.withDefault(dispatcher, isolation: isolation, body)
    }

    /// Called once for each rejection that nobody handled, when the last reference to the
    /// rejected promise at the end of a branch goes away, on no particular thread. `nil`
    /// (the default) writes one line to standard error and ignores cancellations; a handler
    /// set here receives cancellations too. Same setting as C's
    /// `vow_set_unhandled_error_handler`. Thread-safe.
    public static var unhandledErrorHandler: (@Sendable (any Error) -> Void)? {
        get {
            guard let sink = UnhandledErrors.current else { return nil }
            return { error in sink(error, nil) }
        }
        set {
            let previous: UnhandledErrors.SinkBox?
            previous = UnhandledErrors.replace(with: newValue.map(unboxingSink))
            withExtendedLifetime(previous) {}
        }
    }

    /// Runs `body` with `handler` receiving the unhandled rejections reported in the code
    /// `body` runs: a promise whose last reference goes on the calling thread before `body`
    /// returns or throws, or in a task started there (child tasks and `Task { }`). `nil`:
    /// the default line on standard error. The process-wide handler and every other thread
    /// are untouched.
    ///
    /// A rejected promise is reported where its last reference goes, which is often not
    /// where it was made: the end of a chain is usually let go of by the dispatcher that
    /// ran its last callback, on that dispatcher's thread, outside the scope; that report
    /// goes to the process-wide handler. The scope suits code that drops its promises
    /// itself (a test that makes rejected promises and lets them go); to catch every
    /// report, set `unhandledErrorHandler`. Scopes nest; the innermost wins. Reading
    /// `unhandledErrorHandler` inside a scope gives the scope's handler; setting it sets the
    /// process-wide one.
    public static func withUnhandledErrorHandler<R>(_ handler: (@Sendable (any Error) -> Void)?,
                                                    _ body: () throws -> R) rethrows -> R {
        try UnhandledErrors.withSink(handler.map(unboxingSink), body)
    }

    /// `withUnhandledErrorHandler(_:_:)` for an asynchronous body: the scope covers it
    /// across its suspensions (whatever thread it resumes on), and the tasks it starts.
    public static func withUnhandledErrorHandler<R>(_ handler: (@Sendable (any Error) -> Void)?,
                                                    isolation: isolated (any Actor)? = #isolation,
                                                    _ body: () async throws -> R) async rethrows -> R {
        try await UnhandledErrors.withSink(handler.map(unboxingSink), isolation: isolation, body)
    }

    /// The engine's sink for a Swift handler: the handler sees the error as Swift code
    /// does (unboxed).
    private static func unboxingSink(_ handler: @escaping @Sendable (any Error) -> Void) -> UnhandledErrors.Sink {
        { error, _ in handler(unboxError(error)) }
    }
}
