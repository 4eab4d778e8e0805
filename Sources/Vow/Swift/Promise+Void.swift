// `Promise<Void>` and `Resolver<Void>` without the `()` argument, as PromiseKit writes them.

extension Promise where T == Void {
    /// A promise already fulfilled (PromiseKit's `Promise()`; the same as `.value(())`).
    public init(file: StaticString = #fileID, line: UInt = #line) {
        self.init(core: Core(fulfilled: ()).made(at: .source(file, line)))
    }
}

extension Resolver where T == Void {
    /// Fulfils the promise (PromiseKit's `seal.fulfill()`; the same as `fulfill(())`). As a
    /// function value, `seal.fulfill` then fits where a `() -> Void` is expected.
    public func fulfill() {
        fulfill(())
    }
}
