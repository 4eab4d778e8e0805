// Issue 15, item 1: the seed two-callback `then` runs its callbacks on a dispatcher, so
// they are @Sendable and cannot touch main-actor state.
// expect-error: main actor-isolated property 'count' can not be mutated from a Sendable closure
import Vow

@MainActor final class Model {
    var count = 0
    func load() {
        Promise<Int>.value(1).then({ v in self.count += v }, { _ in })
    }
}
