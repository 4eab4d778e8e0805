import CVow
import Testing
@testable import Vow

extension BridgingTests {
    /// Manifolds: an AnyPromise fulfilled with a LIST unboxes to a tuple of the same arity.
    @Suite("Bridging: manifolds and tuples") struct ManifoldTests {
        @Test("manifolds of 2 to 5 values unbox to tuples")
        func arities() throws {
            let two = try value(of: Promise<(Int, String)>(AnyPromise.manifold(1, "a")))
            #expect(two.0 == 1 && two.1 == "a")
            let three = try value(of: Promise<(Int, String, Double)>(AnyPromise.manifold(1, "b", 2.5)))
            #expect(three.0 == 1 && three.1 == "b" && three.2 == 2.5)
            let four = try value(of: AnyPromise.manifold(true, 2, "c", [UInt8]([9])).as((Bool, Int32, String, [UInt8]).self))
            #expect(four.0 && four.1 == 2 && four.2 == "c" && four.3 == [9])
            let five = try value(of: AnyPromise.manifold(1, 2, 3, 4, Int?.none as Any).as((Int, Int8, UInt16, Double, Int?).self))
            #expect(five.0 == 1 && five.1 == 2 && five.2 == 3 && five.3 == 4 && five.4 == nil)
        }

        @Test("a manifold is a LIST in C")
        func manifoldInC() {
            let handle = AnyPromise.manifold(1, "x").unsafeRetainedHandle()
            let list = vow_promise_value(handle)
            #expect(vow_value_kind(list) == VOW_KIND_LIST)
            #expect(vow_value_count(list) == 2)
            // The same LIST handle each time: the manifold was bridged once.
            let again = vow_promise_value(handle)
            #expect(again == list)
            vow_value_release(again)
            vow_value_release(list)
            vow_promise_release(handle)
        }

        @Test("a C LIST unboxes to a tuple")
        func cListToTuple() throws {
            let items = [vow_value_int(4), vow_value_string("four")]
            let list = items.withUnsafeBufferPointer { vow_value_list($0.baseAddress, $0.count) }
            items.forEach { vow_value_release($0) }
            let promise = fulfilledC(list)
            let any = try #require(AnyPromise(unsafeHandle: promise))
            vow_promise_release(promise)
            let pair = try value(of: any.as((Int, String).self))
            #expect(pair.0 == 4 && pair.1 == "four")
        }

        @Test("a Swift tuple or array unboxes to a tuple too")
        func swiftToTuple() throws {
            let fromTuple = try value(of: Promise<(Int, String)>(AnyPromise(Promise.value((7, "seven")))))
            #expect(fromTuple.0 == 7 && fromTuple.1 == "seven")
            let fromArray = try value(of: AnyPromise.value([1, 2, 3]).as((Int, Int, Int).self))
            #expect(fromArray == (1, 2, 3))
            // when(fulfilled:) of a C promise and a Swift one, through AnyPromise.
            let c = fulfilledC(vow_value_int(8))
            let cAny = try #require(AnyPromise(unsafeHandle: c))
            vow_promise_release(c)
            let both = try value(of: when(fulfilled: cAny.as(Int.self), Promise.value("s")))
            #expect(both.0 == 8 && both.1 == "s")
        }

        @Test("a count mismatch rejects with the type error naming the tuple and the list")
        func countMismatch() throws {
            let typeError = try #require(try error(of: AnyPromise.manifold(1, 2, 3).as((Int, Int).self)) as? VowError)
            #expect(typeError.vowCode == .type)
            #expect(typeError.message.contains("(Int, Int)"))
            #expect(typeError.message.contains("3 values"))
            let notAList = try #require(try error(of: AnyPromise.value(5).as((Int, Int).self)) as? VowError)
            #expect(notAList.vowCode == .type)
        }

        @Test("an element of the wrong type rejects naming its position")
        func elementMismatch() throws {
            let typeError = try #require(try error(of: AnyPromise.manifold(1, "x").as((Int, Int).self)) as? VowError)
            #expect(typeError.vowCode == .type)
            #expect(typeError.message.contains("item 1"))
            #expect(typeError.message.contains("expected Int, found String"))
        }

        @Test("in a generic context the disfavoured generic view still reads tuples of Swift values")
        func genericContext() throws {
            func typed<T>(_ any: AnyPromise, as type: T.Type) -> Promise<T> { Promise<T>(any) }
            let pair = try value(of: typed(AnyPromise.manifold(1, "g"), as: (Int, String).self))
            #expect(pair.0 == 1 && pair.1 == "g")
        }

        @Test("a rejection passes through the conversion")
        func rejectionPassesThrough() throws {
            let source = AnyPromise(error: TokenError(token: 4))
            #expect(try error(of: source.as((Int, Int).self)) as? TokenError == TokenError(token: 4))
            #expect(try error(of: source.as(Int.self)) as? TokenError == TokenError(token: 4))
        }
    }
}

