// Issue 15, item 2: a callback cannot hand a non-Sendable value on to the next link.
// expect-error: type 'Counter' does not conform to the 'Sendable' protocol
import Vow

final class Counter { var n = 0 }

func make() {
    _ = Promise.value(1).map { _ in Counter() }
}
