import CVow
import VowTestLoop

#if canImport(Glibc)
import Glibc
#endif

// Test loops (vow_testing.h): C's face of the test loop (VowTestLoop's `TestLoopCore`, the
// loop VowTesting's `TestLoop` is for Swift).

/// A `vow_test_loop *`: the loop as a dispatcher, and its dispatcher handle (what
/// `vow_test_loop_dispatcher` lends). One owner, C's: releasing it closes the loop at once
/// (`vow_test_loop_release`), even while a run of the loop (the caller's own job) still
/// holds this object.
final class CTestLoop: HandleObject, @unchecked Sendable {
    // @unchecked: immutable; the loop guards its own state.
    let loop: LoopDispatcher
    let dispatcher: DispatcherHandle

    var core: TestLoopCore { loop.core }

    init(seed: UInt64) {
        loop = LoopDispatcher(seed: seed)
        dispatcher = DispatcherHandle(loop)
        super.init(tag: .testLoop)
    }

    deinit {
        core.close()
    }
}

extension CTestLoop: TaggedHandle { static var handleKind: HandleTag { .testLoop } }

/// Runs `core.run(until:)` for `function`; a misuse line and 0 when the loop is running.
private func run(_ loop: CTestLoop, until target: VirtualInstant?, in function: StaticString) -> Int {
    guard let count = loop.core.run(until: target) else {
        writeDiagnostic("vow: \(function): the loop is running already (called from one of its jobs, or from another thread while it runs)")
        return 0
    }
    return count
}

@c @implementation
func vowface_test_loop_new(_ seed: UInt64) -> OpaquePointer? {
    CTestLoop(seed: seed).retainedHandle
}

@c @implementation
func vowface_test_loop_dispatcher(_ l: OpaquePointer?) -> OpaquePointer? {
    handle(l, as: CTestLoop.self, in: "vow_test_loop_dispatcher")?.dispatcher.borrowedHandle
}

@c @implementation
func vowface_test_loop_install(_ l: OpaquePointer?) -> Int32 {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_install") else { return VOW_EINVAL.rawValue }
    switch loop.core.install(default: loop.loop) {
    case .installed:
        return VOW_OK.rawValue
    case .alreadyInstalled, .threadHasAnother:
        writeDiagnostic("vow: vow_test_loop_install: this thread has a test loop installed already")
        return VOW_EALREADY.rawValue
    case .installedElsewhere:
        writeDiagnostic("vow: vow_test_loop_install: the loop is installed on another thread")
        return VOW_EALREADY.rawValue
    case .closed:
        return VOW_EINVAL.rawValue
    }
}

@c @implementation
func vowface_test_loop_uninstall(_ l: OpaquePointer?) -> Int32 {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_uninstall") else { return VOW_EINVAL.rawValue }
    guard loop.core.uninstall() else {
        writeDiagnostic("vow: vow_test_loop_uninstall: the loop is not installed on this thread")
        return VOW_EINVAL.rawValue
    }
    return VOW_OK.rawValue
}

@c @implementation
func vowface_test_loop_advance(_ l: OpaquePointer?, _ seconds: Double) -> Int {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_advance") else { return 0 }
    let seconds = cSeconds(seconds, in: "vow_test_loop_advance")
    // +infinity: every timer; otherwise the time rule (now for zero, negative, -infinity,
    // and NaN, which cSeconds reported): any finite time is a time (the clock counts it).
    guard let delay = Timing.delaySeconds(seconds) else { return run(loop, until: nil, in: "vow_test_loop_advance") }
    return run(loop, until: loop.core.now.advanced(bySeconds: delay), in: "vow_test_loop_advance")
}

@c @implementation
func vowface_test_loop_run_until_idle(_ l: OpaquePointer?) -> Int {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_run_until_idle") else { return 0 }
    return run(loop, until: loop.core.now, in: "vow_test_loop_run_until_idle")
}

@c @implementation
func vowface_test_loop_now(_ l: OpaquePointer?) -> Double {
    handle(l, as: CTestLoop.self, in: "vow_test_loop_now")?.core.now.seconds ?? .nan
}

@c @implementation
func vowface_test_loop_pending(_ l: OpaquePointer?) -> Int {
    handle(l, as: CTestLoop.self, in: "vow_test_loop_pending")?.core.pendingPromises().count ?? 0
}

@c @implementation
func vowface_test_loop_dump_pending(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<FILE>?) -> Int {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_dump_pending"), let out else { return 0 }
    return writeCensus(loop.core.pendingPromises(), to: out)
}

@c @implementation
func vowface_test_loop_release(_ l: OpaquePointer?) {
    // Closed here, not when the object goes: a run of the loop (this call made from one of
    // its jobs) holds the object until it returns, and must stop now (issue 32).
    guard let loop = unmanagedHandle(l, .testLoop, as: CTestLoop.self, in: "vow_test_loop_release") else { return }
    loop._withUnsafeGuaranteedRef { loop in
        loop.core.close()
        DispatcherHandle.forgetDefaultHandle(of: loop.loop)
    }
    loop.release()
}
