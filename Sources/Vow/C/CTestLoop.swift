import CVow

#if canImport(Glibc)
import Glibc
#endif

// Test loops (vow_testing.h): C's face of the engine's `TestLoopCore`, the loop VowTesting's
// `TestLoop` wraps for Swift.

/// A `vow_test_loop *`: the engine's loop, and its dispatcher handle (what
/// `vow_test_loop_dispatcher` lends). One owner, C's: releasing it closes the loop.
final class CTestLoop: HandleObject, @unchecked Sendable {
    // @unchecked: immutable; the loop guards its own state.
    let core: TestLoopCore
    let dispatcher: DispatcherHandle

    init(seed: UInt64) {
        core = TestLoopCore(seed: seed)
        dispatcher = DispatcherHandle(core)
        super.init(tag: .testLoop)
    }

    deinit {
        core.close()
    }
}

extension CTestLoop: TaggedHandle { static var handleKind: HandleTag { .testLoop } }

/// Runs `core.run(until:)` for `function`; a misuse line and 0 when the loop is running.
private func run(_ loop: CTestLoop, until target: Int?, in function: StaticString) -> Int {
    guard let count = loop.core.run(until: target) else {
        writeDiagnostic("vow: \(function): the loop is running already (called from one of its jobs, or from another thread while it runs)")
        return 0
    }
    return count
}

@c @implementation
public func vow_test_loop_new(_ seed: UInt64) -> OpaquePointer? {
    CTestLoop(seed: seed).retainedHandle
}

@c @implementation
public func vow_test_loop_dispatcher(_ l: OpaquePointer?) -> OpaquePointer? {
    handle(l, as: CTestLoop.self, in: "vow_test_loop_dispatcher")?.dispatcher.borrowedHandle
}

@c @implementation
public func vow_test_loop_install(_ l: OpaquePointer?) -> Int32 {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_install") else { return VOW_EINVAL.rawValue }
    switch loop.core.install(default: loop.core) {
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
public func vow_test_loop_uninstall(_ l: OpaquePointer?) -> Int32 {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_uninstall") else { return VOW_EINVAL.rawValue }
    guard loop.core.uninstall() else {
        writeDiagnostic("vow: vow_test_loop_uninstall: the loop is not installed on this thread")
        return VOW_EINVAL.rawValue
    }
    return VOW_OK.rawValue
}

@c @implementation
public func vow_test_loop_advance(_ l: OpaquePointer?, _ seconds: Double) -> Int {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_advance") else { return 0 }
    let seconds = cSeconds(seconds, in: "vow_test_loop_advance")
    if seconds == .infinity { return run(loop, until: nil, in: "vow_test_loop_advance") }
    let now = loop.core.nowInNanoseconds
    let (target, overflow) = now.addingReportingOverflow(Timing.delayNanoseconds(seconds) ?? Int.max)
    return run(loop, until: overflow ? Int.max : target, in: "vow_test_loop_advance")
}

@c @implementation
public func vow_test_loop_run_until_idle(_ l: OpaquePointer?) -> Int {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_run_until_idle") else { return 0 }
    return run(loop, until: loop.core.nowInNanoseconds, in: "vow_test_loop_run_until_idle")
}

@c @implementation
public func vow_test_loop_now(_ l: OpaquePointer?) -> Double {
    handle(l, as: CTestLoop.self, in: "vow_test_loop_now")?.core.now ?? .nan
}

@c @implementation
public func vow_test_loop_pending(_ l: OpaquePointer?) -> Int {
    handle(l, as: CTestLoop.self, in: "vow_test_loop_pending")?.core.pendingPromises().count ?? 0
}

@c @implementation
public func vow_test_loop_dump_pending(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<FILE>?) -> Int {
    guard let loop = handle(l, as: CTestLoop.self, in: "vow_test_loop_dump_pending"), let out else { return 0 }
    return writeCensus(loop.core.pendingPromises(), to: out)
}

@c @implementation
public func vow_test_loop_release(_ l: OpaquePointer?) {
    releaseHandle(l, .testLoop, in: "vow_test_loop_release")
}
