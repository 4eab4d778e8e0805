// main.swift: a Swift program that uses a C library built on vow.h.
//
// The library (clib/tally.h) returns promises made in C and chains on promises it is
// given. The program continues the C promise in Swift and hands the result back to C:
// both sides link the installed libvow.so, so there is one engine in the process and a
// promise is the same object on both sides.

import CTally
import Vow

let numbers: [Int64] = [3, 5, 7, 11, 13]

// A promise made by the C library (+1: released once Swift holds its own reference).
let cSum = numbers.withUnsafeBufferPointer { tally_sum_later($0.baseAddress, $0.count) }
guard let sum = AnyPromise(unsafeHandle: cSum) else { fatalError("the C library's promise was refused") }
vow_promise_release(cSum)

// Continued in Swift ...
let doubled = Promise<Int>(sum).map { $0 * 2 }

// ... and handed back to C, which chains on it.
let handed = AnyPromise(doubled).unsafeRetainedHandle()   // +1: released once C chained on it
let cText = tally_describe(handed)
vow_promise_release(handed)
guard let text = AnyPromise(unsafeHandle: cText) else { fatalError("the C library's promise was refused") }
vow_promise_release(cText)

do {
    print("Swift doubled the C library's sum: \(try doubled.wait())")
    print("the C library describes it: \(try Promise<String>(text).wait())")
} catch {
    print("failed: \(error)")
}
