// MIGRATION.md, "From PromiseKit 6 and 8: operator by operator": every row whose Vow column
// says "the same" (or names the PromiseKit spelling itself), written as PromiseKit writes
// it, against Vow alone (no compatibility layer). Must type-check in Swift 6 mode with
// warnings as errors; a row whose spelling stops compiling fails this test.
import Vow

struct Failure: Error {}

func make() throws {
    _ = Promise<Int> { seal in seal.fulfill(1) }                     // Promise { seal in … }
    let (promise, resolver) = Promise<Int>.pending()                 // Promise<T>.pending()
    _ = (promise, resolver)
    _ = Promise.value(1)                                             // Promise.value(x)
    _ = Promise<Int>(error: Failure())                               // Promise(error:)
    _ = Promise()                                                    // Promise()
    _ = Promise<Int> { seal in seal.reject(Failure()) }              // seal.reject(e)
    _ = Promise<Int> { seal in seal.resolve(.success(1)) }           // seal.resolve(result)
    _ = Promise<Int> { seal in seal.resolve(1, nil) }                // seal.resolve(value, error)
    _ = Promise<Void> { seal in seal.fulfill() }                     // seal.fulfill() (Void)
    let fulfil: () -> Void = Promise<Void>.pending().resolver.fulfill   // seal.fulfill as () -> Void
    _ = fulfil
    _ = firstly { Promise.value(1) }                                 // firstly { … }
}

func chain(_ p: Promise<Int>, _ fetch: @escaping @Sendable (Int) -> Promise<String>) throws {
    _ = p.then { fetch($0) }                                         // then { … -> Promise }
    _ = p.map { $0 + 1 }                                             // map
    _ = p.compactMap { $0 > 0 ? $0 : nil }                           // compactMap
    p.done { print($0) }.catch { _ in }                              // done
    _ = p.get { print($0) }                                          // get
    _ = p.tap { print($0) }                                          // tap { result in … }
    _ = p.asVoid()                                                   // asVoid()
    p.catch(policy: .allErrors) { _ in }                             // catch(policy:)
    p.done { _ in }.catch { _ in }.finally { }                       // finally { … } (after catch)
    p.cauterize()                                                    // cauterize()
    _ = try p.wait()                                                 // wait()
}

func sequences(_ p: Promise<[Int]>) {
    _ = p.mapValues { $0 * 2 }                                       // mapValues
    _ = p.flatMapValues { [$0, $0] }                                 // flatMapValues
    _ = p.compactMapValues { $0 > 1 ? $0 : nil }                     // compactMapValues
    _ = p.filterValues { $0 > 1 }                                    // filterValues
    _ = p.reduce(0, +)                                               // reduce
    _ = p.sortedValues()                                             // sortedValues
    _ = p.sortedValues { $0 > $1 }                                   // sortedValues(_:)
    _ = p.thenMap { Promise.value($0) }                              // thenMap
    _ = p.thenFlatMap { Promise.value([$0]) }                        // thenFlatMap
    _ = p.firstValue                                                 // firstValue
    _ = p.lastValue                                                  // lastValue
    _ = p.firstValue { $0 > 1 }                                      // firstValue(where:)
}

func combinators(_ a: Promise<Int>, _ b: Promise<String>, _ c: Promise<Int>) {
    _ = when(fulfilled: [a, c])                                      // when(fulfilled: [a, b])
    _ = when(fulfilled: a, b)                                        // when(fulfilled: a, b, …)
    _ = when(fulfilled: [a, c].makeIterator(), concurrently: 2)      // when(fulfilled: iterator, concurrently: n)
    _ = when(resolved: [a, c])                                       // when(resolved: [a, b])
    _ = when(resolved: [a, c].makeIterator(), concurrently: 2)       // when(resolved: iterator, concurrently: n)
    _ = race(a, c)                                                   // race(a, b)
    _ = race([a, c])                                                 // race([a, b])
    _ = after(seconds: 1)                                            // after(seconds:)
}

struct Stop: CancellableError { var isCancelled: Bool { true } }     // CancellableError

func cancelling(_ p: Promise<Int>) {
    p.cancel()                                                       // promise.cancel()
}
