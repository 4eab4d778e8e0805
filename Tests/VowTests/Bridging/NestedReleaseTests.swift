import CVow
import Testing
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

// Issue 16, item 2 (Swift side): nested values are freed without recursion. Each structure
// is built and its last reference dropped on a thread with a 512 KB stack, where a
// recursion per level overflows after a few thousand levels. Under ThreadSanitizer
// (VOW_TSAN=1) the depths are smaller. Item 6 (Swift side): the same handles cross the
// boundary each time.

/// A secondary thread's stack: small on purpose, so a recursion per level would overflow.
private let smallStack = 512 * 1024

/// Runs `body` on a new thread with a 512 KB stack and awaits its result without blocking
/// a thread of Swift's cooperative pool (other suites' async tests need it meanwhile).
private func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = startThread(stackSize: smallStack) { continuation.resume(with: Result { try body() }) }
        pthread_detach(thread)
    }
}

/// Counts its own deinit: put at the bottom of a structure, it proves the whole structure
/// was freed.
private final class Bottom: Sendable {
    let freed: Counter
    init(_ freed: Counter) { self.freed = freed }
    deinit { _ = freed.increment() }
}

extension BridgingTests {
    @Suite("Bridging: nested values are freed without recursion") struct NestedReleaseTests {
        static var listDepth: Int { Stress.underTSan ? 100_000 : 1_000_000 }
        static var promiseDepth: Int { Stress.underTSan ? 5_000 : 20_000 }

        @Test("a LIST in a LIST, a million deep")
        func nestedLists() async throws {
            let freed = Counter()
            let depth = Self.listDepth
            let built = try await onSmallStack {
                var value = VowValue(.swift(Bottom(freed)))
                for _ in 0..<depth { value = VowValue(.list([value])) }
                return value.listElements?.count == 1
            }
            #expect(built)
            #expect(freed.value == 1)
        }

        @Test("an ERROR whose payload is an ERROR value, a million deep")
        func nestedErrors() async throws {
            let freed = Counter()
            let depth = Self.listDepth
            let built = try await onSmallStack {
                var value = VowValue(.swift(Bottom(freed)))
                for level in 0..<depth {
                    let error = VowErrorBox.boxing(VowError(domain: "app", code: Int64(level), message: "", payload: value))
                    value = VowValue(.error(error))
                }
                return value.kind == VOW_KIND_ERROR
            }
            #expect(built)
            #expect(freed.value == 1)
        }

        @Test("an AnyPromise fulfilled with an AnyPromise value, 20,000 deep (AnyPromise.value)")
        func nestedAnyPromiseValues() async throws {
            let freed = Counter()
            let depth = Self.promiseDepth
            let readBack = try await onSmallStack {
                var promise = AnyPromise.value(Bottom(freed))
                var previous = promise
                for _ in 0..<depth {
                    previous = promise
                    promise = AnyPromise.value(promise)
                }
                // Still read back as an AnyPromise: the same promise that went in.
                let inner = try promise.wait() as? AnyPromise
                return inner?.core === previous.core
            }
            #expect(readBack)
            #expect(freed.value == 1)
        }

        @Test("the same through AnyResolver.fulfill, and seen from C as PROMISE values")
        func nestedFulfilledThroughResolvers() async throws {
            let freed = Counter()
            let depth = Self.promiseDepth
            let seen = try await onSmallStack {
                var promise = AnyPromise.value(Bottom(freed))
                var previous = promise
                for _ in 0..<depth {
                    let (next, resolver) = AnyPromise.pending()
                    resolver.fulfill(promise)  // as it is: not adopted
                    previous = promise
                    promise = next
                }
                // C sees a PROMISE value carrying the same promise.
                let value = vow_promise_value(promise.core.borrowedHandle)
                defer { vow_value_release(value) }
                return promise.isFulfilled && vow_value_kind(value) == VOW_KIND_PROMISE
                    && vow_value_get_promise(value) == previous.core.borrowedHandle
            }
            #expect(seen)
            #expect(freed.value == 1)
        }

        @Test("vow_when over vow_when results (LIST values), 20,000 deep")
        func nestedWhen() async throws {
            let freed = Counter()
            let depth = Self.promiseDepth
            let state = try await onSmallStack {
                let bottom = VowValue(.swift(Bottom(freed)))
                var promise: OpaquePointer? = vow_promise_fulfilled(bottom.borrowedHandle)
                for _ in 0..<depth {
                    var inputs: [OpaquePointer?] = [promise]
                    let next = vow_when(&inputs, 1)
                    vow_promise_release(promise)
                    promise = next
                }
                let waited = waitC(promise, within: 60)
                waited.release()
                vow_promise_release(promise)
                return waited.state
            }
            #expect(state == VOW_FULFILLED)
            #expect(await eventuallyAsync { freed.value == 1 })
        }
    }

    @Suite("Bridging: identity across the boundary (issue 16)") struct BoundaryIdentityTests {
        @Test("vow_promise_value twice on a Swift-fulfilled promise gives the same handle")
        func swiftValueSameHandle() throws {
            for promise in [AnyPromise(Promise<String>.value("swift")), AnyPromise.value(42),
                            AnyPromise(Promise<(Int, String)>.value((1, "a")))] {
                let handle = promise.core.borrowedHandle
                let first = vow_promise_value(handle)
                let second = vow_promise_value(handle)
                #expect(first != nil)
                #expect(first == second)
                var waited: OpaquePointer?
                #expect(vow_wait(handle, 0, &waited, nil) == VOW_FULFILLED)
                #expect(waited == first)
                [first, second, waited].forEach { vow_value_release($0) }
            }
        }

        @Test("a C error caught in Swift and rethrown reaches C's next callback as the same vow_error")
        func cErrorRethrownSameHandle() throws {
            let cError = vow_error_new("app", 9, "made in C")
            defer { vow_error_release(cError) }
            let rejected = vow_promise_rejected(cError)
            let any = try #require(AnyPromise(unsafeHandle: rejected))
            vow_promise_release(rejected)
            let seenInSwift = Locked<VowError?>(nil)
            // Caught as a VowError (a struct, a copy), then thrown again.
            let rethrown = any.as(Int.self).recover { (error: any Error) throws -> Int in
                guard let vow = error as? VowError else { throw error }
                seenInSwift.withLock { $0 = vow }
                throw vow
            }
            let tracker = Tracker()
            let next = vow_then(AnyPromise(rethrown).core.borrowedHandle, nil, BridgingTests.recover,
                                tracker.ctx, BridgingTests.trackerDestroy)
            #expect(waitC(next).state == VOW_FULFILLED)
            #expect(tracker.lastSeen == address(cError))
            #expect(seenInSwift.withLock { $0?.code } == 9)
            let read = vow_promise_error(AnyPromise(rethrown).core.borrowedHandle)
            #expect(read == cError)
            vow_error_release(read)
            vow_promise_release(next)
            #expect(tracker.destroyedOnce())
        }
    }
}
