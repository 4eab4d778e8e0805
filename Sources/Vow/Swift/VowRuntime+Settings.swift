// The process-wide settings as Swift sets them (the same settings as C's
// `vow_set_default_dispatcher` and `vow_set_unhandled_error_handler`).

extension VowRuntime {
    /// The library's own default dispatcher: one serial queue, never the main queue.
    static var librarySerial: SerialDispatcher { Dispatchers.librarySerial }

    /// The dispatcher `.default` stands for. Setting it affects callbacks registered after
    /// the change; `nil` restores the library's own serial queue. Same setting as C's
    /// `vow_set_default_dispatcher`. Thread-safe.
    public static var defaultDispatcher: any Dispatcher {
        get { Dispatchers.currentDefault }
        set { Dispatchers.setDefault(newValue) }
    }

    /// Restores the library's own default dispatcher.
    public static func resetDefaultDispatcher() { Dispatchers.setDefault(nil) }

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
            if let newValue {
                previous = UnhandledErrors.replace(with: { error, _ in newValue(unboxError(error)) })
            } else {
                previous = UnhandledErrors.replace(with: nil)
            }
            withExtendedLifetime(previous) {}
        }
    }
}
