// Issue 15, item 2: nor can a resolver settle a promise with one from another thread.
// expect-error: type 'Counter' does not conform to the 'Sendable' protocol
import Vow

final class Counter { var n = 0 }

func make() {
    let (_, resolver) = Promise<Counter>.pending()
    resolver.fulfill(Counter())
}
