// Issue 15, item 4: no public type shares the module's name (the settings are VowRuntime).
// expect-error: module 'Vow' has no member named 'Vow'
import Vow

let settings = Vow.Vow.self
