// Issue 36: PromiseKit's `.fulfilled` on the `Swift.Result` Vow's `tap` passes, without
// the compatibility layer. The message must name the value's type; it named
// 'VowError.Code' while Vow's `~=` for error codes took any pattern of that type (it is
// generic now, and applies to error values only).
// expect-error: type 'Result<Int, any Error>' has no member 'fulfilled'
import Vow

func inspect(_ result: Result<Int, any Error>) {
    switch result {
    case .fulfilled(let value): print(value)
    case .rejected(let error): print(error)
    }
}
