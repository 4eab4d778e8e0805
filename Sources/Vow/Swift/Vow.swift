import Synchronization

/// Process-wide settings, shared with C.
public enum Vow {
    /// The library's own default dispatcher: one serial queue, never the main queue.
    static let librarySerial = SerialDispatcher(label: "vow.default")

    private static let customDefault = Locked<(any Dispatcher)?>(nil)
    private static let hasCustomDefault = Atomic<Bool>(false)

    /// The dispatcher `.default` stands for. Setting it affects callbacks registered after
    /// the change; `nil` restores the library's own serial queue. Same setting as C's
    /// `vow_set_default_dispatcher`. Thread-safe.
    public static var defaultDispatcher: any Dispatcher {
        get { currentDefaultDispatcher }
        set { setDefaultDispatcher(newValue) }
    }

    /// Restores the library's own default dispatcher.
    public static func resetDefaultDispatcher() { setDefaultDispatcher(nil) }

    static func setDefaultDispatcher(_ dispatcher: (any Dispatcher)?) {
        var replacement = dispatcher
        if replacement === DefaultDispatcher.shared || replacement === librarySerial { replacement = nil }
        let previous = customDefault.withLock { current -> (any Dispatcher)? in
            let previous = current
            current = replacement
            hasCustomDefault.store(replacement != nil, ordering: .releasing)
            return previous
        }
        withExtendedLifetime(previous) {}
    }

    @inline(__always)
    static var currentDefaultDispatcher: any Dispatcher {
        if !hasCustomDefault.load(ordering: .acquiring) { return librarySerial }
        return customDefault.withLock { $0 } ?? librarySerial
    }

    /// Called once for each rejection that nobody handled, when the last reference to the
    /// rejected promise at the end of a branch goes away, on no particular thread. `nil`
    /// (the default) writes one line to standard error and ignores cancellations; a handler
    /// set here receives cancellations too. Same setting as C's
    /// `vow_set_unhandled_error_handler`. Thread-safe.
    public static var unhandledErrorHandler: (@Sendable (any Error) -> Void)? {
        get {
            guard let sink = UnhandledErrors.current else { return nil }
            return { error in sink(error) }
        }
        set {
            let previous: UnhandledErrors.SinkBox?
            if let newValue {
                previous = UnhandledErrors.replace(with: { error in newValue(unboxError(error)) })
            } else {
                previous = UnhandledErrors.replace(with: nil)
            }
            withExtendedLifetime(previous) {}
        }
    }
}
