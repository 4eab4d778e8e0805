// Issue 22, item 8: what PromiseKit code writes must type-check (-warnings-as-errors).
import Vow

// 1. when(fulfilled:) over three promises of one type: the tuple form, as with 2, 4 and 5
//    (it was "ambiguous use of 'when'"). One promise, or more than five, is the array form.
func sameTypes(_ a: Promise<Int>, _ b: Promise<Int>, _ c: Promise<Int>) -> Promise<Int> {
    let three = when(fulfilled: a, b, c)
    let one: Promise<[Int]> = when(fulfilled: a)
    let six: Promise<[Int]> = when(fulfilled: a, b, c, a, b, c)
    _ = (one, six)
    return three.map { x, y, z in x + y + z }
}

func sameTypesDone(_ a: Promise<String>, _ b: Promise<String>, _ c: Promise<String>) {
    when(fulfilled: a, b, c).done { x, y, z in print(x, y, z) }.catch { _ in }
}

// 2. recover on a Promise<Void> with several statements and no return (it was
//    ambiguous): the value-returning recover; returning a promise still picks the other.
func voidRecover(_ p: Promise<Void>, _ retry: @escaping @Sendable () -> Promise<Void>) -> [Promise<Void>] {
    let logged = p.recover { error in
        let text = "\(error)"
        print(text)
    }
    let retried = p.recover { error in
        print(error)
        return retry()
    }
    let policy = p.recover(policy: .allErrors) { error in
        let text = "\(error)"
        print(text)
    }
    return [logged, retried, policy]
}

// 3. Promise.value(x) followed by members that exist (the misleading message for a member
//    that does not is a compiler limitation: see fail/issue22_value_member*.swift).
func valueChain() -> Promise<String> {
    Promise.value(3).map { $0 * 2 }.then { Promise.value("\($0)") }
}

// PromiseKit's Void spellings.
func voids(_ api: (@escaping @Sendable () -> Void) -> Void) -> [Promise<Void>] {
    [Promise(), Promise { seal in seal.fulfill() }, Promise { seal in api(seal.fulfill) }]
}
