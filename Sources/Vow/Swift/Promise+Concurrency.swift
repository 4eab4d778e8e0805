// Bounded concurrency of the typed face (PromiseKit's `when(fulfilled: iterator,
// concurrently: n)`), over the engine's `Core.limited`, the combinator C's
// `vow_when_limited` and `vow_join_limited` use too.

/// Waits for the promises an iterator makes, at most `concurrently` of them pending at once:
/// fulfils with their values in the iterator's order, or rejects with the first rejection's
/// error (that same error; the returned promise's `rejectedInputIndex` says which promise
/// it was).
///
/// Promises are made lazily: `iterator.next()` is called on `dispatcher` (the default: the
/// default dispatcher as it is at this call), never on the calling thread unless that is
/// `.inline`, one call at a time, first up to `concurrently` times, then once more each time
/// one of them settles, until it returns nil. A generator is an `AnyIterator`:
///
/// ```swift
/// var next = 0
/// let downloads = AnyIterator<Promise<Data>> {
///     guard next < urls.count else { return nil }
///     defer { next += 1 }
///     return download(urls[next])
/// }
/// when(fulfilled: downloads, concurrently: 3).done { files in ... }
/// ```
///
/// The first rejection stops the iterator (`next()` is not called again) and cancels the
/// promises still pending, each only if nothing else still waits on it. Cancelling the
/// returned promise does the same. The iterator is released once `next()` can no longer be
/// called (it returned nil, or the work stopped). `concurrently` below 1 rejects with
/// `VowError.Code.type` (PromiseKit: `PMKError.badInput`), without calling `next()`.
///
/// Memory: the pending promises (at most `concurrently`) and one value per promise made so
/// far; a settled promise is let go as soon as its value is taken.
public func when<It: IteratorProtocol, T>(fulfilled iterator: sending It, concurrently: Int,
                                          on dispatcher: any Dispatcher = .default,
                                          file: StaticString = #fileID, line: UInt = #line) -> Promise<[T]>
    where It.Element == Promise<T> {
    guard concurrently >= 1 else {
        return Promise(error: badConcurrency(concurrently, "when(fulfilled:concurrently:)"), file: file, line: line)
    }
    let source = IteratorSource(iterator)
    return Promise(core: Core.limited(count: nil, limit: concurrently, mode: .all, on: dispatcher,
                                      make: { _ in source.next() },
                                      element: { try $0.typedValue(T.self) },
                                      gather: { StoredValue($0) }).made(at: .source(file, line)))
}

extension Promise {
    /// Which input made a bounded `when` reject: for a promise returned by
    /// `when(fulfilled:concurrently:on:)` that rejected because one of the iterator's
    /// promises did, that promise's index in the iterator's order (0 for the first `next()`);
    /// nil for any other promise, or while it is pending, fulfilled, or cancelled by its
    /// caller. The rejection's error is that same error, of its own type (a `catch` of the
    /// caller's error types still matches), so the index is asked of the promise:
    ///
    /// ```swift
    /// let all = when(fulfilled: downloads, concurrently: 3)
    /// all.catch { error in print("download \(all.rejectedInputIndex ?? -1) failed: \(error)") }
    /// ```
    ///
    /// (C's `vow_when_limited` names the input in its error's message instead: C errors are
    /// values, Swift's are types. `when(resolved:concurrently:on:)` never rejects: each
    /// outcome is at its index.)
    public var rejectedInputIndex: Int? { core.rejectedInputIndex }
}

/// Like `when(fulfilled:concurrently:on:)`, but never rejects: fulfils with every
/// outcome in the iterator's order, each rejection as a `.failure` (counted as handled). A
/// rejection stops nothing; cancelling the returned promise stops the iterator and cancels
/// the pending promises.
public func when<It: IteratorProtocol, T>(resolved iterator: sending It, concurrently: Int,
                                          on dispatcher: any Dispatcher = .default,
                                          file: StaticString = #fileID, line: UInt = #line)
    -> Promise<[Result<T, any Error>]> where It.Element == Promise<T> {
    guard concurrently >= 1 else {
        return Promise(error: badConcurrency(concurrently, "when(resolved:concurrently:)"), file: file, line: line)
    }
    let source = IteratorSource(iterator)
    return Promise(core: Core.limited(count: nil, limit: concurrently, mode: .allSettled, on: dispatcher,
                                      make: { _ in source.next() },
                                      element: { input -> Result<T, any Error> in
                                          if let error = input.error { return .failure(unboxError(error)) }
                                          return Result { try input.typedValue(T.self) }
                                      },
                                      gather: { StoredValue($0) }).made(at: .source(file, line)))
}

private func badConcurrency(_ concurrently: Int, _ function: String) -> VowError {
    VowError(.type, "\(function): concurrently is \(concurrently); at least 1 promise must be allowed to run")
}

/// The iterator of a bounded `when`, handed over by its caller (`sending`), behind a
/// closure (so the engine's `make` captures no metatype of the iterator's type).
private final class IteratorSource: @unchecked Sendable {
    // @unchecked: `next` is called only by the engine's pump, which calls `make` one call
    // at a time, each call ordered after the previous one by the engine's lock; the caller
    // gave the iterator up (`sending`).
    let next: () -> Core?

    init<It: IteratorProtocol, T>(_ iterator: sending It) where It.Element == Promise<T> {
        var iterator = iterator
        next = { iterator.next()?.core }
    }
}
