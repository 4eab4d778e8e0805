// Issue 15, item 6: the predicate `ensure` is deprecated in favour of `validate`, with
// the reason (PromiseKit 6's `ensure` is Vow's `finally`); -warnings-as-errors refuses it.
// expect-error: 'ensure(on:file:line:_:otherwise:)' is deprecated: use validate(_:otherwise:); in PromiseKit 6 and later 'ensure' means 'always run this', which is Vow's finally
import Vow

func checked(_ promise: Promise<Int>) -> Promise<Int> {
    promise.ensure { $0 > 0 }
}
