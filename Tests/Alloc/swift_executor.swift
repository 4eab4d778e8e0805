// The Swift half of the executor check (see scripts/check-allocations.sh and
// executor_check.c): round trips of a task between Swift's global pool and an actor whose
// executor is a Vow dispatcher's, or one of two reference executors on the same C loop.
import Dispatch
import Synchronization
import Vow

/// The C loop's submit (executor_check.c): queues `run(job)` on the loop's thread.
public typealias LoopSubmit = @convention(c) (UnsafeMutableRawPointer?, (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                               UnsafeMutableRawPointer?) -> Void

/// An actor on the executor it is given.
private actor Bumper {
    let executor: any SerialExecutor
    var count = 0

    init(_ executor: any SerialExecutor) { self.executor = executor }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func bump() { count += 1 }
}

/// Reference 1, the runtime's own cost: an executor that hands each job itself to the C
/// loop (no allocation of its own, by construction). One per process.
private final class BareLoopExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: set once, before any job.
    var submit: LoopSubmit?
    var ctx: UnsafeMutableRawPointer?

    func enqueue(_ job: consuming ExecutorJob) {
        submit?(ctx, { raw in
            unsafeBitCast(raw, to: UnownedJob.self).runSynchronously(on: bareLoopExecutor.asUnownedSerialExecutor())
        }, unsafeBitCast(UnownedJob(job), to: UnsafeMutableRawPointer.self))
    }
}

private let bareLoopExecutor = BareLoopExecutor()

/// Reference 2, the usual way: each job travels in an object of its own (swift-nio's event
/// loops keep a job in a closure, one allocation), here the smallest such object.
private final class WrappingLoopExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: set once, before any job.
    var submit: LoopSubmit?
    var ctx: UnsafeMutableRawPointer?

    private final class Wrapper {
        let job: UnownedJob
        init(_ job: UnownedJob) { self.job = job }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let wrapper = Wrapper(UnownedJob(job))
        submit?(ctx, { raw in
            Unmanaged<Wrapper>.fromOpaque(raw!).takeRetainedValue().job
                .runSynchronously(on: closureLoopExecutor.asUnownedSerialExecutor())
        }, Unmanaged.passRetained(wrapper).toOpaque())
    }
}

private let closureLoopExecutor = WrappingLoopExecutor()

/// Runs on Swift's global pool (`@concurrent`), so each call is a hop back to it: without
/// it, the compiler keeps the task on the actor's executor between two calls to the actor.
@inline(never) @concurrent
private func onPool() async {
    poolVisits.wrappingAdd(1, ordering: .relaxed)
}

private let poolVisits = Atomic<Int>(0)

/// The result of a run, handed from the task to the waiting C thread.
private final class Outcome: @unchecked Sendable {
    // @unchecked: written by the task before it signals `done`, read after the wait.
    var count = -1
    let done = DispatchSemaphore(value: 0)
}

/// mode 0: the library's default serial queue's executor; 1: the executor of the C
/// dispatcher `dispatcher` (borrowed); 2: reference 1 on the C loop (`submit`, `ctx`);
/// 3: reference 2 on the C loop.
private func executor(_ mode: Int, _ dispatcher: OpaquePointer?, _ submit: LoopSubmit?,
                      _ ctx: UnsafeMutableRawPointer?) -> (any SerialExecutor)? {
    switch mode {
    case 0: return VowRuntime.defaultDispatcher.executor
    case 1: return VowRuntime.dispatcher(unsafeHandle: dispatcher)?.executor
    case 2:
        bareLoopExecutor.submit = submit
        bareLoopExecutor.ctx = ctx
        return bareLoopExecutor
    default:
        closureLoopExecutor.submit = submit
        closureLoopExecutor.ctx = ctx
        return closureLoopExecutor
    }
}

/// A task on the global pool calls the actor `n` times (each call: pool -> dispatcher ->
/// pool); blocks until it is done. Returns the actor's count (n) or -1.
@_cdecl("vow_alloc_executor_round_trips")
public func vowAllocExecutorRoundTrips(_ n: Int, _ mode: Int, _ dispatcher: OpaquePointer?,
                                       _ submit: LoopSubmit?, _ ctx: UnsafeMutableRawPointer?) -> Int {
    guard let executor = executor(mode, dispatcher, submit, ctx) else { return -1 }
    let bumper = Bumper(executor)
    let outcome = Outcome()
    Task.detached {
        for _ in 0..<n {
            await bumper.bump()   // pool -> the actor's dispatcher
            await onPool()        // -> back to the pool
        }
        outcome.count = await bumper.count
        outcome.done.signal()
    }
    outcome.done.wait()
    return outcome.count
}
