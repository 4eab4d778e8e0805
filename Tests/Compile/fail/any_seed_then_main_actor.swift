// Issue 15, item 1: the same on AnyPromise's seed `then`.
// expect-error: main actor-isolated property 'count' can not be mutated from a Sendable closure
import Vow

@MainActor final class Model {
    var count = 0
    func load() {
        AnyPromise.value(1).then({ v in self.count += v as! Int }, nil)
    }
}
