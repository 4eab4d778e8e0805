// Issue 15, item 3: wait() blocks its thread; async code awaits the value instead.
// expect-error: instance method 'wait' is unavailable from asynchronous contexts; wait() blocks its thread; in async code use 'try await promise.value'
import Vow

func read(_ promise: Promise<Int>) async throws -> Int {
    try promise.wait()
}
