/// Anything with a Promises/A+ style `then`.
///
/// The seed of the Swift interface. `Promise<T>` conforms; a value of another type that
/// conforms is assimilated (Promises/A+ 2.3.3) when a promise is resolved with it: its
/// `then` is called once, in a job on the default dispatcher, and only the first callback
/// call counts.
///
/// The callbacks are `@Sendable`: a thenable may call them on any thread (a promise calls
/// them on its dispatcher). A conformer written with plain closure parameters still
/// conforms.
public protocol Thenable {
    /// The type of the value the thenable fulfils with.
    associatedtype Value
    /// Registers callbacks. `onSuccess` receives the value; if it throws and `onFailure`
    /// is non-nil, `onFailure` receives the error. `onFailure` receives a rejection reason.
    func then(_ onSuccess: (@Sendable (Value) throws -> ())?, _ onFailure: (@Sendable (Any?) -> ())?)
}
