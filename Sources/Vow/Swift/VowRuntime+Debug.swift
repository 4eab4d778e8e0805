// Debug mode (Swift face): the setting, the census, and the unhandled-error handler that
// receives creation sites. Same settings as C's `vow_debug_set`, `vow_debug_dump_pending`
// and `vow_unhandled_site`. See the article "Debugging chains".

extension VowRuntime {
    /// Whether promises record where they were made. Off by default; on at start-up when
    /// the environment has `VOW_DEBUG` set to anything but empty or `0` (read once, at the
    /// first promise made), or when set here. Same setting as C's `vow_debug_set`.
    /// Thread-safe; affects promises made after the change.
    ///
    /// On, every promise made through the library's API records the file and line of the
    /// call that made it (the `file:`/`line:` default arguments, C's `_at` functions) and the
    /// site of the first promise of its chain. The sites appear in the unhandled-error
    /// line, in `unhandledErrorReporter`, in the broken-promise error's message and in
    /// `pendingPromises()`. Off, making a promise costs one extra load and branch.
    public static var debugMode: Bool {
        get { DebugMode.isSet }
        set { DebugMode.set(newValue) }
    }

    /// The promises made in debug mode that are still pending, oldest first: where each was
    /// made, how long ago, and what it waits on. Empty when debug mode was never on. Safe
    /// while other threads make and settle promises (a snapshot: a promise may settle
    /// right after it was listed). Same census as C's `vow_debug_dump_pending`.
    public static func pendingPromises() -> [PendingPromise] {
        DebugRegistry.census().map(PendingPromise.init)
    }

    /// Like `unhandledErrorHandler`, and also receives where the dropped promise was made:
    /// `sites` is nil for a promise made while debug mode was off. The two are one setting
    /// (with C's `vow_set_unhandled_error_handler`): setting either replaces the other.
    /// Called once per unhandled rejection, on no particular thread, outside every library
    /// lock; receives cancellations too. `nil` restores the default (the line on standard
    /// error). Thread-safe.
    public static var unhandledErrorReporter: (@Sendable (any Error, UnhandledErrorSites?) -> Void)? {
        get {
            guard let sink = UnhandledErrors.current else { return nil }
            return { error, sites in
                sink(error, sites.map { DebugRecord(site: $0.droppedAt, chainSite: $0.chainBeganAt) })
            }
        }
        set {
            let previous: UnhandledErrors.SinkBox?
            if let newValue {
                previous = UnhandledErrors.replace(with: { error, record in
                    newValue(unboxError(error), record.map(UnhandledErrorSites.init))
                })
            } else {
                previous = UnhandledErrors.replace(with: nil)
            }
            withExtendedLifetime(previous) {}
        }
    }
}

/// Where a promise whose rejection nobody handled came from (debug mode): see
/// `VowRuntime.unhandledErrorReporter`. Sites read "file:line" (Swift: the `#fileID` of the
/// call; C: the `__FILE__` a program compiled with `VOW_DEBUG_SITES` passed), or "C" for
/// a promise a C program made without its site.
public struct UnhandledErrorSites: Sendable, Equatable {
    /// The site of the promise at the end of the branch, the one dropped unhandled.
    public let droppedAt: String
    /// The site of the first promise of its chain.
    public let chainBeganAt: String

    /// The two sites of a report (the engine makes these; a test of a reporter may too).
    public init(droppedAt: String, chainBeganAt: String) {
        self.droppedAt = droppedAt
        self.chainBeganAt = chainBeganAt
    }

    init(_ record: DebugRecord) {
        self.init(droppedAt: record.site, chainBeganAt: record.chainStart)
    }
}

/// A promise still pending, as `VowRuntime.pendingPromises()` lists it.
public struct PendingPromise: Sendable, CustomStringConvertible {
    /// Where it was made ("file:line", or "C").
    public let site: String
    /// Where its chain began (its own site if it is the first promise of its chain).
    public let chainSite: String
    /// How long it has been pending, in seconds.
    public let age: Double
    /// The site of the promise it waits on: the source of its `then` (or the promise that
    /// source's callback returned and it now follows), or the first input of a combinator.
    /// nil when it waits on no promise (its resolver, a timer, a task), or on one made
    /// while debug mode was off.
    public let waitingOn: String?

    package init(_ record: PendingRecord) {
        site = record.site
        chainSite = record.chainSite
        age = record.age
        waitingOn = record.waitingOn
    }

    /// The census line: "SITE: pending for AGE s, waiting on SITE (chain began at SITE)",
    /// as C's `vow_debug_dump_pending` writes it.
    public var description: String {
        PendingRecord.line(site: site, chainSite: chainSite, age: age, waitingOn: waitingOn)
    }
}
