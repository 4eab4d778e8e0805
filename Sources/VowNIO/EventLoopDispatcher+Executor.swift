#if NIO
import NIOCore
import VowEngine

/// The Swift jobs of an `EventLoopDispatcher`'s executor travel through the dispatcher's
/// own queue (`LoopQueue`), beside its callbacks: each job is one submission of the queue's
/// `SwiftJobQueue`, so jobs and callbacks keep one order and a job costs no allocation (NIO's
/// own executor wraps each job in a closure). A job the queue drops (the loop shut down)
/// still runs, as a dropped job (see `VowExecutor`).
///
/// Isolation: any code on the loop's thread is isolated to the loop (the loop runs one
/// thing at a time), so `checkIsolated()` asks `inEventLoop`; the executors of two
/// dispatchers of one loop are one exclusive context.
extension LoopQueue: SwiftJobHost {
    func submitSwiftJob(_ job: UnownedJob, for executor: VowExecutor) {
        guard let swiftJobs else {
            executor.runDropped(job)  // not reached: set by the dispatcher's init
            return
        }
        swiftJobs.push(job)
        submit(swiftJobs)
    }

    var isolationIdentity: ObjectIdentifier {
        dispatcherIdentity ?? ObjectIdentifier(self)
    }

    var isIsolatingCurrentThread: Bool? { loop.inEventLoop }

    var exclusiveContext: ObjectIdentifier? { ObjectIdentifier(loop as AnyObject) }
}
#endif
