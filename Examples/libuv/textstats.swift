// textstats.swift: the Swift step of the libuv example (declared for C in textstats.h).
//
//   vow_promise *text_stats(vow_promise *text);
//
// C hands in the promise of what it read from a socket; Swift continues the chain with a
// typed step on the background pool (off the loop thread, so the loop keeps serving I/O)
// and hands back a promise that C chains on with vow_then. A Swift tuple reaches C as a LIST.

import Vow

@_cdecl("text_stats")
public func textStats(_ text: OpaquePointer?) -> OpaquePointer? {
    guard let input = AnyPromise(unsafeHandle: text) else { return nil }   // retains C's promise
    let stats = Promise<[UInt8]>(input)                                     // BYTES are [UInt8]
        .map(on: .background) { bytes in count(String(decoding: bytes, as: UTF8.self)) }
    return AnyPromise(stats).unsafeRetainedHandle()                          // +1 for C
}

/// Lines, words, and the longest word (the first of the longest).
private func count(_ text: String) -> (Int, Int, String) {
    let lines = text.split(separator: "\n").count
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        .map { $0.filter { $0.isLetter || $0 == "'" } }
        .filter { !$0.isEmpty }
    let longest = words.reduce("") { $1.count > $0.count ? String($1) : $0 }
    return (lines, words.count, longest)
}
