/// Conversions between Swift values and the untyped values that cross into C.
enum Bridging {
    /// The slow path of `castValue`: `value` is not a `T` as it stands. Values from C
    /// (`VowValue`) are converted here by the AnyPromise layer.
    static func unbox<T>(_ value: Any, as type: T.Type) -> Result<T, any Error> {
        .failure(VowError(.type, "expected \(T.self), found \(Swift.type(of: value))"))
    }
}
