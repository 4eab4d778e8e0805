// LockContention: the engine's lock under contention and alone (Benchmarks/README.md,
// "One lock").
//
//   LockContention [--threads N] [--ops N] [--runs N] [--workload promise|setting]
//
// promise: N threads attach a link to one pending promise and cancel it again, over and
//          over (each attach and each cancel takes the promise's lock; a link that stays
//          attached keeps the cancellations from reaching the promise itself).
// setting: N threads read a process-wide setting guarded by a `VowLock` (the
//          unhandled-error handler).
//
// Prints the median wall-clock nanoseconds per operation (all threads' operations
// together) over --runs runs. For instruction counts, run it under callgrind with
// --threads 1 and two --ops values: the difference divided by the difference of --ops is
// the cost of one uncontended operation, start-up excluded.
import Dispatch
import Vow

#if canImport(Glibc)
import Glibc
#endif

struct Options: Sendable {
    var threads = 4
    var ops = 200_000
    var runs = 5
    var workload = "promise"
}

func parse() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = arguments.next() {
        switch argument {
        case "--threads": options.threads = Int(arguments.next()!)!
        case "--ops": options.ops = Int(arguments.next()!)!
        case "--runs": options.runs = Int(arguments.next()!)!
        case "--workload": options.workload = arguments.next()!
        default: fatalError("unknown argument \(argument)")
        }
    }
    precondition(["promise", "setting"].contains(options.workload), "unknown workload \(options.workload)")
    return options
}

/// One run: `threads` threads doing `ops / threads` operations each, started together;
/// wall-clock nanoseconds per operation.
func run(_ options: Options) -> Double {
    let (promise, resolver) = Promise<Int>.pending()
    let keeper = promise.map(on: .inline) { $0 }
    let perThread = options.ops / options.threads
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for _ in 0..<options.threads {
        done.enter()
        Thread.start {
            ready.signal()
            go.wait()
            if options.workload == "promise" {
                for _ in 0..<perThread {
                    let link = promise.map(on: .inline) { $0 }
                    link.cancel()
                }
            } else {
                for _ in 0..<perThread { _ = VowRuntime.unhandledErrorHandler }
            }
            done.leave()
        }
    }
    for _ in 0..<options.threads { ready.wait() }
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<options.threads { go.signal() }
    done.wait()
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    resolver.fulfill(0)
    withExtendedLifetime(keeper) {}
    return Double(elapsed) / Double(perThread * options.threads)
}

/// A POSIX thread (Dispatch's pool would not start 16 threads at once on 2 cores).
enum Thread {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    static func start(_ body: @escaping @Sendable () -> Void) {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let made = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(made == 0)
        pthread_detach(thread)
    }
}

func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }

let options = parse()
var results: [Double] = []
for _ in 0..<options.runs { results.append(run(options)) }
let sorted = results.sorted()
print("workload \(options.workload), threads \(options.threads), ops \(options.ops): "
      + "median \(rounded(sorted[sorted.count / 2])) ns/op; runs \(results.map(rounded))")
