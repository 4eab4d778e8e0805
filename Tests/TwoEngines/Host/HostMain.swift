// HostMain.swift (copied as main.swift by scripts/check-two-engines.sh): a Swift program with a copy of the engine of its own that loads a Swift
// component built on the installed libvow.so (Plugin/Plugin.swift) with dlopen, and hands
// promises across both ways. scripts/check-install.sh builds it twice:
//
//   TwoHost  (VowSwiftOnly, linked with an export list that exports the engine's table
//            and none of its Swift symbols): libvow.so's C entry points reach the
//            program's copy, but the component's Swift code binds to libvow.so's Swift
//            engine, so libvow.so's copy is in use too: two engines, told when the
//            component loads, every crossing handle refused (`two`);
//   OneHost  (the products vow and VowTesting, as a package lists them): the program
//            exports what libvow.so defines, the component's Swift code binds to the
//            program's copy and libvow.so's copy is dormant: one engine, every handle
//            crosses (`one`).
//
// Usage: Host PLUGIN.so one|two

import Glibc
import Vow

let arguments = CommandLine.arguments
guard arguments.count == 3, let library = dlopen(arguments[1], RTLD_NOW) else {
    fatalError("usage: Host PLUGIN.so one|two (dlopen: \(String(cString: dlerror())))")
}
let oneEngine = arguments[2] == "one"

typealias MadeHere = @convention(c) (Int64) -> OpaquePointer?
typealias Double = @convention(c) (OpaquePointer?) -> OpaquePointer?
let madeHere = unsafeBitCast(dlsym(library, "plugin_made_here"), to: MadeHere.self)
let double = unsafeBitCast(dlsym(library, "plugin_double"), to: Double.self)

// A promise of the component's Swift code, handed to this program's copy.
let theirs = madeHere(21)
let received = AnyPromise(unsafeHandle: theirs)
print("AnyPromise(unsafeHandle: a promise of the component): \(received == nil ? "refused" : "ACCEPTED")")

// A promise of this program's copy, handed to the component's Swift code.
let ours = AnyPromise(Promise<Int>.value(7)).unsafeRetainedHandle()
let doubled = double(ours)
print("plugin_double(a promise of the program): \(doubled == nil ? "refused" : "ACCEPTED")")

var ok: Bool
if oneEngine {
    let same = try? received.map { try Promise<Int>($0).wait() }
    let twice = try? AnyPromise(unsafeHandle: doubled).map { try Promise<Int>($0).wait() }
    print("one engine: the component's 21 read here is \(same.map(String.init) ?? "nil"), "
        + "7 doubled by the component is \(twice.map(String.init) ?? "nil")")
    ok = same == 21 && twice == 14
} else {
    ok = received == nil && doubled == nil
}
exit(ok ? 0 : 1)
