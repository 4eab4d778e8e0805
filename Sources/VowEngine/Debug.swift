import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// Debug mode: where every promise was made, which chain it belongs to, and a census of the
// promises still pending.
//
// Off by default; the faces turn it on (a setting, or `VOW_DEBUG` in the environment, read
// once at the first promise made). Off, a promise pays one load and one branch when it is
// made (`DebugMode.isOn`) and none elsewhere: the settle path does not look at debug mode,
// and `deinit` tests the `debugged` flag together with `rejected`, in one test it makes
// anyway. On, every promise a face makes with a `Site` gets a `DebugRecord` in its extras
// and an entry in `DebugRegistry` until it is freed; the census lists the entries whose
// promise is still pending.

/// Where a face's caller made a promise, as the face passes it: two words (a pointer to a
/// NUL-terminated file name and a line), so passing a site costs two register moves and
/// nothing is copied until a record is made.
@usableFromInline package struct Site {
    /// The file name (NUL-terminated UTF-8), or nil for the cases below.
    @usableFromInline let file: UnsafePointer<CChar>?
    /// The line; with a nil file: 0 for "C", -1 for unknown, -2 for `sameAsSource`.
    @usableFromInline let line: Int

    @inlinable init(file: UnsafePointer<CChar>?, line: Int) {
        self.file = file
        self.line = line
    }

    /// A Swift call site: `#fileID` and `#line` (a static string's text is NUL-terminated).
    @inlinable
    package static func source(_ file: StaticString, _ line: UInt) -> Site {
        guard file.hasPointerRepresentation else { return Site(file: nil, line: -1) }
        return Site(file: UnsafeRawPointer(file.utf8Start).assumingMemoryBound(to: CChar.self), line: Int(line))
    }

    /// A file name as a C string (copied when recorded; read only during the call that
    /// passes it) and a line. A nil file: a C caller that passed no site, shown as "C".
    @inlinable
    package static func cString(_ file: UnsafePointer<CChar>?, _ line: Int) -> Site {
        Site(file: file, line: file == nil ? 0 : line)
    }

    /// A view of the promise it is derived from (a conversion): recorded with that
    /// promise's site.
    @inlinable
    package static var sameAsSource: Site { Site(file: nil, line: -2) }

    /// A path that passes no site of its own.
    @inlinable
    static var unknown: Site { Site(file: nil, line: -1) }

    @usableFromInline var isSameAsSource: Bool { file == nil && line == -2 }

    /// "file:line", "C" or "unknown" (`sameAsSource` is resolved by `Core.recordSite`).
    @usableFromInline var text: String {
        guard let file else { return line == 0 ? "C" : "unknown" }
        // One allocation: the file's bytes, ":" and the line's digits written in place.
        let length = strlen(file)
        let digits = String(line)
        return String(unsafeUninitializedCapacity: length + 1 + digits.utf8.count) { buffer in
            let bytes = UnsafeRawBufferPointer(start: file, count: length)
            var index = buffer.initialize(fromContentsOf: bytes)
            buffer[index] = UInt8(ascii: ":")
            index += 1
            for digit in digits.utf8 {
                buffer[index] = digit
                index += 1
            }
            return index
        }
    }
}

/// Where a promise was made (debug mode). Kept in the promise's extras, also after it
/// settled (the unhandled-error report reads it from `deinit`). Immutable.
@usableFromInline package final class DebugRecord: Sendable {
    /// The file and line of the call that made the promise ("C" when a C program did not
    /// pass its site).
    @usableFromInline package let site: String
    /// The site of the first promise of the chain this promise belongs to (nil: it is the
    /// first).
    @usableFromInline package let chainSite: String?
    /// When it was made (`DebugClock.now`, nanoseconds).
    @usableFromInline package let madeAt: UInt64
    /// The thread that made it (`DebugRecord.currentThread`), for a census of one thread's
    /// promises.
    @usableFromInline package let thread: UInt

    @usableFromInline package init(site: String, chainSite: String?, madeAt: UInt64 = DebugClock.now,
                                   thread: UInt = DebugRecord.currentThread) {
        self.site = site
        self.chainSite = chainSite
        self.madeAt = madeAt
        self.thread = thread
    }

    /// The calling thread, as records name it (its engine state's identity: unique among
    /// the threads alive).
    @usableFromInline package static var currentThread: UInt {
        UInt(bitPattern: ObjectIdentifier(ThreadState.current))
    }

    /// The site of the first promise of its chain (its own site if it is the first).
    @usableFromInline package var chainStart: String { chainSite ?? site }

    /// "dropped at SITE, chain began at SITE" for the unhandled-error line.
    @usableFromInline var reportSites: String {
        "dropped at \(site), chain began at \(chainStart)"
    }

    /// " (promise made at SITE)" for a message about `promise`, or "" when it has no record.
    @usableFromInline static func siteSuffix(of promise: Core) -> String {
        guard let record = promise.debugRecord else { return "" }
        return " (promise made at \(record.site))"
    }
}

/// The debug-mode setting: one atomic byte, unknown until first read (then the
/// environment decides), off or on. "On" while the setting is on, or while something holds
/// recording on regardless of it (`hold()`: a test loop's census), so promises record their
/// sites; the setting alone is what `isSet` reports.
@usableFromInline package enum DebugMode {
    @inlinable static var unknown: UInt8 { 0 }
    @inlinable static var off: UInt8 { 1 }
    @inlinable static var on: UInt8 { 2 }

    /// True when promises record their sites. One relaxed load and one branch once the
    /// setting is known and off; the first call reads the environment.
    @inlinable @inline(__always)
    static var isOn: Bool {
        let state = debugModeState.load(ordering: .relaxed)
        if _fastPath(state == 1) { return false }
        return resolved(state)
    }

    /// The setting itself (what `VowRuntime.debugMode` and `vow_debug_enabled` report),
    /// whatever the holds do.
    package static var isSet: Bool {
        _ = isOn
        return transitions.withLock { setting }
    }

    /// Turns debug mode on or off for promises made from now on (promises made before
    /// keep their records, or stay without). Any thread.
    package static func set(_ on: Bool) {
        transitions.withLock {
            setting = on
            settingKnown = true
            debugModeState.store(effective, ordering: .relaxed)
        }
    }

    /// Keeps recording on, whatever the setting, until `releaseHold()` (holds count): for
    /// a census that must see every promise made meanwhile (VowTesting's loops list the
    /// promises made on their thread). Any thread.
    package static func hold() {
        _ = isOn
        transitions.withLock {
            holds += 1
            debugModeState.store(effective, ordering: .relaxed)
        }
    }

    /// Gives back one `hold()`.
    package static func releaseHold() {
        transitions.withLock {
            holds -= 1
            debugModeState.store(effective, ordering: .relaxed)
        }
    }

    /// Serializes the changes of the state (the first read of the environment excepted),
    /// and guards `setting`, `settingKnown` and `holds`. A bare lock, not a `Locked<Void>`:
    /// ThreadSanitizer does not see the lock order the accesses of an empty value.
    private static let transitions = VowLock()
    /// The setting (under `transitions`); known once set or read from the environment.
    nonisolated(unsafe) private static var setting = false
    nonisolated(unsafe) private static var settingKnown = false
    /// How many holds are out (under `transitions`).
    nonisolated(unsafe) private static var holds = 0

    /// The state the setting and the holds make (under `transitions`).
    private static var effective: UInt8 { setting || holds > 0 ? DebugMode.on : DebugMode.off }

    /// `state` is not "off": on, or unknown (then the environment variable `VOW_DEBUG`
    /// decides, once: set and neither empty nor "0" means on; a setting made meanwhile
    /// wins).
    @usableFromInline @inline(never)
    static func resolved(_ current: UInt8) -> Bool {
        if current == DebugMode.on { return true }
        if current == DebugMode.off { return false }
        let fromEnvironment: Bool
        if let raw = getenv("VOW_DEBUG"), raw.pointee != 0, !(raw.pointee == 0x30 && raw[1] == 0) {
            fromEnvironment = true
        } else {
            fromEnvironment = false
        }
        return transitions.withLock {
            if !settingKnown {
                setting = fromEnvironment
                settingKnown = true
            }
            let state = effective
            debugModeState.store(state, ordering: .relaxed)
            return state == DebugMode.on
        }
    }
}

/// The state behind `DebugMode`: 0 unknown, 1 off, 2 on. A global with a constant
/// initializer, so it lives in static memory and reading it needs no lazy-initialization
/// check (a `static let` would cost a `swift_once` call on every promise made).
@usableFromInline let debugModeState = Atomic<UInt8>(0)

/// The monotonic clock of the records.
@usableFromInline package enum DebugClock {
    /// Nanoseconds since an arbitrary start (CLOCK_MONOTONIC).
    @usableFromInline package static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

extension Core {
    /// The debug record, if this promise has one (kept in the registry: a settled promise
    /// has no word to spare for it). Takes the registry's lock.
    @usableFromInline final var debugRecord: DebugRecord? {
        guard flags.contains(.debugged) else { return nil }
        return DebugRegistry.record(of: self)
    }

    /// Records that this promise was made at `site` (when debug mode is on): the link
    /// primitive calls it, and faces call it on the promises they make otherwise. `source`:
    /// the promise this one was derived from (its chain is inherited); nil starts a chain.
    @inlinable @inline(__always)
    package final func noteMade(at site: Site, from source: Core? = nil) {
        if DebugMode.isOn { recordSite(site, from: source) }
    }

    /// `noteMade(at:from:)` as an expression: returns self. (A hot path that keeps the
    /// promise in a local calls `noteMade` instead: handing self back costs a retain and a
    /// release.)
    @inlinable @inline(__always) @discardableResult
    package final func made(at site: Site, from source: Core? = nil) -> Self {
        noteMade(at: site, from: source)
        return self
    }

    /// Makes and attaches the record (debug mode is on), and lists the promise in the
    /// registry (`deinit` takes it off; the census shows it while it is pending).
    @usableFromInline @inline(never)
    final func recordSite(_ site: Site, from source: Core?) {
        let sourceRecord = source?.debugRecord
        let text: String
        if site.isSameAsSource, let sourceRecord {
            text = sourceRecord.site
        } else {
            text = site.text
        }
        let record = DebugRecord(site: text, chainSite: sourceRecord?.chainStart)
        // Listed, then flagged (the flag tells `deinit` to take the entry off).
        DebugRegistry.add(self, record)
        var flags = lock()
        flags.insert(.debugged)
        unlock(flags)
    }
}

/// One pending promise in the census.
@usableFromInline package struct PendingRecord: Sendable {
    /// Where it was made.
    @usableFromInline package let site: String
    /// Where its chain began.
    @usableFromInline package let chainSite: String
    /// How long it has been pending, in seconds.
    @usableFromInline package let age: Double
    /// The site of the promise it waits on (nil: it waits on no promise, say on its
    /// resolver or a timer, or that promise has no record).
    @usableFromInline package let waitingOn: String?

    /// The census line, as every face writes it (Swift's `PendingPromise.description`, C's
    /// `vow_debug_dump_pending` and `vow_test_loop_dump_pending`).
    package var line: String {
        PendingRecord.line(site: site, chainSite: chainSite, age: age, waitingOn: waitingOn)
    }

    /// The one format of a census line: "SITE: pending for AGE s, waiting on SITE (chain
    /// began at SITE)", the age in seconds with three decimals.
    package static func line(site: String, chainSite: String, age: Double, waitingOn: String?) -> String {
        let millis = Int((max(0, age) * 1000).rounded())
        let fraction = String(millis % 1000)
        let seconds = "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        return "\(site): pending for \(seconds) s, waiting on \(waitingOn ?? "no promise") (chain began at \(chainSite))"
    }
}

/// The promises that have a debug record, for the census (which shows the pending ones).
///
/// Locking: the registry's lock is taken with no promise lock held (a promise lock may be
/// taken inside it, never the reverse), and no reference to a promise is dropped under it.
/// Entries do not retain their promise: `Core.deinit` takes its entry off before it
/// touches anything else of the promise, and the census reads a listed promise only while
/// it holds the registry's lock (a promise being freed meanwhile is settled, which the
/// census skips, or pending with no other reference, which `deinit` keeps waiting on the
/// registry's lock until the census is done).
@usableFromInline package enum DebugRegistry {
    struct Entry {
        let promise: Unmanaged<Core>
        let record: DebugRecord
    }

    private static let entries = Locked<[ObjectIdentifier: Entry]>([:])

    static func add(_ promise: Core, _ record: DebugRecord) {
        let entry = Entry(promise: .passUnretained(promise), record: record)
        entries.withLock { $0[ObjectIdentifier(promise)] = entry }
    }

    /// The record of a listed promise.
    static func record(of promise: Core) -> DebugRecord? {
        entries.withLock { $0[ObjectIdentifier(promise)]?.record }
    }

    /// Takes `promise` off (it is being freed). Never inlined: `deinit` calls it behind a
    /// flag test (inlining this would cost every promise a few dozen instructions).
    /// Returns its record.
    @usableFromInline @inline(never)
    static func remove(_ promise: Core) -> DebugRecord? {
        entries.withLock { $0.removeValue(forKey: ObjectIdentifier(promise)) }?.record
    }

    /// Every listed promise that is still pending, oldest first; with `including`, only
    /// those whose record it accepts (called under the registry's lock: it must not touch
    /// promises or the registry).
    package static func census(including: ((DebugRecord) -> Bool)? = nil) -> [PendingRecord] {
        let now = DebugClock.now
        var upstreams: [Core] = []
        var rows: [(madeAt: UInt64, row: PendingRecord)] = []
        entries.withLock { table in
            for entry in table.values where including?(entry.record) ?? true {
                // The promise cannot be freed while it is listed and this lock is held.
                let upstream: Core?? = entry.promise._withUnsafeGuaranteedRef { promise in
                    let flags = promise.lock()
                    guard !flags.contains(.settled) else {
                        promise.unlock(flags)
                        return nil
                    }
                    let upstream = promise.upstream
                    promise.unlock(flags)
                    return .some(upstream)
                }
                guard let upstream else { continue }
                // Kept to be released after the lock (it may be the last reference).
                if let upstream { upstreams.append(upstream) }
                let record = entry.record
                // The upstream's record straight from the table (`debugRecord` would take
                // the registry's lock, held here).
                let age = Double(now &- min(now, record.madeAt)) / 1e9
                rows.append((record.madeAt, PendingRecord(site: record.site, chainSite: record.chainStart, age: age,
                                                          waitingOn: upstream.flatMap { table[ObjectIdentifier($0)]?.record.site })))
            }
        }
        withExtendedLifetime(upstreams) {}
        return rows.sorted { $0.madeAt < $1.madeAt }.map(\.row)
    }
}
