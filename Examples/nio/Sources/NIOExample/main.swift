import NIOPosix
import Vow
import VowNIO

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let onLoop = EventLoopDispatcher(loop)           // Vow callbacks run on the loop's thread

let answer = Promise(loop.submit { 6 })          // a NIO future becomes a promise,
    .map(on: onLoop) { $0 * 7 }                  // a Vow step runs on the loop,
    .futureResult(on: loop)                      // and the result goes back to NIO
print("the answer is", try answer.wait())        // the answer is 42
try group.syncShutdownGracefully()
