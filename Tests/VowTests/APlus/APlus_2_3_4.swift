import Testing
@testable import Vow

// Promises/A+ 1.1, 2.3.4: if x is not an object or function (here: not a promise and not a
// thenable), fulfil promise with x as it is.

/// A type with a `then` method that does not conform to `Thenable`: only the protocol
/// makes a thenable in Swift, so this is a plain value.
private struct LooksLikeAThenable: Sendable {
    let id: Int
    func then(_ body: (Int) -> Void) { body(id) }
}

@Suite("A+ 2.3.4 plain values")
struct APlus_2_3_4 {
    @Test("2.3.4 numbers, strings, optionals and results fulfil as they are")
    func scalars() throws {
        #expect(try value(of: Promise.value(0).then { _ in 42 }) == 42)
        #expect(try value(of: Promise.value(0).then { _ in "text" }) == "text")
        #expect(try value(of: Promise.value(0).then { _ -> Int? in nil }) == nil)
        let result = try value(of: Promise.value(0).then { _ -> Result<Int, TestError> in .failure(TestError(1)) })
        #expect(result == .failure(TestError(1)))
    }

    @Test("2.3.4 an object fulfils as the very same object")
    func objectIdentity() throws {
        let token = Token()
        #expect(try value(of: Promise.value(0).then { _ in token }) === token)
        let core = Core()
        core.resolveProcedure(token)
        #expect(try value(of: Promise<Token>(core: core)) === token)
    }

    @Test("2.3.4 a type with a then method that is not a Thenable is not assimilated")
    func lookalike() throws {
        let value = try value(of: Promise.value(0).then { _ in LooksLikeAThenable(id: 3) })
        #expect(value.id == 3)
    }

    @Test("2.3.4 an array of promises is a plain value: its promises are not adopted")
    func arrayOfPromises() throws {
        let (inner, resolver) = Promise<Int>.pending()
        let outer = Promise.value(0).then { _ in [inner] }
        let array = try value(of: outer)
        #expect(array.count == 1)
        #expect(array[0].core === inner.core)
        #expect(inner.isPending)
        resolver.fulfill(1)
    }

    @Test("2.3.4 a closure fulfils as the closure")
    func closure() throws {
        let promise = Promise.value(0).then { _ -> @Sendable (Int) -> Int in { $0 * 3 } }
        let function = try value(of: promise)
        #expect(function(5) == 15)
    }
}
