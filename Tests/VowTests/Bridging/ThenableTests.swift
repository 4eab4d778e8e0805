import CVow
import Synchronization
import Testing
@testable import Vow

#if canImport(Glibc)
import Glibc
#endif

extension BridgingTests {
    /// A host's promise-like object, described to the library by `hostClass`.
    final class HostObject: @unchecked Sendable {
        // @unchecked: `mode` is immutable; everything else atomic or locked.
        enum Mode {
            /// get_then answers VOW_THEN_NONE.
            case notThenable
            /// call_then fulfils with the number at once, then tries again (must be EALREADY).
            case fulfilNow(Int64)
            /// call_then keeps the resolver (retained) for the test to settle later.
            case keepResolver
            /// get_then throws.
            case lookupThrows
            /// call_then throws without settling.
            case callThrows
            /// call_then fulfils, then throws (the throw counts for nothing).
            case fulfilThenThrow(Int64)
            /// call_then does nothing and keeps nothing (the resolver breaks).
            case dropResolver
        }

        let mode: Mode
        private let lookups = Atomic<Int>(0)
        private let calls = Atomic<Int>(0)
        private let methodReleases = Atomic<Int>(0)
        private let destroys = Atomic<Int>(0)
        private let secondAnswer = Atomic<Int32>(HostObject.notAnswered)
        private let wrongMethods = Atomic<Int>(0)
        private let lookupThread = Locked<pthread_t?>(nil)
        private let kept = Locked<OpaquePointer?>(nil)

        init(_ mode: Mode) { self.mode = mode }

        /// `second` before call_then made its second settle.
        static let notAnswered = Int32.max

        /// A +1 object pointer for `vow_value_thenable` with `hostObjectDestroy`.
        var object: UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

        static func from(_ object: UnsafeMutableRawPointer?) -> HostObject {
            Unmanaged<HostObject>.fromOpaque(object!).takeUnretainedValue()
        }

        var lookupCount: Int { lookups.load(ordering: .sequentiallyConsistent) }
        var callCount: Int { calls.load(ordering: .sequentiallyConsistent) }
        var methodReleaseCount: Int { methodReleases.load(ordering: .sequentiallyConsistent) }
        var destroyCount: Int { destroys.load(ordering: .sequentiallyConsistent) }
        /// What a second settle from call_then answered.
        var second: Int32 { secondAnswer.load(ordering: .sequentiallyConsistent) }
        /// call_then calls that did not get the method get_then found.
        var wrongMethodCount: Int { wrongMethods.load(ordering: .sequentiallyConsistent) }
        var lookedUpOn: pthread_t? { lookupThread.withLock { $0 } }
        /// The resolver call_then kept (+1; the test releases it).
        var keptResolver: OpaquePointer? { kept.withLock { $0 } }

        /// get_then's answer (the class sets the method pointer).
        fileprivate func getThen(_ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
            lookups.wrappingAdd(1, ordering: .sequentiallyConsistent)
            lookupThread.withLock { $0 = pthread_self() }
            switch mode {
            case .notThenable:
                return Int32(VOW_THEN_NONE.rawValue)
            case .lookupThrows:
                error?.pointee = vow_error_new("host", 1, "lookup threw")
                return Int32(VOW_THEN_THREW.rawValue)
            default:
                return Int32(VOW_THEN_FOUND.rawValue)
            }
        }

        fileprivate func callThen(method: UnsafeMutableRawPointer?, _ resolver: OpaquePointer?,
                                  _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
            calls.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if method != Unmanaged.passUnretained(self).toOpaque() {
                wrongMethods.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
            switch mode {
            case .fulfilNow(let number):
                let first = vow_value_int(number), second = vow_value_int(number + 1)
                _ = vow_resolver_fulfill(resolver, first)
                secondAnswer.store(vow_resolver_fulfill(resolver, second), ordering: .sequentiallyConsistent)
                vow_value_release(first)
                vow_value_release(second)
            case .keepResolver:
                let retained = vow_resolver_retain(resolver)
                kept.withLock { $0 = retained }
            case .callThrows:
                error?.pointee = vow_error_new("host", 2, "call threw")
                return Int32(VOW_THEN_THREW.rawValue)
            case .fulfilThenThrow(let number):
                let value = vow_value_int(number)
                _ = vow_resolver_fulfill(resolver, value)
                vow_value_release(value)
                error?.pointee = vow_error_new("host", 3, "threw after settling")
                return Int32(VOW_THEN_THREW.rawValue)
            case .dropResolver, .notThenable, .lookupThrows:
                break
            }
            return Int32(VOW_OK.rawValue)
        }

        fileprivate func releasedMethod() { methodReleases.wrappingAdd(1, ordering: .sequentiallyConsistent) }
        fileprivate func destroyed() { destroys.wrappingAdd(1, ordering: .sequentiallyConsistent) }

        /// A THENABLE value for this object (+1).
        func value() -> OpaquePointer? {
            vow_value_thenable(BridgingTests.hostClass, object, BridgingTests.hostObjectDestroy)
        }
    }

    static let hostObjectDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { object in
        let host = Unmanaged<HostObject>.fromOpaque(object!)
        host.takeUnretainedValue().destroyed()
        host.release()
    }

    /// The class of `HostObject`s. The method get_then hands out is the object itself, so
    /// call_then can check it got it back and release_method can count on the object.
    nonisolated(unsafe) static let hostClass: UnsafePointer<vow_thenable_class> = {
        let cls = UnsafeMutablePointer<vow_thenable_class>.allocate(capacity: 1)
        cls.initialize(to: vow_thenable_class(
            get_then: { object, method, error in
                let answer = HostObject.from(object).getThen(error)
                if answer == Int32(VOW_THEN_FOUND.rawValue) { method?.pointee = object }
                return answer
            },
            call_then: { object, method, resolver, error in
                HostObject.from(object).callThen(method: method, resolver, error)
            },
            release_method: { method in
                HostObject.from(method).releasedMethod()
            }))
        return UnsafePointer(cls)
    }()

    /// Resolves a new C promise with `value` through its resolver; returns the promise (+1).
    static func resolvedWith(_ value: OpaquePointer?) -> OpaquePointer? {
        var resolver: OpaquePointer?
        let promise = vow_promise_pending(&resolver)
        #expect(vow_resolver_resolve(resolver, value) == VOW_OK.rawValue)
        vow_resolver_release(resolver)
        return promise
    }

    /// Foreign thenables (Promises/A+ 2.3.3 through a `vow_thenable_class`).
    @Suite("Bridging: foreign thenables") struct ForeignThenableTests {
        @Test("not a thenable: the promise fulfils with the same THENABLE handle")
        func notThenable() {
            let host = HostObject(.notThenable)
            let value = host.value()
            let promise = resolvedWith(value)
            let waited = waitC(promise)
            #expect(waited.state == VOW_FULFILLED)
            #expect(waited.value == value)
            #expect(host.lookupCount == 1)
            #expect(host.callCount == 0)
            waited.release()
            vow_promise_release(promise)
            vow_value_release(value)
            // The last reference may be the finished assimilation job's, dropped a moment later.
            #expect(eventually { host.destroyCount == 1 })
        }

        @Test("found: call_then settles once; a second settle answers VOW_EALREADY; lookups run once, off the caller's thread")
        func fulfilNow() {
            let host = HostObject(.fulfilNow(5))
            let value = host.value()
            let promise = resolvedWith(value)
            vow_value_release(value)
            #expect(intValue(of: promise) == 5)
            #expect(host.lookupCount == 1)
            #expect(host.callCount == 1)
            #expect(eventually { host.second != HostObject.notAnswered })
            #expect(host.second == VOW_EALREADY.rawValue)
            #expect(host.wrongMethodCount == 0)
            #expect(eventually { host.methodReleaseCount == 1 })
            // The class functions ran as a job, not inline in vow_resolver_resolve.
            #expect(host.lookedUpOn.map { pthread_equal($0, pthread_self()) == 0 } == true)
            vow_promise_release(promise)
            #expect(eventually { host.destroyCount == 1 })
        }

        @Test("a kept resolver settles later; its cancel handlers reach the promise being resolved")
        func keptResolver() {
            let host = HostObject(.keepResolver)
            let value = host.value()
            let promise = resolvedWith(value)
            vow_value_release(value)
            #expect(eventually { host.keptResolver != nil })
            let resolver = host.keptResolver
            #expect(!vow_resolver_is_used(resolver))
            #expect(vow_promise_state(promise) == VOW_PENDING)
            let late = vow_value_int(12)
            #expect(vow_resolver_fulfill(resolver, late) == VOW_OK.rawValue)
            #expect(vow_resolver_is_used(resolver))
            #expect(vow_resolver_fulfill(resolver, late) == VOW_EALREADY.rawValue)
            let waited = waitC(promise)
            #expect(waited.value == late)
            waited.release()
            vow_value_release(late)
            vow_resolver_release(resolver)
            vow_promise_release(promise)

            // on_cancel through a once-only resolver: cancelling the promise reaches it.
            let second = HostObject(.keepResolver)
            let secondValue = second.value()
            let cancellable = resolvedWith(secondValue)
            vow_value_release(secondValue)
            #expect(eventually { second.keptResolver != nil })
            let tracker = Tracker()
            #expect(vow_resolver_on_cancel(second.keptResolver, BridgingTests.plainHit, tracker.ctx,
                                           BridgingTests.trackerDestroy) == VOW_OK.rawValue)
            vow_cancel(cancellable)
            #expect(eventually { tracker.calls == 1 })
            #expect(tracker.destroyedOnce())
            #expect(vow_resolver_is_used(second.keptResolver))
            vow_resolver_release(second.keptResolver)
            vow_promise_release(cancellable)
        }

        @Test("a lookup or call that throws rejects with the error the class hands back")
        func throwsReject() {
            for (mode, code) in [(HostObject.Mode.lookupThrows, Int64(1)), (.callThrows, 2)] {
                let host = HostObject(mode)
                let value = host.value()
                let promise = resolvedWith(value)
                vow_value_release(value)
                let waited = waitC(promise)
                #expect(waited.state == VOW_REJECTED)
                #expect(describe(waited.error).domain == "host")
                #expect(describe(waited.error).code == code)
                waited.release()
                vow_promise_release(promise)
            }
        }

        @Test("a throw after settling counts for nothing")
        func throwAfterSettling() {
            let host = HostObject(.fulfilThenThrow(6))
            let value = host.value()
            let promise = resolvedWith(value)
            vow_value_release(value)
            #expect(intValue(of: promise) == 6)
            vow_promise_release(promise)
        }

        @Test("a resolver nobody kept and nobody used rejects with VOW_ERROR_BROKEN")
        func droppedResolver() {
            let host = HostObject(.dropResolver)
            let value = host.value()
            let promise = resolvedWith(value)
            vow_value_release(value)
            let waited = waitC(promise)
            #expect(waited.state == VOW_REJECTED)
            #expect(describe(waited.error).code == Int64(VOW_ERROR_BROKEN.rawValue))
            waited.release()
            vow_promise_release(promise)
        }

        @Test("a callback returning a THENABLE makes the derived promise assimilate it")
        func callbackReturnsThenable() {
            let host = HostObject(.fulfilNow(30))
            let tracker = Tracker(handle: host.value())
            let source = fulfilledC(vow_value_int(0))
            let derived = vow_then(source, BridgingTests.returnHandle, nil, tracker.ctx, BridgingTests.trackerDestroy)
            #expect(intValue(of: derived) == 30)
            [source, derived].forEach { vow_promise_release($0) }
        }

        @Test("a C thenable reaches Swift through AnyPromise: a Swift chain returning it assimilates it")
        func swiftAssimilates() throws {
            let host = HostObject(.fulfilNow(8))
            let thenable = host.value()
            let carrier = fulfilledC(vow_value_retain(thenable))
            vow_value_release(thenable)
            let any = try #require(AnyPromise(unsafeHandle: carrier))
            vow_promise_release(carrier)
            // The untyped then hands the C thenable on; returning it runs the procedure.
            let resolved = any.then { thenable in thenable }
            #expect(try value(of: resolved.as(Int.self)) == 8)
        }
    }
}
