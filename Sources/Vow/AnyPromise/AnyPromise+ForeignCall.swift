extension AnyPromise {
    /// Calls a C function with this promise's value spread into its parameters: the Swift
    /// face of C's `vow_then_call`.
    ///
    /// When this promise fulfils with a list (a manifold: `AnyPromise.manifold(...)`, a
    /// tuple or an array, a C LIST) its items become the function's arguments in order;
    /// any other value is a list of one (and `nil` is no arguments for a signature without
    /// parameters). `context` is passed as one more, last, `void *` argument. The function
    /// runs through libffi on `dispatcher`, and its return value fulfils the returned
    /// promise (shown as a Swift value: `Int` for `i`/`q`, `Double` for `d`/`f`, `Bool`,
    /// `String`, `UnsafeMutableRawPointer`, `nil` for `v`).
    ///
    /// `signature` is a return code, then the parameter codes in parentheses: `v` void
    /// (return only), `b` bool, `i` int32_t, `q` int64_t, `d` double, `f` float, `s` const
    /// char * (UTF-8), `p` void *, `V` const vow_value *. `"d(qs)"` describes
    /// `double f(int64_t, const char *, void *ctx)`, which Swift writes as
    /// `@convention(c) (Int64, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Double`.
    ///
    ///     let area: @convention(c) (Double, Double, UnsafeMutableRawPointer?) -> Double = { w, h, _ in w * h }
    ///     let result = try AnyPromise.manifold(3.0, 4.0)
    ///         .thenCall(signature: "d(dd)", function: unsafeBitCast(area, to: UnsafeRawPointer.self))
    ///     let twelve = try result.as(Double.self).wait()
    ///
    /// A value that does not fit the parameters (count or kind, e.g. a `String` for `q`)
    /// rejects the returned promise with `VowError.Code.type`, naming the position, and the
    /// function is not called; a rejection of this promise passes through; if the returned
    /// promise is cancelled before this one fulfils, the function never runs.
    ///
    /// - Parameters:
    ///   - dispatcher: where the function runs (default: `VowRuntime.defaultDispatcher` as it is
    ///     now; never inline in this call).
    ///   - signature: what the function takes and returns (at most 256 characters and 32
    ///     parameters, `context` not counted).
    ///   - function: the address of a C function of exactly that type, e.g.
    ///     `unsafeBitCast(f, to: UnsafeRawPointer.self)` for a `@convention(c)` value `f`,
    ///     or a `dlsym` result. A function of another type is undefined behaviour, which no
    ///     library can detect.
    ///   - context: passed through untouched, as the last argument; the caller keeps
    ///     whatever it points at alive until the function has run.
    ///   - file: where the returned promise is recorded as made (debug mode).
    ///   - line: the line of `file`.
    /// - Throws: `VowError` with code `.signature` if `signature` is malformed (nothing is
    ///   registered then).
    /// - Returns: a promise for the function's return value.
    public func thenCall(on dispatcher: any Dispatcher = .default, signature: String,
                         function: UnsafeRawPointer,
                         context: UnsafeMutableRawPointer? = nil,
                         file: StaticString = #fileID, line: UInt = #line) throws(VowError) -> AnyPromise {
        let typed = unsafeBitCast(function, to: ForeignCall.Function.self)
        let call: ForeignCall
        switch ForeignCall.make(signature: signature, function: typed, origin: "AnyPromise.thenCall") {
        case .failure(let error): throw error
        case .success(let made): call = made
        }
        return AnyPromise(core: core.link(on: dispatcher, ForeignCallBody(call: call, context: CContext(context, nil)),
                                          at: .source(file, line)))
    }
}
