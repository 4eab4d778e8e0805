// The Swift component of Tests/Loops/actor_uv.c: an actor whose executor is the libuv
// bridge's dispatcher, called from Swift's pool. Built by Tests/Loops/actor_uv.sh with
// swiftc against the same libvow.so as the C program.
import Dispatch
import Vow

/// C: true on the thread that runs uv_run (actor_uv.c).
@_silgen_name("actor_uv_on_loop_thread")
func onLoopThread() -> Bool

/// An actor on a dispatcher's executor. Each call records whether it ran on the loop's
/// thread, and checks its isolation there (checkIsolated stops the program otherwise).
private actor Tally {
    let dispatcher: any Dispatcher
    private(set) var onLoop = 0
    private(set) var offLoop = 0

    init(_ dispatcher: any Dispatcher) { self.dispatcher = dispatcher }

    nonisolated var unownedExecutor: UnownedSerialExecutor { dispatcher.executor!.asUnownedSerialExecutor() }

    func call() {
        if onLoopThread() { onLoop += 1 } else { offLoop += 1 }
        dispatcher.executor!.checkIsolated()
    }
}

/// The actor of the run in progress (one at a time; C drives the runs in order).
private nonisolated(unsafe) var tally: Tally?

/// Makes the actor on the dispatcher `d` (a vow_uv_dispatcher_new dispatcher, borrowed) and
/// calls it `n` times from a task on Swift's pool. Returns a promise (+1) of the number of
/// calls that ran on the loop's thread, settled on the loop's thread: a promise callback on
/// the dispatcher reads the actor's state with assumeIsolated, which holds only there.
@_cdecl("actor_uv_start")
public func actorUVStart(_ d: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    guard let dispatcher = VowRuntime.dispatcher(unsafeHandle: d), dispatcher.executor != nil else { return nil }
    let actor = Tally(dispatcher)
    tally = actor
    let calls = Promise<Void> {
        for _ in 0..<n { await actor.call() }
    }
    let counted = calls.map(on: dispatcher) { _ in
        actor.assumeIsolated { $0.offLoop == 0 ? $0.onLoop : -$0.offLoop }
    }
    return AnyPromise(counted).unsafeRetainedHandle()
}

/// After the dispatcher was closed: calls the actor once more from the pool and waits for
/// the call (the bridge drops the job, which then runs on the dropping thread). Returns 1 if
/// it ran off the loop, isolated (checkIsolated passed), 0 if it ran on the loop, -1 if it
/// never finished.
@_cdecl("actor_uv_call_after_close")
public func actorUVCallAfterClose() -> Int {
    guard let actor = tally else { return -1 }
    let done = DispatchSemaphore(value: 0)
    let result = Promise<Int> {
        let before = await actor.offLoop
        await actor.call()
        return await actor.offLoop - before
    }
    result.done(on: .background) { _ in done.signal() }.catch(on: .background) { _ in done.signal() }
    guard done.wait(timeout: .now() + 30) == .success, let ran = try? result.wait() else { return -1 }
    return ran == 1 ? 1 : 0
}

/// Lets go of the actor (so the dispatcher's destroy can run once C releases it too).
@_cdecl("actor_uv_finish")
public func actorUVFinish() {
    tally = nil
}
