// VowPromiseKit: PromiseKit 6 and 8's names over Vow, so that code written for PromiseKit
// builds with one line changed per file, `import PromiseKit` → `import VowPromiseKit`.
//
// One engine, Vow's rules. Every name here is a thin call into Vow's own API (most are
// `@inlinable`, the call Vow's own spelling makes): a `Promise` is Vow's `Promise`, a
// `Resolver` is Vow's `Resolver`, a `Guarantee` is a Vow promise that the type system keeps
// from rejecting. Where PromiseKit's rule differs from Vow's (the default queue, what
// `recover` receives, the errors combinators reject with, ...), the layer follows Vow's and
// MIGRATION.md ("The PromiseKit compatibility layer") says so.
//
// This module re-exports Vow: a file that imports it sees all of Vow too, and `import Vow`
// beside it changes nothing. Where a PromiseKit name and a Vow name clash, the PromiseKit
// one wins in a file that imports this module (Swift prefers the declaration of the module
// that imports the other): `value` (PromiseKit's `T?`, not Vow's `async` value: use
// `async()`), `result` and `Result` (PromiseKit's `.fulfilled`/`.rejected`, not
// `Swift.Result`), `Thenable` (PromiseKit's protocol), `tap`'s parameter.
//
// Dispatch, not Foundation: PromiseKit's API takes `DispatchQueue`s, so this module uses
// Dispatch; like Vow's core it does not import Foundation.
@_exported import Vow
import Dispatch
