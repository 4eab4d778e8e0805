import Foundation
import VowPromiseKit
import XCTest

// What PromiseKit's test suite keeps beside its tests, carried over as a migrating user
// would (its Utilities.swift): the same helpers, against VowPromiseKit.

extension Promise {
    /// Consumes the unused-result warning of a chain whose end a test does not need.
    func silenceWarning() {}
}

/// An error with a tag, comparable (for `catch(only:)`).
enum TestError: Error, Equatable {
    case dummy
    case tagged(Int)
}

/// A cancellation error of the test's own.
struct LocalCancel: CancellableError {
    var isCancelled: Bool { true }
}

/// Counts from several threads.
final class Counter: @unchecked Sendable {
    // @unchecked: every access takes the lock.
    private let lock = NSLockLike()
    private var count = 0
    func increment() { lock.locked { count += 1 } }
    var value: Int { lock.locked { count } }
}

/// Collects values from several threads, in arrival order.
final class Log<Element>: @unchecked Sendable {
    // @unchecked: every access takes the lock.
    private let lock = NSLockLike()
    private var items: [Element] = []
    func append(_ item: Element) { lock.locked { items.append(item) } }
    var all: [Element] { lock.locked { items } }
}

/// A lock (Foundation's NSLock, spelled without Foundation's name clash with the tests').
final class NSLockLike: @unchecked Sendable {
    private let lock = NSLock()
    func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
