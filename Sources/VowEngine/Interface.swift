// The engine's interface: what the faces (the module Vow: Shared/, Swift/, AnyPromise/,
// C/, FFI/), VowTesting and VowNIO may use. In the spirit of SQLite's btree.h: one list,
// so that a face's author knows what the engine offers and the engine's author knows what
// a change may break. Everything listed is `package`; everything else in this module is
// `internal` (`@usableFromInline internal` where an inlinable `package` function on a
// measured hot path uses it), except the few `public` declarations `import Vow`
// re-exports (`Dispatcher` and its built-ins, `SerialDispatcher`, `InvalidatableQueue`,
// `VowExecutor`, `CancellableError`, `isCancellation`).
//
// `scripts/check-engine-interface.sh` (the test command's build stage) fails when a
// `package` declaration is not listed here, or when this list names one that is not
// `package`. An entry is the declaration's name under its type (overloads and
// initializers once), then what a face uses it for.
//
// The engine names no face: what it needs of one comes through the protocols below
// (`LinkBody`, `Resolvable`, `ThenableSource`, `UnhandledDescribable`,
// `ContinuationSink`, `ExecutorProviding`, `SwiftJobHost`).
//
// MARK: Promises
//
//   Core                                  the promise: every face's promise is a view of one
//   Core.init                             pending; settled with a StoredValue; fulfilled; rejected
//   Core.isPending                        state, without locking (a forwarded promise rejoins first)
//   Core.isFulfilled
//   Core.isRejected
//   Core.wasCancelled
//   Core.holds                            fulfilled with exactly this type? (with `load`, no Optional<T>)
//   Core.load                             the value; the caller checked `holds`
//   Core.heldObject                       the value as an object, unretained (C values)
//   Core.error                            the error, or nil unless rejected
//   Core.anyValue                         the value as Any, or nil unless fulfilled
//   Core.attach                           registers a continuation (scheduled at once if settled)
//   Core.settle                           the one settle path (StoredValue; like another promise;
//                                         an untyped Outcome; from a throwing body)
//   Core.fulfil
//   Core.reject
//   Core.markHandled                      a waiter saw the rejection (it counts as handled)
//   Core.faceCache                        what a face keeps with a settled promise, made once
//                                         (C: the C form of a Swift value; see FaceCaches)
//   Core.fulfilFromResolver               the resolver's rights: settle unless used up by adopting
//   Core.rejectFromResolver
//   Core.claimResolver                    the resolver adopts: used up from now on
//   Core.isResolverUsed
//   Core.breakIfResolverUnused            the broken-promise rule, when an unused resolver goes
//   Core.run                              a plain promise in a handler list adopts (links override)
//   ResolvableCore                        a pending promise with its resolver inside (C's
//                                         vow_promise_pending): one allocation for both
//   ResolvableCore.init
//   ResolvableCore.retainResolver         the resolver's own reference count
//   ResolvableCore.releaseResolver
//   StoredValue                           a value or error in one word, or boxed; ~Copyable
//   StoredValue.init                      a typed value; an Any stored as its dynamic type
//   StoredValue.Storage                   how the word holds it
//   StoredValue.load
//   StoredValue.anyValue
//   Outcome                               an untyped outcome (fulfilled Any / rejected Error)
//
// MARK: The link primitive (Core+Link.swift)
//
//   Core.link                             the derived promise of every chaining operator
//   Core.linkOnSettled                    a link on a settled source, handed to its dispatcher at once
//   LinkBody                              what a face's body implements (run once, dispose once)
//   LinkBody.isCleanup                    defaults: not cleanup, no dispatcher held
//   LinkBody.takeDispatcher
//   LinkBody.heldDispatcher
//   ClosureBody                           a body that is a closure (rare operators)
//   ClosureBody.init
//   ClosureBody.run
//   ClosureBody.dispose
//   CleanupBody                           `finally`: runs even when its link was cancelled
//   CleanupBody.init
//   CleanupBody.isCleanup
//   CleanupBody.run
//   CleanupBody.dispose
//   Core.follow                           adoption: settle as another promise does
//
// MARK: The resolution procedure (Core+Resolution.swift)
//
//   Resolution                            adopt / assimilate / fulfil: a face classifies a value
//   Resolvable                            a value that classifies itself (promise types, C values)
//   ThenableSource                        a thenable as the procedure sees it (Swift's, a host's)
//   ThenMethod                            a found `then`, called once with once-only callbacks
//   ThenMethod.Call
//   ThenMethod.init
//   OnceFlag                              first-wins flag (C's once-only resolver)
//   OnceFlag.init
//   OnceFlag.claim
//   OnceFlag.isUsed
//   Core.resolve                          runs the procedure for a classified value
//   Core.resolveFromResolver              the same through the resolver's rights
//
// MARK: Combinators, timers, retry, lazy promises
//
//   Core.all                              the faces gather the values (`gather`)
//   Core.allSettled
//   Core.race                             race, and `any` (fulfilmentOnly)
//   Core.limited                          bounded concurrency: inputs made lazily, at most `limit` pending
//   Core.LimitedMode
//   Core.rejectedInputIndex              which input's rejection rejected a bounded combinator's result
//   Core.after                            timers, on the clock of a dispatcher (Dispatcher.scheduleTimer)
//   Core.timeout
//   Core.delayed
//   Timing                                the time rule of every call that takes seconds
//   Timing.delaySeconds
//   Timing.delayNanoseconds
//   RealClockTimer                        Dispatch's clock: the default timers (C hosts without timers)
//   RealClockTimer.init
//   RealClockTimer.cancel
//   Core.retry                            Swift's retry and C's vow_retry (Retry.swift)
//   Core.lazy                             a promise whose producer starts when first observed
//
// MARK: Cancellation and waiting
//
//   Core.cancel                           cancels, carrying the request upstream (Core+Cancellation.swift)
//   Core.onCancel                         a cancel handler (on the default dispatcher, or one given)
//   Core.waitUntilSettled                 blocking wait with deadlock detection (Core+Waiting.swift)
//   Core.wouldDeadlock
//   Core.settledAwaitingCancellably       async wait; task cancellation cancels the promise
//
// MARK: Continuations and dispatchers
//
//   Continuation                          the unit of scheduled work (run once, or dropped once)
//   Continuation.run
//   Continuation.dropped
//   Continuation.handToHost               a link travels to a C host's loop as its own job (no
//   Continuation.takeBackFromHost         object per job): marked when handed over, taken back
//   Continuation.wasHandedToHost          once when run or dropped (CDispatchers.swift)
//   ClosureJob                            a closure as a continuation
//   ClosureJob.init
//   ClosureJob.run
//   ClosureJob.dropped
//   ContinuationSink                      a dispatcher that takes continuations as they are
//   submitContinuation                    hands a continuation to any dispatcher
//   Dispatchers                           the process-wide default and the library's queue
//   Dispatchers.librarySerial
//   Dispatchers.currentDefault            what `.default` stands for on this thread, now
//   Dispatchers.setDefault                the process-wide setting (Swift and C set it)
//   Dispatchers.withDefault               a scope's default (task-local; VowRuntime.withDefaultDispatcher)
//   Dispatchers.installThreadDefault      a thread's own default (VowTesting's loops, C's vow_test_loop_install)
//   Dispatchers.threadDefault
//   Dispatchers.hasThreadDefault
//   Dispatchers.clock                     the dispatcher whose clock a timer reads
//   ThreadDefault                         the token of a thread's own default (dropping it uninstalls)
//   Dispatchers.resolve                   `.default` resolved at registration
//   DefaultDispatcher.shared
//   InlineDispatcher.shared
//   BackgroundDispatcher.shared
//   SerialDispatcher.submit
//   ThreadState                           the per-thread state: inline queue, serial-dispatcher mark
//   ThreadState.current
//   ThreadState.running                   runs a body with the thread marked as running a serial dispatcher
//   Continuation.handlerLane              the promise a link is a handler of (a seeded order keeps each one's order)
//
// MARK: Swift executors on Vow's dispatchers (VowExecutor.swift)
//
//   VowExecutor.isolationIdentity
//   VowExecutor.isIsolatingCurrentThread
//   VowExecutor.exclusiveContext
//   VowExecutor.runQueued                 a job its dispatcher handed back
//   VowExecutor.runDropped                a job its dispatcher dropped
//   ExecutorProviding                     a dispatcher that has an executor
//   SerialDispatcher.providedExecutor
//   SwiftJobHost                          a loop that queues Swift jobs itself (C hosts, swift-nio)
//   SwiftJobHost.isIsolatingCurrentThread
//   SwiftJobHost.exclusiveContext
//   HostedExecutor                        the executor over a SwiftJobHost
//   HostedExecutor.init
//   HostedExecutor.isolationIdentity
//   HostedExecutor.isIsolatingCurrentThread
//   HostedExecutor.exclusiveContext
//   SwiftJobQueue                         Swift jobs queued without an object per job
//   SwiftJobQueue.init
//   SwiftJobQueue.push
//   SwiftJobQueue.run
//   SwiftJobQueue.dropped
//
// MARK: Errors and reporting
//
//   EngineError                           the engine's own failures: a code and a message
//   EngineError.Code                      checked against vow.h's enum vow_error_codes by a test
//   EngineError.code
//   EngineError.message
//   EngineError.cancelled
//   EngineError.cycle
//   EngineError.deadlock
//   EngineError.broken
//   EngineError.timeout
//   EngineError.isCancelled               the CancellableError and UnhandledDescribable witnesses
//   EngineError.unhandledDescription
//   UnhandledDescribable                  how an error names itself in the default report
//   UnhandledErrors                       the process-wide unhandled-error sink
//   UnhandledErrors.Sink
//   UnhandledErrors.SinkBox
//   UnhandledErrors.replace
//   UnhandledErrors.withSink              a scope's handler (task-local; VowRuntime.withUnhandledErrorHandler)
//   UnhandledErrors.current
//   UnhandledErrors.writeDefaultReport
//   writeLine                             one line on standard error, in one write
//
// MARK: Debug mode (Debug.swift)
//
//   Site                                  where a call was made (Swift's #fileID/#line, C's _site)
//   Site.source
//   Site.cString
//   Site.sameAsSource
//   DebugRecord                           a promise's sites
//   DebugRecord.init
//   DebugRecord.site
//   DebugRecord.chainSite
//   DebugRecord.chainStart
//   DebugRecord.madeAt                    when, and on which thread (a census of one thread's promises)
//   DebugRecord.thread
//   DebugRecord.currentThread
//   DebugClock                            the records' clock
//   DebugClock.now
//   DebugMode                             the setting
//   DebugMode.isSet
//   DebugMode.set
//   DebugMode.hold                        recording on whatever the setting (VowTesting's census)
//   DebugMode.releaseHold
//   Core.noteMade                         records where a promise was made (debug mode only)
//   Core.made
//   PendingRecord                         one line of the census
//   PendingRecord.site
//   PendingRecord.chainSite
//   PendingRecord.age
//   PendingRecord.waitingOn
//   PendingRecord.line
//   DebugRegistry                         the census of pending promises
//   DebugRegistry.census
//
// MARK: Building blocks the faces share
//
//   Locked                                a value behind the engine's lock (process-wide settings)
//   Locked.init
//   Locked.withLock
//   AtomicFlag.isSet                      a flag in front of a Locked setting
//   AtomicFlag.set
//   ThreadSlot                            a pthread key owning one object per thread
//   ThreadSlot.init
//   ThreadSlot.object
//   ThreadSlot.replace
//   FlatRelease                           frees nested structures without recursion
//   FlatRelease.init
//   FlatRelease.drop
//   Released                              what a cancelled promise let go of (handed on)
//   VowLock.withLock

// MARK: - C-handle layout
//
// What foreign code (the C face's handle checks, C programs through vow.h's handles) reads
// at fixed offsets inside the engine's objects. A change here changes what every handle
// check reads: `EngineUnitTests`, "C-handle layout", pins each number and checks it against
// the objects as the compiler lays them out.

extension Continuation {
    /// Where `tag` lives: right after the Swift object header (isa and reference counts,
    /// two words on 64-bit platforms). The faces' handle objects keep their tag there too.
    @inlinable package static var tagOffset: Int { 2 * MemoryLayout<UInt>.size }

    /// The tag of a released object ("dead").
    @inlinable static var releasedTag: UInt32 { 0x6461_6564 }
    /// The tag of continuations that are not promises ("cont").
    @inlinable static var continuationTag: UInt32 { 0x746e_6f63 }
}

extension Core {
    /// The tag of a promise object ("prom"), for foreign code that checks a pointer.
    @inlinable static var promiseTag: UInt32 { 0x6d6f_7270 }
}

extension ResolvableCore {
    /// Where `resolverTag` lies: right after `Core`'s stored properties (the object header,
    /// `tag` and `word`, `handlersOrBits`, `backOrType`: five words on 64-bit platforms).
    /// Checked in debug builds (`init`) and by the test. The object is 48 bytes.
    @inlinable static var resolverTagOffset: Int { 5 * MemoryLayout<UInt>.size }

    /// From the start of the object to its resolver handle (an interior pointer whose tag
    /// lies `Continuation.tagOffset` bytes past it, where every handle's tag lies).
    @inlinable static var resolverHandleOffset: Int { resolverTagOffset - Continuation.tagOffset }

    /// The resolver handle (an interior pointer; see the type's comment).
    @inlinable @inline(__always)
    package var resolverHandle: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque() + Self.resolverHandleOffset
    }

    /// The promise of a resolver handle whose tag the caller checked, unretained: the
    /// resolver's own reference keeps it alive while the handle is valid.
    @inlinable @inline(__always)
    package static func promise(fromResolverHandle handle: UnsafeRawPointer) -> Unmanaged<ResolvableCore> {
        Unmanaged.fromOpaque(handle - resolverHandleOffset)
    }
}
