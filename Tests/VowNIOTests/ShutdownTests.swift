#if NIO
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import Vow
import VowNIO

#if canImport(Glibc)
import Glibc
#endif

// EventLoopDispatcher when its loop shuts down: work submitted afterwards is dropped
// (released unrun), so the promises it would have settled are cancelled; nothing hangs,
// nothing crashes, and the dispatcher does not call into the dead loop.
//
// Serialized: one test captures standard error (file descriptor 2) for a moment.

extension NIOBridge {
    @Suite("VowNIO: the loop shuts down", .serialized)
    struct ShutdownTests {
        @Test("work submitted after shutdown is released without running, and nothing is submitted to the dead loop")
        func droppedAfterShutdown() throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            let onLoop = EventLoopDispatcher(loop)
            #expect(try value(of: Promise.value(1).map(on: onLoop) { $0 + 1 }) == 2)  // it worked before
            try shutDown(group)

            let released = Counter()
            let ran = Counter()
            let printed = try capturingStandardError {
                for _ in 0..<3 {
                    let tracker = ReleaseTracker(released)
                    onLoop.dispatch {
                        tracker.touch()
                        ran.increment()
                    }
                }
            }
            #expect(eventually { released.count == 3 })
            #expect(ran.count == 0)
            #expect(!printed.contains("Cannot schedule tasks"), "the dispatcher submitted to a loop that had shut down: \(printed)")

            // Control: this is what NIO prints when a task reaches a loop that has shut down,
            // so the check above can fail.
            let control = try capturingStandardError { loop.execute {} }
            #expect(control.contains("Cannot schedule tasks"))
        }

        @Test("a dispatcher made after its loop shut down drops its work too")
        func madeAfterShutdown() throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            try shutDown(group)
            // Making it reaches the dead loop once (NIO prints a line); that is how it learns.
            var made: EventLoopDispatcher?
            _ = try capturingStandardError { made = EventLoopDispatcher(loop) }
            let onLoop = try #require(made)
            let ran = Counter()
            let printed = try capturingStandardError {
                let end = Promise.value(1).map(on: onLoop) { value -> Int in
                    ran.increment()
                    return value
                }
                #expect((try? error(of: end) as? VowError)??.vowCode == .cancelled)
            }
            #expect(ran.count == 0)
            #expect(!printed.contains("Cannot schedule tasks"))
        }

        @Test("promises whose callbacks would run after shutdown end cancelled; finally handlers elsewhere run once")
        func pendingPromisesEndCancelled() throws {
            let live = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            defer { try? shutDown(live) }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let onLoop = EventLoopDispatcher(group.next())
            let finallyRan = Counter()
            let callbacksRan = Counter()
            let (head, resolver) = Promise<Int>.pending()
            let end = head
                .map(on: onLoop) { value -> Int in callbacksRan.increment(); return value + 1 }
                .map(on: onLoop) { value -> Int in callbacksRan.increment(); return value + 1 }
                .finally(on: .inline) { finallyRan.increment() }
            let future = end.futureResult(on: live.next())
            try shutDown(group)

            resolver.fulfill(1)
            #expect((try error(of: end) as? VowError)?.vowCode == .cancelled)
            #expect((try error(of: future) as? VowError)?.vowCode == .cancelled)
            #expect(finallyRan.count == 1)
            #expect(callbacksRan.count == 0)
            // Made after the shutdown, on a settled promise: cancelled as well.
            #expect((try error(of: Promise.value(1).map(on: onLoop) { $0 }) as? VowError)?.vowCode == .cancelled)
        }

        @Test("a 100,000-link chain pending at shutdown is cancelled link by link, without recursion")
        func deepChainCancelled() throws {
            let links = scaled(100_000)
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let onLoop = EventLoopDispatcher(group.next())
            let ran = Counter()
            let (head, resolver) = Promise<Int>.pending()
            var end = head
            for _ in 0..<links {
                end = end.map(on: onLoop) { value in
                    ran.increment()
                    return value + 1
                }
            }
            try shutDown(group)
            resolver.fulfill(0)
            #expect((try error(of: end) as? VowError)?.vowCode == .cancelled)
            #expect(ran.count == 0)
        }

        @Test("work queued before the shutdown, behind a busy loop, still runs among the loop's last tasks")
        func queuedWorkRunsDuringShutdown() throws {
            let count = 3 * EventLoopDispatcher.maximumJobsPerLoopTask + 5  // several loop tasks
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            let onLoop = EventLoopDispatcher(loop)
            let ran = Counter()
            let gate = block(loop)
            let ends = (0..<count).map { index in
                Promise.value(index).map(on: onLoop) { value -> Int in
                    ran.increment()
                    return value
                }
            }
            let shutDownDone = DispatchSemaphore(value: 0)
            group.shutdownGracefully(queue: .global()) { _ in shutDownDone.signal() }
            gate.signal()
            #expect(shutDownDone.wait(timeout: .now() + waitSeconds) == .success)
            #expect(ran.count == count)
            #expect(try value(of: when(fulfilled: ends)) == Array(0..<count))
            // And afterwards, work is dropped.
            #expect((try error(of: Promise.value(1).map(on: onLoop) { $0 }) as? VowError)?.vowCode == .cancelled)
        }

        @Test("4 threads keep submitting while the group shuts down: every promise ends fulfilled or cancelled, exact totals")
        func shutdownUnderLoad() throws {
            let limit = scaled(200_000)  // per thread, in case the shutdown never finishes
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let onLoop = EventLoopDispatcher(group.next())
            let callbacks = Counter()
            let finals = Counter()
            let shutDownFinished = Counter()
            let ends = NIOLockedValueBox<[Promise<Int>]>([])
            let started = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = started.wait(timeout: .now() + NIOBridge.waitSeconds)
                group.shutdownGracefully(queue: .global()) { _ in shutDownFinished.increment() }
            }
            // Each thread submits while the shutdown starts and runs, until it has seen the
            // shutdown finish (then 10 more, which must be dropped) or has submitted 5,000
            // since the shutdown began: a loop that always has another task ready never
            // finishes its tick (NIO's rule, for its own tasks too), so a flood faster than
            // the loop, on a machine busy with other tests, could keep it from ever reaching
            // its shutdown. After every 100 it lets the loop catch up. A thread that stopped
            // early waits (bounded) for the shutdown to finish, then submits its 10.
            let shutDownStarted = Counter()
            let finished = runOnThreads(4) { thread in
                var mine: [Promise<Int>] = []
                func submit(_ index: Int) {
                    mine.append(Promise.value(index)
                        .map(on: onLoop) { value -> Int in
                            callbacks.increment()
                            return value
                        }
                        .finally(on: .inline) { finals.increment() })
                }
                var sinceStart = 0
                for index in 0..<limit {
                    if thread == 0 && index == 1_000 {
                        shutDownStarted.increment()
                        started.signal()
                    }
                    submit(index)
                    if shutDownFinished.count > 0 || sinceStart == 5_000 { break }
                    if shutDownStarted.count > 0 { sinceStart += 1 }
                    if index % 100 == 99 {
                        _ = try? outcome(of: mine[index])
                        usleep(200)
                    }
                }
                _ = eventually { shutDownFinished.count > 0 }
                for index in 0..<10 { submit(limit + index) }
                ends.withLockedValue { $0.append(contentsOf: mine) }
            }
            #expect(finished)
            #expect(shutDownFinished.count == 1)
            let all = ends.withLockedValue { $0 }
            var fulfilled = 0
            var cancelled = 0
            for end in all {
                switch try outcome(of: end) {
                case .success: fulfilled += 1
                case .failure(let error):
                    if (error as? VowError)?.vowCode == .cancelled { cancelled += 1 }
                }
            }
            #expect(fulfilled + cancelled == all.count)
            #expect(callbacks.count == fulfilled)
            #expect(eventually { finals.count == all.count })
            #expect(fulfilled >= 1_000)
            #expect(cancelled >= 40)
        }
    }

    /// Runs `body` with file descriptor 2 redirected to a temporary file, and returns what
    /// was written to it meanwhile.
    static func capturingStandardError(_ body: () throws -> Void) throws -> String {
        guard let file = tmpfile() else { throw TestTimeout(what: "a temporary file") }
        defer { fclose(file) }
        let saved = dup(2)
        fflush(nil)
        dup2(fileno(file), 2)
        let result = Result { try body() }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        try result.get()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        lseek(fileno(file), 0, SEEK_SET)
        while true {
            let count = read(fileno(file), &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
