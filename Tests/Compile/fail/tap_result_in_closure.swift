// Issue 36: the same mistake inside a closure (`tap { result in switch result { … } }`),
// as Swift 6.3 reports it: with the error-code `~=` generic, the message names the
// pattern protocol, `VowError.CodePattern`, no longer `VowError.Code`; Swift 6.3 gives the
// value's type only outside a closure (tap_result_without_layer.swift). With
// VowPromiseKit imported, this code compiles (pass/promisekit_friction.swift).
// expect-error: type 'VowError.CodePattern' has no member 'fulfilled'
import Vow

func inspect(_ p: Promise<Int>) -> Promise<Int> {
    p.tap { result in
        switch result {
        case .fulfilled(let value): print(value)
        case .rejected(let error): print(error)
        }
    }
}
