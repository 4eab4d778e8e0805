// main.swift: a Swift program that wraps a C callback library in promises.
//
// The library (Examples/callback-lib) runs jobs on threads of its own and reports each
// one through `void done(int job, const char *result)`: a callback with no context
// pointer, so there is nowhere to put "which promise is this for". A Vow trampoline is a
// C function pointer made at run time (libffi): its first call fulfils a promise with
// the arguments as a LIST, here [job, result]. Swift unboxes that LIST as a tuple.
//
// Built with swiftc against libvow.so (see Examples/run-examples.sh).

import CallbackLib
import CVow
import Glibc
import Vow

enum JobError: Error, CustomStringConvertible {
    case failed(job: Int)

    var description: String {
        switch self {
        case .failed(let job): return "job \(job) failed in the C library"
        }
    }
}

/// The C function pointers handed to the library. Each must stay valid until the
/// library's call to it has returned, and that call goes on for a moment after it
/// fulfilled its promise, so they are released only after `cb_lib_finish()` has joined
/// the library's threads. Touched from the main thread only.
var trampolines: [OpaquePointer] = []

/// Starts job `number` in the C library and returns a promise of its text. Main thread
/// only (it records the trampoline it makes in `trampolines`).
@MainActor
func startJob(_ number: Int32) -> Promise<String> {
    // A C function `void (int, const char *)` ("v(is)") whose first call fulfils `handle`.
    var handle: OpaquePointer?
    guard let trampoline = vow_trampoline_new("v(is)", &handle),
          let arguments = AnyPromise(unsafeHandle: handle) else {
        return Promise(error: VowError(.signature, "could not make a trampoline"))
    }
    vow_promise_release(handle)   // `arguments` holds its own reference now

    // The LIST [job, result] as a typed tuple; a NULL result (a failed job) is nil.
    let text = Promise<(Int, String?)>(arguments).map { job, result -> String in
        guard let result else { throw JobError.failed(job: job) }
        return result
    }

    let done = unsafeBitCast(vow_trampoline_function(trampoline), to: cb_done_fn.self)
    if cb_lib_start(number, done) == 0 {
        trampolines.append(trampoline)
    } else {
        // The library refused the job, so no call can come: release at once. The
        // promise then rejects with VowError.Code.broken.
        vow_trampoline_release(trampoline)
    }
    return text
}

print("libvow \(vow_version().map { String(cString: $0) } ?? "?"): Swift wraps a C callback library")

// Three jobs that succeed, in parallel on the library's threads, and one that fails.
let squares = when(fulfilled: (1...3).map { startJob(Int32($0)) })
    .done { texts in
        for text in texts { print("  \(text)") }   // on Vow's default queue, not the library's thread
    }
let unlucky = startJob(13)
    .done { text in print("  job 13 unexpectedly gave \(text)") }
    .catch { error in print("  caught: \(error)") }

// Wait for both, bounded: wait() blocks this thread (it is not a Vow dispatcher thread).
do {
    _ = try when(fulfilled: [squares, unlucky]).timeout(seconds: 10).wait()
    print("all jobs reported")
} catch {
    print("FAILED: \(error)")
}

// No call can come any more once the library's threads are joined: now the function
// pointers may go.
cb_lib_finish()
for trampoline in trampolines { vow_trampoline_release(trampoline) }
let ok = squares.isFulfilled && unlucky.isFulfilled
print(ok ? "wrap: ok" : "wrap: FAILED")
exit(ok ? 0 : 1)
