// filewords.swift: the Swift component of the libuv-files example (declared for C in
// filewords.h).
//
//   vow_promise *file_words(vow_promise *bytes);
//
// C hands in the promise of a file's bytes (read on libuv's thread pool); Swift continues the
// chain with a typed step on Vow's background pool, off the loop thread, and hands back the
// promise of the word count. An error thrown here reaches C as a vow_error whose domain is
// the error's type name.

import Vow

/// Why a file could not be counted. In C: domain "TextError", code the raw value, message
/// the case's name.
enum TextError: Int, Error {
    case notUTF8 = 1
}

@_cdecl("file_words")
public func fileWords(_ bytes: OpaquePointer?) -> OpaquePointer? {
    guard let input = AnyPromise(unsafeHandle: bytes) else { return nil }   // retains C's promise
    let words = Promise<[UInt8]>(input).map(on: .background) { bytes in try countWords(bytes) }
    return AnyPromise(words).unsafeRetainedHandle()                          // +1 for C
}

/// The number of words: runs of letters, digits and apostrophes.
private func countWords(_ bytes: [UInt8]) throws -> Int {
    guard let text = String(validating: bytes, as: UTF8.self) else { throw TextError.notUTF8 }
    var count = 0
    var inWord = false
    for character in text {
        let wordy = character.isLetter || character.isNumber || character == "'"
        if wordy && !inWord { count += 1 }
        inWord = wordy
    }
    return count
}
