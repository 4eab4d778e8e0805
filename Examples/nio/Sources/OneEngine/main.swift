// One engine whatever the products: a Swift program that lists the products vow (libvow.so,
// for its C code), VowNIO and VowTesting, with C code that shares its promises
// (Sources/OneEngineC). The test command (scripts/test.sh nio) runs it and checks that the
// program defines no vow_* function and that nothing is said about a second engine.
import NIOPosix
import OneEngineC
import Synchronization
import Vow
import VowNIO
import VowTesting

/// The Swift face of a +1 promise handle from C (C's reference is given back).
func adopt(_ handle: OpaquePointer?) -> AnyPromise? {
    defer { vow_promise_release(handle) }
    return AnyPromise(unsafeHandle: handle)
}

let failures = Mutex(0)
func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok   \(what)" : "FAIL \(what)")
    if !condition { failures.withLock { $0 += 1 } }
}

// A Swift promise crosses to C, a C step runs on it, and the result crosses back.
let seven = Promise.value(7)
let sevenForC = AnyPromise(seven).unsafeRetainedHandle()
let squaredInC = adopt(one_engine_square(sevenForC))
vow_promise_release(sevenForC)
check(squaredInC.map { try? Promise<Int>($0).wait() } == 49, "Swift -> C -> Swift: 7 squared in C is 49")

// A promise made in C is a Swift promise.
let six = adopt(one_engine_number(6)).map { Promise<Int>($0) }
check((try? six?.map { $0 * 7 }.wait()) == 42, "C -> Swift: a C promise of 6, times 7 in Swift, is 42")

// The unhandled-error handler set in Swift sees a rejection dropped in C.
let reported = Mutex<[String]>([])
VowRuntime.unhandledErrorHandler = { error in reported.withLock { $0.append("\(error)") } }
one_engine_drop_a_rejection()
check(reported.withLock { $0.contains { $0.contains("rejected in C, dropped unhandled") } },
      "Swift's unhandled-error handler reports a rejection dropped in C")
VowRuntime.unhandledErrorHandler = nil

// The default dispatcher set in Swift is C's default.
let serial = SerialDispatcher(label: "one-engine")
VowRuntime.defaultDispatcher = serial
check(VowRuntime.dispatcher(unsafeHandle: one_engine_default_dispatcher()) === serial,
      "the default dispatcher set in Swift is C's vow_dispatcher_default()")
VowRuntime.defaultDispatcher = .default

// A C timer made where a Swift test loop is installed runs on the loop's clock.
TestLoop.with { loop in
    let timer = adopt(one_engine_after(30))!
    loop.advance(by: 29)
    let early = timer.isPending
    loop.advance(by: 1)
    check(early && timer.isFulfilled && loop.now == 30, "a C vow_after(30) fires when the TestLoop reaches 30 s")
}

// VowNIO: a step on a NIO loop, its result through C.
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let onLoop = Promise(loop.submit { 6 }).map(on: EventLoopDispatcher(loop)) { value -> Int in
    loop.preconditionInEventLoop()
    return value + 1
}
let onLoopForC = AnyPromise(onLoop).unsafeRetainedHandle()
let throughC = adopt(one_engine_square(onLoopForC))
vow_promise_release(onLoopForC)
check(throughC.flatMap { try? Promise<Int>($0).wait() } == 49, "VowNIO: 6 + 1 on the NIO loop, squared in C, is 49")
try group.syncShutdownGracefully()

exit(failures.withLock { $0 } == 0 ? 0 : 1)
