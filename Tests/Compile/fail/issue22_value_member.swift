// Issue 22, item 8, third case: after Promise.value(x) (the type's parameter inferred), a
// member that does not exist is reported by Swift 6.3 as "instance member 'value' cannot
// be used on type 'Promise<_>'" (the static value(_:) and the async instance property
// value share a name, and the compiler blames the wrong one; this cannot be changed from
// the library without renaming either, which the contract fixes). Spelling the type, as
// MIGRATION.md says, gets the real message: this snippet checks it.
// expect-error: value of type 'Promise<Int>' has no member 'mapp'
import Vow

func typo() -> Promise<Int> {
    Promise<Int>.value(3).mapp { $0 + 1 }
}
