// WordStats.swift: a Swift component that C programs call through word_stats.h.
//
// It takes a vow_promise of a text and returns a vow_promise of its word count: the C
// program's chain goes through Swift and comes back, because the component and the
// program share one libvow.so (the installed one), hence one engine. Built with SwiftPM
// (Package.swift) or with swiftc (`pkg-config --variable=swiftflags vow`); see
// Examples/README.md.

import Vow

// C: vow_promise *word_stats_count(vow_promise *text);
@_cdecl("word_stats_count")
public func wordStatsCount(_ text: OpaquePointer?) -> OpaquePointer? {
    guard let input = AnyPromise(unsafeHandle: text) else { return nil }   // retains C's promise
    let words = Promise<String>(input).map(on: .background) { text in      // Swift, off C's thread
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).count
    }
    return AnyPromise(words).unsafeRetainedHandle()                        // +1 for C
}
