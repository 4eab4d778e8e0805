// Issue 36: a closure of the wrong type given to `then` is reported against the closure
// (Swift 6.3), not as an ambiguity between Vow's four `then` overloads. Each case names the
// real culprit; if a compiler reports "ambiguous use of 'then'" again, this test fails.
// expect-error: value of type 'Int' has no member 'identifier'
// expect-error: cannot convert value of type '@Sendable (String) -> Promise<User>' to expected argument type '@Sendable (Int) throws -> Promise<User>'
// expect-error: contextual closure type '@Sendable (Int) throws -> Promise<User>' expects 1 argument, but 2 were used in closure body
// expect-error: cannot convert value of type 'String' to expected argument type 'Int'
import Vow

struct User: Sendable { let id: Int }
func fetch(_ id: Int) -> Promise<User> { .value(User(id: id)) }

func missingMember(_ p: Promise<Int>) -> Promise<User> {
    p.then { x in
        let id = x.identifier
        return fetch(id)
    }
}

func wrongParameterType(_ p: Promise<Int>) -> Promise<User> {
    p.then { (x: String) -> Promise<User> in fetch(1) }
}

func wrongArity(_ p: Promise<Int>) -> Promise<User> {
    p.then { x, y in fetch(x) }
}

func wrongArgument(_ p: Promise<Int>) -> Promise<User> {
    p.then { x in
        print(x)
        return fetch("1")
    }
}
