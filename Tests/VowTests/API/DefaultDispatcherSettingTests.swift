import Dispatch
import Testing
@testable import Vow

// VowRuntime.defaultDispatcher, get and set. The setting is process-wide and other suites run in
// parallel: these tests live in the serialized suite of process-wide settings
// (`ErrorModel.ProcessWideSettings`), every test restores the setting, and the replacement
// is a serial queue that runs other suites' callbacks correctly while it is in place.
// Checks count only this suite's own callbacks (recognised by a queue-specific key). The
// same behaviour without touching the setting, through a scope: ScopedDefaultsTests.

/// A serial DispatchQueue tagged so a callback can tell it runs there.
struct TaggedQueue {
    let queue: DispatchQueue
    let key = DispatchSpecificKey<Int>()
    let tag: Int

    init(tag: Int) {
        self.tag = tag
        queue = DispatchQueue(label: "test.default.\(tag)")
        queue.setSpecific(key: key, value: tag)
    }

    /// The tag of the queue the caller runs on, if it is this one.
    var here: Int? { DispatchQueue.getSpecific(key: key) }
}

extension ErrorModel.ProcessWideSettings {
    @Suite("API: VowRuntime.defaultDispatcher setting")
    struct DefaultDispatcherSettingTests {
        @Test("the library's default is its own serial dispatcher, never the main queue")
        func libraryDefault() {
            VowRuntime.resetDefaultDispatcher()
            let current = VowRuntime.defaultDispatcher
            #expect(current is SerialDispatcher)
            #expect(current === VowRuntime.librarySerial)
            #expect(current !== DispatchQueue.main)
            #expect(current.isSerial)
            #expect(DefaultDispatcher.shared.isSerial)
        }

        @Test("handlers of one promise on .default run in attach order")
        func defaultOrder() throws {
            VowRuntime.resetDefaultDispatcher()
            let log = EventLog<Int>()
            let (promise, resolver) = Promise<Int>.pending()
            let tails = (0..<50).map { index in promise.done { _ in log.append(index) } }
            resolver.fulfill(0)
            for tail in tails { try value(of: tail) }
            #expect(log.all == Array(0..<50))
        }

        @Test("setting the default: get returns it, and .default callbacks registered afterwards run on it")
        func setAndGet() throws {
            let tagged = TaggedQueue(tag: 41)
            VowRuntime.defaultDispatcher = tagged.queue
            defer { VowRuntime.resetDefaultDispatcher() }
            #expect(VowRuntime.defaultDispatcher === tagged.queue)
            let key = tagged.key
            let seen = Promise.value(1).map { _ in DispatchQueue.getSpecific(key: key) }
            #expect(try value(of: seen) == 41)
            // The seed then and the resolver's cancel handlers use it too.
            let seedSaw = EventLog<Int?>()
            Promise.value(1).then({ _ in seedSaw.append(DispatchQueue.getSpecific(key: key)) }, nil)
            #expect(eventually { seedSaw.count == 1 })
            #expect(seedSaw.all == [41])
            let (cancelled, resolver) = Promise<Int>.pending()
            let cancelSaw = EventLog<Int?>()
            resolver.onCancel { cancelSaw.append(DispatchQueue.getSpecific(key: key)) }
            cancelled.cancel()
            #expect(eventually { cancelSaw.count == 1 })
            #expect(cancelSaw.all == [41])
        }

        @Test("the default is looked up when a callback is registered, not when it runs")
        func registrationTime() throws {
            let tagged = TaggedQueue(tag: 42)
            let key = tagged.key
            let (promise, resolver) = Promise<Int>.pending()
            let before = promise.map { _ in DispatchQueue.getSpecific(key: key) }
            VowRuntime.defaultDispatcher = tagged.queue
            defer { VowRuntime.resetDefaultDispatcher() }
            let after = promise.map { _ in DispatchQueue.getSpecific(key: key) }
            resolver.fulfill(0)
            #expect(try value(of: before) == nil)
            #expect(try value(of: after) == 42)
        }

        @Test("resetDefaultDispatcher() restores the library's serial dispatcher")
        func reset() throws {
            let tagged = TaggedQueue(tag: 43)
            VowRuntime.defaultDispatcher = tagged.queue
            VowRuntime.resetDefaultDispatcher()
            #expect(VowRuntime.defaultDispatcher === VowRuntime.librarySerial)
            let key = tagged.key
            #expect(try value(of: Promise.value(1).map { _ in DispatchQueue.getSpecific(key: key) }) == nil)
        }

        @Test("setting .default itself, or the library's queue, means the library's default (no loop)")
        func settingPlaceholder() throws {
            VowRuntime.defaultDispatcher = .default
            defer { VowRuntime.resetDefaultDispatcher() }
            #expect(VowRuntime.defaultDispatcher === VowRuntime.librarySerial)
            #expect(try value(of: Promise.value(1).map { $0 + 1 }) == 2)
            VowRuntime.defaultDispatcher = VowRuntime.librarySerial
            #expect(VowRuntime.defaultDispatcher === VowRuntime.librarySerial)
        }

        @Test("deadlock detection follows the replaced default")
        func deadlockWithReplacedDefault() throws {
            let tagged = TaggedQueue(tag: 44)
            VowRuntime.defaultDispatcher = tagged.queue
            defer { VowRuntime.resetDefaultDispatcher() }
            let answer = Promise.value(1).then { _ -> String in
                let inner = Promise.value(2).then { $0 }
                DispatchQueue.global().asyncAfter(deadline: .now() + 5) { inner.core.settle(.fulfilled(-1)) }
                do {
                    _ = try inner.wait()
                    return "returned"
                } catch VowError.Code.deadlock {
                    return "deadlock"
                } catch {
                    return "threw \(error)"
                }
            }
            #expect(try value(of: answer) == "deadlock")
        }
    }
}
