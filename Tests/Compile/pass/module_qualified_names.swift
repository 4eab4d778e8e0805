// Issue 15, item 4: the module's name qualifies its types, beside a program's own Promise.
import Vow

struct Promise {}   // the program's own type of the same name

let mine = Promise()
let typed: Vow.Promise<Int> = Vow.Promise.value(1)
let untyped: Vow.AnyPromise = Vow.AnyPromise(typed)
let resolver: Vow.Resolver<Int>? = nil
let dispatcher: any Vow.Dispatcher = Vow.VowRuntime.defaultDispatcher
let handler = Vow.VowRuntime.unhandledErrorHandler
