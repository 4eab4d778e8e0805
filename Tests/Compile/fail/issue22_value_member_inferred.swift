// Issue 22, item 8, third case, as the compiler reports it today: the misleading message
// for a missing member after Promise.value(x) with the type inferred (see
// issue22_value_member.swift for why, and for the spelling that gets the real message).
// If a compiler names the member instead, this expectation changes with it.
// expect-error: instance member 'value' cannot be used on type 'Promise<_>'
import Vow

func typo() -> Promise<Int> {
    Promise.value(3).mapp { $0 + 1 }
}
