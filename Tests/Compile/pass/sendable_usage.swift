// Issue 15, items 1-3: what a Swift 6 program writes compiles without a diagnostic
// (the snippets are checked with -warnings-as-errors).
import Synchronization
import Vow

final class Counter: Sendable {
    let n = Atomic<Int>(0)
}

struct Reply: Sendable { let code: Int }

@MainActor final class Model {
    var count = 0
    func load() async throws {
        // Main-actor state is updated after an await, on the main actor.
        count += try await Promise.value(1).map { $0 + 1 }.value
    }
}

// An old-style conformer, written against the seed protocol without @Sendable, conforms.
struct Immediate: Thenable, Sendable {
    let value: Int
    func then(_ onSuccess: ((Int) throws -> ())?, _ onFailure: ((Any?) -> ())?) {
        try? onSuccess?(value)
    }
}

func chains(counter: Counter) -> Promise<Void> {
    Promise.value(Reply(code: 200))
        .then { reply in Promise.value(reply.code) }
        .then { code in Immediate(value: code) }
        .done { _ in counter.n.add(1, ordering: .relaxed) }
}

func seed() {
    Promise.value(2).then({ _ in }, { _ in })
    AnyPromise.value(2).then({ _ in }, nil)
}

func waits() throws -> Int {
    try Promise.value(3).wait()       // wait() is fine in synchronous code
}

func untyped() -> AnyPromise {
    Promise.value(1).then { _ in AnyPromise.value("adopted") }
}

func tuples(_ any: AnyPromise) -> Promise<(Int, String)> { any.as((Int, String).self) }
