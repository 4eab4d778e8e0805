/// Process-wide settings, shared with C.
///
/// Named `VowRuntime`, not after the module: `Vow.Promise`, `Vow.AnyPromise` and the like
/// name the module's types, as a program that also imports PromiseKit (or has a `Promise`
/// of its own) needs to write.
///
/// Declared here, where both faces meet: the Swift face adds the settings
/// (Swift/VowRuntime+Settings.swift, VowRuntime+Debug.swift), the C face the conversions between
/// Swift dispatchers and `vow_dispatcher *` handles (C/CDispatchers.swift).
public enum VowRuntime {}
