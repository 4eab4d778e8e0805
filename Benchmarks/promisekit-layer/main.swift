// The cost of VowPromiseKit's PromiseKit spellings beside the Vow call each maps to, in
// instructions per call (callgrind): each pair runs the same one-link chain on a fulfilled
// promise, inline (`on: .inline` / PromiseKit's `on: nil`), waited for. Run by run.sh.
import VowPromiseKit
let variant = CommandLine.arguments[1]
let n = Int(CommandLine.arguments[2])!
var sink = 0
@inline(never) func run_vow_map(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).map(on: .inline) { $0 + 1 }.wait()) ?? 0 }
    return sink
}
@inline(never) func run_pmk_map(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).map(on: nil) { $0 + 1 }.wait()) ?? 0 }
    return sink
}
@inline(never) func run_guarantee_map(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= Guarantee.value(i).map(on: nil) { $0 + 1 }.wait() }
    return sink
}
@inline(never) func run_vow_finally(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).finally(on: .inline) {}.wait()) ?? 0 }
    return sink
}
@inline(never) func run_pmk_ensure(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).ensure(on: nil) {}.wait()) ?? 0 }
    return sink
}
@inline(never) func run_vow_tap(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).tap(on: .inline) { _ in }.wait()) ?? 0 }
    return sink
}
@inline(never) func run_pmk_tap(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).tap(on: nil) { _ in }.wait()) ?? 0 }
    return sink
}
@inline(never) func run_vow_then(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).then(on: .inline) { Promise.value($0) }.wait()) ?? 0 }
    return sink
}
@inline(never) func run_pmk_then(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= (try? Promise.value(i).then(on: nil) { Promise.value($0) }.wait()) ?? 0 }
    return sink
}
@inline(never) func run_vow_done_default(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= { Promise.value(i).done { _ in }; return 0 }() }
    return sink
}
@inline(never) func run_vow_catch(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= { Promise.value(i).catch(on: .inline) { (_: any Error) in }; return 0 }() }
    return sink
}
@inline(never) func run_pmk_catch(_ n: Int) -> Int {
    var sink = 0
    for i in 0..<n { sink &+= { Promise.value(i).catch(on: nil) { _ in }; return 0 }() }
    return sink
}
switch variant {
case "vow-map": sink = run_vow_map(n)
case "pmk-map": sink = run_pmk_map(n)
case "guarantee-map": sink = run_guarantee_map(n)
case "vow-finally": sink = run_vow_finally(n)
case "pmk-ensure": sink = run_pmk_ensure(n)
case "vow-tap": sink = run_vow_tap(n)
case "pmk-tap": sink = run_pmk_tap(n)
case "vow-then": sink = run_vow_then(n)
case "pmk-then": sink = run_pmk_then(n)
case "vow-done-default": sink = run_vow_done_default(n)
case "vow-catch": sink = run_vow_catch(n)
case "pmk-catch": sink = run_pmk_catch(n)
default: fatalError()
}
print(sink)
