// Issue 36: PromiseKit idioms that Vow alone refuses (MIGRATION.md's hand renames, or the
// compatibility layer: pass/promisekit_friction.swift), each with the message that says so.
// expect-error: 'nil' is not compatible with expected argument type 'any Dispatcher'
// expect-error: cannot find 'Guarantee' in scope
// expect-error: cannot find 'PMKError' in scope
// expect-error: value of type 'Promise<Int>' has no member 'isResolved'
import Vow

func idioms(_ p: Promise<Int>) {
    _ = p.map(on: nil) { $0 + 1 }
    _ = Guarantee.value(1)
    _ = PMKError.badInput
    _ = p.isResolved
}
