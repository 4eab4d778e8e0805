import CVow

// The `_at` variants of every C function that returns a promise (vow.h, "Debug mode"):
// the same implementation as the plain function (CPromises, CChaining, CCombinators,
// FFIEntryPoints), given the caller's file and line to record in debug mode. A program
// compiled with VOW_DEBUG_SITES reaches them through the header's macros. Each shared
// implementation is `@inline(__always)`, inlined into both entry points, so the plain one
// passes its constant site (`C`) for free.

@c @implementation
public func vow_promise_pending_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                   _ resolver_out: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    cPromisePending(resolver_out, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_promise_fulfilled_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                     _ value: OpaquePointer?) -> OpaquePointer? {
    cPromiseFulfilled(value, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_promise_rejected_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                    _ error: OpaquePointer?) -> OpaquePointer? {
    cPromiseRejected(error, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_then_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                        _ p: OpaquePointer?, _ on_value: vow_on_value?, _ on_error: vow_on_error?,
                        _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cThen(p, on_value, on_error, ctx, destroy, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_then_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                           _ d: OpaquePointer?, _ p: OpaquePointer?, _ on_value: vow_on_value?,
                           _ on_error: vow_on_error?, _ ctx: UnsafeMutableRawPointer?,
                           _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cThenOn(d, p, on_value, on_error, ctx, destroy, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_catch_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                         _ p: OpaquePointer?, _ on_error: vow_on_error?, _ ctx: UnsafeMutableRawPointer?,
                         _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cCatch(.plain, p, VOW_CATCH_ALL_EXCEPT_CANCELLATION, on_error, ctx, destroy, in: "vow_catch",
           at: .cString(file, Int(line)))
}

@c @implementation
public func vow_catch_policy_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                _ p: OpaquePointer?, _ policy: vow_policy, _ on_error: vow_on_error?,
                                _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cCatch(.plain, p, policy, on_error, ctx, destroy, in: "vow_catch_policy", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_finally_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                           _ p: OpaquePointer?, _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                           _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cFinally(.plain, p, fn, ctx, destroy, in: "vow_finally", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_catch_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                            _ d: OpaquePointer?, _ p: OpaquePointer?, _ on_error: vow_on_error?,
                            _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cCatch(.on(d), p, VOW_CATCH_ALL_EXCEPT_CANCELLATION, on_error, ctx, destroy, in: "vow_catch_on",
           at: .cString(file, Int(line)))
}

@c @implementation
public func vow_catch_policy_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                   _ d: OpaquePointer?, _ p: OpaquePointer?, _ policy: vow_policy,
                                   _ on_error: vow_on_error?, _ ctx: UnsafeMutableRawPointer?,
                                   _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cCatch(.on(d), p, policy, on_error, ctx, destroy, in: "vow_catch_policy_on", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_finally_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                              _ d: OpaquePointer?, _ p: OpaquePointer?,
                              _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                              _ ctx: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cFinally(.on(d), p, fn, ctx, destroy, in: "vow_finally_on", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_when_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                        _ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    cWhen(ps, n, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_join_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                        _ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    cJoin(ps, n, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_race_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                        _ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    cRace(ps, n, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_after_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                         _ seconds: Double) -> OpaquePointer? {
    cAfter(seconds, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_timeout_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                           _ p: OpaquePointer?, _ seconds: Double) -> OpaquePointer? {
    cTimeout(p, seconds, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_dispatch_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                            _ d: OpaquePointer?, _ fn: vow_on_value?, _ ctx: UnsafeMutableRawPointer?,
                            _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cDispatch(d, fn, ctx, destroy, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_then_call_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                             _ p: OpaquePointer?, _ signature: UnsafePointer<CChar>?, _ fn: vow_fnptr?,
                             _ ctx: UnsafeMutableRawPointer?,
                             _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cThenCall(.plain, p, signature, fn, CContext(ctx, destroy), in: "vow_then_call", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_then_call_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                _ d: OpaquePointer?, _ p: OpaquePointer?, _ signature: UnsafePointer<CChar>?,
                                _ fn: vow_fnptr?, _ ctx: UnsafeMutableRawPointer?,
                                _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cThenCall(.on(d), p, signature, fn, CContext(ctx, destroy), in: "vow_then_call_on",
              at: .cString(file, Int(line)))
}

@c @implementation
public func vow_promise_lazy_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                _ body: vow_lazy_body?, _ ctx: UnsafeMutableRawPointer?,
                                _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cPromiseLazy(.plain, body, ctx, destroy, in: "vow_promise_lazy", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_promise_lazy_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                                   _ d: OpaquePointer?, _ body: vow_lazy_body?, _ ctx: UnsafeMutableRawPointer?,
                                   _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cPromiseLazy(.on(d), body, ctx, destroy, in: "vow_promise_lazy_on", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_delay_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                         _ p: OpaquePointer?, _ seconds: Double) -> OpaquePointer? {
    cDelay(p, seconds, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_retry_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                         _ times: Int32, _ delay_seconds: Double, _ make: vow_retry_make?, _ should_retry: vow_retry_if?,
                         _ ctx: UnsafeMutableRawPointer?,
                         _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cRetry(times, delay_seconds, make, should_retry, ctx, destroy, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_any_at(_ file: UnsafePointer<CChar>?, _ line: Int32,
                       _ ps: UnsafePointer<OpaquePointer?>?, _ n: Int) -> OpaquePointer? {
    cAny(ps, n, at: .cString(file, Int(line)))
}

@c @implementation
public func vow_when_limited_at(_ file: UnsafePointer<CChar>?, _ line: Int32, _ n: Int, _ limit: Int,
                                _ make: vow_limited_make?, _ ctx: UnsafeMutableRawPointer?,
                                _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cLimited(.plain, n, limit, make, ctx, destroy, mode: .all, in: "vow_when_limited", at: .cString(file, Int(line)))
}

@c @implementation
public func vow_when_limited_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32, _ d: OpaquePointer?, _ n: Int,
                                   _ limit: Int, _ make: vow_limited_make?, _ ctx: UnsafeMutableRawPointer?,
                                   _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cLimited(.on(d), n, limit, make, ctx, destroy, mode: .all, in: "vow_when_limited_on",
             at: .cString(file, Int(line)))
}

@c @implementation
public func vow_join_limited_at(_ file: UnsafePointer<CChar>?, _ line: Int32, _ n: Int, _ limit: Int,
                                _ make: vow_limited_make?, _ ctx: UnsafeMutableRawPointer?,
                                _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cLimited(.plain, n, limit, make, ctx, destroy, mode: .allSettled, in: "vow_join_limited",
             at: .cString(file, Int(line)))
}

@c @implementation
public func vow_join_limited_on_at(_ file: UnsafePointer<CChar>?, _ line: Int32, _ d: OpaquePointer?, _ n: Int,
                                   _ limit: Int, _ make: vow_limited_make?, _ ctx: UnsafeMutableRawPointer?,
                                   _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    cLimited(.on(d), n, limit, make, ctx, destroy, mode: .allSettled, in: "vow_join_limited_on",
             at: .cString(file, Int(line)))
}
