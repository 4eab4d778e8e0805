import CVow

#if canImport(Glibc)
import Glibc
#endif

// Debug mode (vow.h, "Debug mode"): the setting, the census, and the sites an unhandled-
// error handler can read. The functions that record a C caller's site, NAME_site, are made
// from the header's table `VOW_PROMISE_MAKERS` with the plain ones (CPromiseMakers.swift);
// Vow 0.2's deprecated `_at` names by the preprocessor (Sources/CVow/promise_makers.c).

@c @implementation
func vowface_debug_set(_ on: Bool) {
    DebugMode.set(on)
}

@c @implementation
func vowface_debug_enabled() -> Bool {
    DebugMode.isSet
}

@c @implementation
func vowface_debug_dump_pending(_ out: UnsafeMutablePointer<FILE>?) -> Int {
    guard let out else { return 0 }
    return writeCensus(DebugRegistry.census(), to: out)
}

/// Writes one census line per pending promise to `out` (`vow_debug_dump_pending`,
/// `vow_test_loop_dump_pending`), flushed; returns how many.
func writeCensus(_ pending: [PendingRecord], to out: UnsafeMutablePointer<FILE>) -> Int {
    for entry in pending { fputs(entry.line + "\n", out) }
    if !pending.isEmpty { fflush(out) }
    return pending.count
}

@c @implementation
func vowface_unhandled_site() -> UnsafePointer<CChar>? {
    CUnhandledSites.current?.site
}

@c @implementation
func vowface_unhandled_chain_site() -> UnsafePointer<CChar>? {
    CUnhandledSites.current?.chain
}

/// The sites of the report a C unhandled-error handler is running on this thread, for
/// `vow_unhandled_site` and `vow_unhandled_chain_site`: set around the handler call
/// (`CInstalledCallback.report`), restored after it (a handler may release a promise whose
/// own report runs inside it). The strings live on the reporting thread's stack for the
/// length of the call.
enum CUnhandledSites {
    struct Frame {
        let site: UnsafePointer<CChar>
        let chain: UnsafePointer<CChar>
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key, nil)
        precondition(rc == 0, "vow: pthread_key_create failed (\(rc))")
        return key
    }()

    /// The frame of the handler call running on this thread (nil: none, or the reported
    /// promise has no record).
    static var current: Frame? {
        pthread_getspecific(key)?.assumingMemoryBound(to: Frame.self).pointee
    }

    /// Runs `body` (the handler call) with `record`'s sites readable on this thread.
    static func with(_ record: DebugRecord?, _ body: () -> Void) {
        guard let record else {
            withFrame(nil, body)
            return
        }
        record.site.withCString { site in
            record.chainStart.withCString { chain in
                var frame = Frame(site: site, chain: chain)
                withUnsafeMutablePointer(to: &frame) { withFrame(UnsafeMutableRawPointer($0), body) }
            }
        }
    }

    private static func withFrame(_ frame: UnsafeMutableRawPointer?, _ body: () -> Void) {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, frame)
        body()
        pthread_setspecific(key, outer)
    }
}
