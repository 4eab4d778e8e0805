#if NIO
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import Vow
import VowNIO

// EventLoopDispatcher on a running loop: where callbacks run, in which order, how many.
// (Shutdown: ShutdownTests.swift.)

extension NIOBridge {
    @Suite("VowNIO: EventLoopDispatcher on a running loop")
    struct DispatcherTests {
        @Test("callbacks run on the loop's thread, whether the promise settles on or off the loop")
        func callbacksRunOnTheLoop() throws {
            try withLoop { loop, onLoop throws in
                let (pending, resolver) = Promise<Int>.pending()
                let afterPending = pending.map(on: onLoop) { _ in loop.inEventLoop }
                let afterSettled = Promise.value(1).map(on: onLoop) { _ in loop.inEventLoop }
                // A chain whose every link checks, settled from the loop itself.
                let chain = (0..<5).reduce(Promise.value(true)) { promise, _ in
                    promise.map(on: onLoop) { $0 && loop.inEventLoop }
                }
                #expect(!loop.inEventLoop)
                resolver.fulfill(1)
                #expect(try value(of: afterPending))
                #expect(try value(of: afterSettled))
                #expect(try value(of: chain))
                // Control: the same check off the loop is false.
                #expect(try value(of: Promise.value(1).map(on: .background) { _ in loop.inEventLoop }) == false)
            }
        }

        @Test("a callback never runs inside the call that submits it, even on the loop")
        func neverInline() throws {
            try withLoop { loop, onLoop throws in
                let ran = LoopConfined(false, on: loop)
                let (ranInside, done) = try value(of: loop.submit { () -> (Bool, Promise<Void>) in
                    let done = Promise.value(1).done(on: onLoop) { _ in ran.value = true }
                    return (ran.value, done)
                })
                #expect(ranInside == false)
                try value(of: done)
                #expect(try value(of: loop.submit { ran.value }))
            }
        }

        @Test("wait() in a callback on the loop, for a promise a later callback on the loop settles, throws the deadlock error at once")
        func deadlockDetected() throws {
            try withLoop { loop, onLoop throws in
                let (gate, opener) = Promise<Void>.pending()
                // Settled by a callback queued on the loop behind the one that waits.
                let later = gate.map(on: onLoop) { 42 }
                let waited = Promise.value(()).map(on: onLoop) { _ -> String in
                    opener.fulfill(())
                    do {
                        _ = try later.wait()
                        return "returned"
                    } catch VowError.Code.deadlock {
                        return "deadlock"
                    } catch {
                        return "other error"
                    }
                }
                #expect(try value(of: waited) == "deadlock")
                #expect(try value(of: later) == 42)
                // Control: waiting from off the loop is fine.
                #expect(try later.wait() == 42)
            }
        }

        @Test("isSerial is true; the dispatcher keeps its loop")
        func serialAndLoop() throws {
            try withLoop { loop, onLoop throws in
                #expect(onLoop.isSerial)
                let sameLoop = ObjectIdentifier(onLoop.eventLoop as AnyObject) == ObjectIdentifier(loop as AnyObject)
                #expect(sameLoop)
            }
        }

        @Test("10,000 callbacks submitted from one thread run in submission order")
        func submissionOrder() throws {
            try withLoop { loop, onLoop throws in
                let count = scaled(10_000)
                let seen = LoopConfined<[Int]>([], on: loop)
                for index in 0..<count {
                    onLoop.dispatch { seen.value.append(index) }
                }
                let all = Promise.value(()).map(on: onLoop) { seen.value }
                #expect(try value(of: all) == Array(0..<count))
            }
        }

        @Test("handlers attached to one promise run on the loop in attach order")
        func attachOrder() throws {
            try withLoop { loop, onLoop throws in
                let count = scaled(2_000)
                let seen = LoopConfined<[Int]>([], on: loop)
                let (head, resolver) = Promise<Int>.pending()
                let handlers = (0..<count).map { index in
                    head.done(on: onLoop) { _ in seen.value.append(index) }
                }
                resolver.fulfill(0)
                _ = try value(of: when(fulfilled: handlers))
                #expect(try value(of: Promise.value(()).map(on: onLoop) { seen.value }) == Array(0..<count))
            }
        }

        @Test("three threads and the loop itself submit at once: each submitter's callbacks run in its order")
        func perSubmitterOrderUnderContention() throws {
            try withLoop { loop, onLoop throws in
                let perThread = scaled(5_000)
                let seen = LoopConfined<[[Int]]>(Array(repeating: [], count: 4), on: loop)
                // The loop submits its own series, one callback from inside the previous one.
                @Sendable func loopSeries(_ index: Int) {
                    seen.value[3].append(index)
                    if index + 1 < perThread { onLoop.dispatch { loopSeries(index + 1) } }
                }
                onLoop.dispatch { loopSeries(0) }
                let finished = runOnThreads(3) { thread in
                    for index in 0..<perThread {
                        onLoop.dispatch { seen.value[thread].append(index) }
                    }
                }
                #expect(finished)
                #expect(eventually { (try? value(of: loop.submit { seen.value.map(\.count) })) == [perThread, perThread, perThread, perThread] })
                let series = try value(of: loop.submit { seen.value })
                for lane in series {
                    #expect(lane == Array(0..<perThread))
                }
            }
        }

        @Test("work a callback submits after another thread submitted runs after that thread's work")
        func orderAcrossThreadsFromInsideACallback() throws {
            try withLoop { loop, onLoop throws in
                let rounds = scaled(200)
                let seen = LoopConfined<[String]>([], on: loop)
                for round in 0..<rounds {
                    let submitted = DispatchSemaphore(value: 0)
                    let done = DispatchSemaphore(value: 0)
                    // A callback on the loop waits until another thread has submitted its
                    // work, then submits its own: that one was submitted later, so it runs
                    // later, although it comes from inside the running queue.
                    onLoop.dispatch {
                        _ = submitted.wait(timeout: .now() + NIOBridge.waitSeconds)
                        onLoop.dispatch {
                            seen.value.append("inside \(round)")
                            done.signal()
                        }
                    }
                    let other = runOnThreads(1) { _ in
                        onLoop.dispatch { seen.value.append("other \(round)") }
                        submitted.signal()
                    }
                    #expect(other)
                    #expect(done.wait(timeout: .now() + waitSeconds) == .success)
                }
                let expected = (0..<rounds).flatMap { ["other \($0)", "inside \($0)"] }
                #expect(try value(of: loop.submit { seen.value }) == expected)
            }
        }

        @Test("exact counts: 4 threads settle 4 x N promises whose callbacks run on the loop")
        func exactCountsUnderConcurrency() throws {
            try withLoop { loop, onLoop throws in
                let perThread = scaled(5_000)
                let ran = LoopConfined(0, on: loop)
                let ends = NIOLockedValueBox<[Promise<Int>]>([])
                let finished = runOnThreads(4) { thread in
                    var mine: [Promise<Int>] = []
                    var unsettled: [(Int, (Int) -> Void)] = []
                    for index in 0..<perThread {
                        let number = thread * perThread + index
                        let (promise, resolver) = Promise<Int>.pending()
                        mine.append(promise.map(on: onLoop) { value in
                            ran.value += 1
                            return value * 2
                        })
                        // Half settled at once (their callbacks race with the attaching of
                        // the next ones), half at the end.
                        if index % 2 == 0 { resolver.fulfill(number) } else { unsettled.append((number, resolver.fulfill)) }
                    }
                    for (number, fulfill) in unsettled { fulfill(number) }
                    ends.withLockedValue { $0.append(contentsOf: mine) }
                }
                #expect(finished)
                let all = ends.withLockedValue { $0 }
                #expect(all.count == 4 * perThread)
                let values = try value(of: when(fulfilled: all))
                #expect(values.sorted() == (0..<4 * perThread).map { $0 * 2 })
                #expect(try value(of: loop.submit { ran.value }) == 4 * perThread)
            }
        }

        @Test("a long queue gives the loop back after maximumJobsPerLoopTask callbacks, and finishes in order")
        func longQueueYields() throws {
            try withLoop { loop, onLoop throws in
                let count = 5_000
                let seen = LoopConfined<[Int]>([], on: loop)
                let seenByOtherTask = LoopConfined<Int?>(nil, on: loop)
                let gate = block(loop)
                for index in 0..<count {
                    onLoop.dispatch { seen.value.append(index) }
                }
                // A plain loop task queued after the dispatcher's first drain task.
                loop.execute { seenByOtherTask.value = seen.value.count }
                gate.signal()
                #expect(eventually { (try? value(of: loop.submit { seen.value.count })) == count })
                #expect(try value(of: loop.submit { seenByOtherTask.value }) == EventLoopDispatcher.maximumJobsPerLoopTask)
                #expect(try value(of: loop.submit { seen.value }) == Array(0..<count))
            }
        }

        @Test("a 100,000-link chain built on a pending promise settles on the loop without recursion")
        func deepChain() throws {
            try withLoop { loop, onLoop throws in
                let links = scaled(100_000)
                let (head, resolver) = Promise<Int>.pending()
                var end = head
                for _ in 0..<links { end = end.map(on: onLoop) { $0 + 1 } }
                resolver.fulfill(0)
                #expect(try value(of: end) == links)
            }
        }

        @Test("the loop does not keep a dispatcher alive; work submitted before it was released still runs, in order")
        func lifetime() throws {
            try withLoop { loop, _ throws in
                weak var idle: EventLoopDispatcher?
                do {
                    let dispatcher = EventLoopDispatcher(loop)
                    idle = dispatcher
                }
                #expect(idle == nil, "the loop's shutdown watch kept the dispatcher alive")

                let gate = block(loop)
                weak var busy: EventLoopDispatcher?
                let seen = LoopConfined<[Int]>([], on: loop)
                let count = 2 * EventLoopDispatcher.maximumJobsPerLoopTask + 3
                do {
                    let dispatcher = EventLoopDispatcher(loop)
                    busy = dispatcher
                    for index in 0..<count { dispatcher.dispatch { seen.value.append(index) } }
                }
                #expect(busy == nil)
                gate.signal()
                #expect(eventually { (try? value(of: loop.submit { seen.value.count })) == count })
                #expect(try value(of: loop.submit { seen.value }) == Array(0..<count))
            }
        }
    }
}
#endif
