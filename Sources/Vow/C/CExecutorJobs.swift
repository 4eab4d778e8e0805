@_spi(ExperimentalCustomExecutors) import _Concurrency
import CVow

// Swift jobs on a C host's loop (`vow_dispatcher_new`, the libuv and GLib bridges): the
// executor of a `HostDispatcher` hands each job to the host's `submit` as the job itself,
// with no object around it.
//
// Every Swift job has two words reserved for the executor that holds it (Swift's
// "executor private data", right after the job's object header: where a handle's tag is,
// `handleTagOffset`). While the host holds the job, the first word carries the tag
// `swiftJob` and the second the executor (its reference taken by `VowExecutor.enqueue`).
// `run` (a static function, `runSwiftJob`) and `vow_job_drop` recognise the job by the tag,
// retire the tag (so a second run or drop is caught like a released handle's, while the
// memory was not reused), and hand the job back to its executor. Where a toolchain would
// put that data elsewhere, the job travels in a `HostJob` instead (an allocation, the same
// behaviour).

/// What a host's `HostDispatcher` and its executor share: the host's `submit` and `ctx`,
/// and its `destroy`, which runs when the last of the two lets go.
final class HostLoop: SwiftJobHost, @unchecked Sendable {
    // @unchecked: immutable but for `dispatcherIdentity`, set once before the loop is
    // shared; the host vouches for `submit` (see HostDispatcher).
    private let submitToHost: HostDispatcher.Submit
    private let ctx: UnsafeMutableRawPointer?
    private let destroy: CDestroy?
    /// The dispatcher's identity: the mark on the thread running its jobs.
    var dispatcherIdentity: ObjectIdentifier?

    init(submit: @escaping HostDispatcher.Submit, ctx: UnsafeMutableRawPointer?, destroy: CDestroy?) {
        submitToHost = submit
        self.ctx = ctx
        self.destroy = destroy
    }

    deinit { destroy?(ctx) }

    var isolationIdentity: ObjectIdentifier { dispatcherIdentity ?? ObjectIdentifier(self) }

    func submitSwiftJob(_ job: UnownedJob, for executor: VowExecutor) {
        let raw = unsafeBitCast(job, to: UnsafeMutableRawPointer.self)
        let inPlace = ExecutorJob(job).withUnsafeExecutorPrivateData { data in
            data.baseAddress == raw + handleTagOffset && data.count >= 2 * MemoryLayout<UInt>.size
        }
        guard inPlace else {
            // The job in a box, run by `runHostJob` (which marks the thread).
            let boxed = ClosureJob({ executor.runQueued(job) }, onDrop: { executor.runDropped(job) })
            let hostJob = HostJob(boxed, keeping: self, identity: isolationIdentity)
            submitToHost(ctx, runHostJob, UnsafeMutableRawPointer(hostJob.retainedHandle))
            return
        }
        raw.storeBytes(of: HandleTag.swiftJob.rawValue, toByteOffset: handleTagOffset, as: UInt32.self)
        raw.storeBytes(of: UnsafeRawPointer(Unmanaged.passUnretained(executor).toOpaque()),
                       toByteOffset: handleTagOffset + MemoryLayout<UInt>.size, as: UnsafeRawPointer.self)
        submitToHost(ctx, runSwiftJob, raw)
    }
}

/// True when `job` (from a host's `vow_job_drop`) is a Swift job, not a `HostJob`.
func isSwiftJob(_ job: UnsafeMutableRawPointer) -> Bool {
    job.load(fromByteOffset: handleTagOffset, as: UInt32.self) == HandleTag.swiftJob.rawValue
}

/// Takes a Swift job back from the host: checks and retires its tag, and returns it with
/// its executor (nil, with a misuse line naming `function`, for a job run or dropped
/// already, or a pointer that is not one).
private func takeSwiftJob(_ raw: UnsafeMutableRawPointer, in function: StaticString) -> (UnownedJob, VowExecutor)? {
    let found = raw.load(fromByteOffset: handleTagOffset, as: UInt32.self)
    guard found == HandleTag.swiftJob.rawValue else {
        reportWrongHandle(found: found, expected: .swiftJob, in: function)
        return nil
    }
    raw.storeBytes(of: HandleTag.released.rawValue, toByteOffset: handleTagOffset, as: UInt32.self)
    let executor = raw.load(fromByteOffset: handleTagOffset + MemoryLayout<UInt>.size, as: UnsafeRawPointer.self)
    return (unsafeBitCast(raw, to: UnownedJob.self), Unmanaged<VowExecutor>.fromOpaque(executor).takeUnretainedValue())
}

/// The `run` a host calls with a Swift job: runs it on this thread, marked as running the
/// dispatcher (its executor gives back the job's reference).
private let runSwiftJob: vow_job = { raw in
    guard let raw, let (job, executor) = takeSwiftJob(raw, in: "run(job)") else { return }
    ThreadState.running(serialDispatcher: executor.isolationIdentity) {
        executor.runQueued(job)
    }
}

/// `vow_job_drop` of a Swift job: Swift requires it to run, so it runs as a dropped job
/// (see `VowExecutor`, "Dropped jobs").
func dropSwiftJob(_ raw: UnsafeMutableRawPointer) {
    guard let (job, executor) = takeSwiftJob(raw, in: "vow_job_drop") else { return }
    executor.runDropped(job)
}
