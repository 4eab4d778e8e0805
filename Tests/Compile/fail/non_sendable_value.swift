// Issue 15, item 2: a value that reaches a callback on another thread must be Sendable.
// expect-error: type 'Counter' does not conform to the 'Sendable' protocol
import Vow

final class Counter { var n = 0 }

func bump() {
    Promise<Counter>.value(Counter()).done { $0.n += 1 }
}
