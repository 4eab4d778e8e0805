// Issue 15, item 3: the same for AnyPromise.
// expect-error: instance method 'wait' is unavailable from asynchronous contexts; wait() blocks its thread; in async code use 'try await promise.value'
import Vow

func read(_ promise: AnyPromise) async throws -> Any? {
    try promise.wait()
}
