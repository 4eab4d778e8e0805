// TwinAppMain.swift (copied as main.swift by scripts/check-two-engines.sh): a Swift program built the wrong way on purpose, with a copy of the engine
// of its own (the SwiftPM product VowSwiftOnly), that loads the installed libvow.so later
// with dlopen (as a program that loads a plugin built on vow.h does). The copy in the
// program exports no symbol; the one in libvow.so must still find it when it loads, and
// each must refuse the other's handles. Run by scripts/check-two-engines.sh with the path of
// libvow.so.

import Glibc
import Vow

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "libvow.so"
guard let library = dlopen(path, RTLD_NOW) else { fatalError("dlopen \(path): \(String(cString: dlerror()))") }

typealias PromisePending = @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?
typealias PromiseState = @convention(c) (OpaquePointer?) -> Int32
let promisePending = unsafeBitCast(dlsym(library, "vow_promise_pending"), to: PromisePending.self)
let promiseState = unsafeBitCast(dlsym(library, "vow_promise_state"), to: PromiseState.self)

// A promise of libvow.so, handed to this program's copy.
var resolver: OpaquePointer?
let theirs = promisePending(&resolver)
print("AnyPromise(unsafeHandle: a promise of libvow.so): \(AnyPromise(unsafeHandle: theirs) == nil ? "nil" : "ACCEPTED")")

// A promise of this program's copy, handed to libvow.so: refused, vow_promise_state
// answers as for NULL (VOW_STATE_INVALID).
let ours = AnyPromise.value(7)
let handle = ours.unsafeRetainedHandle()
let state = promiseState(handle)
print("vow_promise_state(a promise of the program's copy): \(state == promiseState(nil) ? "refused" : "ACCEPTED (\(state))")")
