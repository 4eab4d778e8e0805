// prices.swift: a Swift component that a C++ program (main.cpp) calls through vow.hpp.
//
// It exports four C functions (declared in prices.h):
//   vow_promise *quote_prices(vow_promise *symbols);
//   vow_promise *quote_audit(vow_promise *order);
//   vow_promise *quote_live(const char *symbol, double seconds);
//   int64_t quote_count(int which);
//
// The work is typed Swift: Promise<[String]> in, Promise<[Double]> out. The C++ program
// holds the same promises as vow::promise<std::vector<std::string>> and
// vow::promise<std::vector<double>>: a Swift array is a LIST, a String a STRING, a Double a
// DOUBLE. Built as libprices.so against the libvow.so the C++ program links (see
// Examples/run-examples.sh), so the process has one promise engine.

import Synchronization
import Vow

/// The component's own error. In C++ it arrives as a vow::error with the domain
/// "QuoteError" and this description as the message.
enum QuoteError: Error, CustomStringConvertible {
    case unknownSymbol(String)

    var description: String {
        switch self {
        case .unknownSymbol(let symbol): return "no quote for \(symbol)"
        }
    }
}

/// Counters the C++ program reads (quote_count): errors the audit step saw, live quotes
/// whose producer heard a cancellation.
private let audited = Atomic<Int>(0)
private let cancelledQuotes = Atomic<Int>(0)

/// The prices this component knows.
private func price(of symbol: String) -> Double? {
    let table: [String: Double] = ["ACME": 12.5, "GLOBEX": 40.25, "INITECH": 7.0, "UMBRELLA": 99.0]
    return table[symbol]
}

/// The price of each symbol, in order, computed on the background pool once the symbols
/// are known; an unknown symbol rejects with QuoteError.
@_cdecl("quote_prices")
public func quote_prices(_ symbols: OpaquePointer?) -> OpaquePointer? {
    // Borrow the C++ promise: AnyPromise(unsafeHandle:) retains it; C++ keeps its own reference.
    guard let input = AnyPromise(unsafeHandle: symbols) else { return nil }
    let prices = Promise<[String]>(input).map(on: .background) { symbols in
        try symbols.map { symbol in
            guard let known = price(of: symbol) else { throw QuoteError.unknownSymbol(symbol) }
            return known
        }
    }
    // A +1 reference to the same promise for C++ (vow::promise<...>::adopt takes it).
    return AnyPromise(prices).unsafeRetainedHandle()
}

/// The order's cost as it is, or its error as it is: a Swift step that catches every error,
/// counts it and throws it again. An error made in C++ (a C++ exception included) passes
/// through Swift unchanged.
@_cdecl("quote_audit")
public func quote_audit(_ order: OpaquePointer?) -> OpaquePointer? {
    guard let input = AnyPromise(unsafeHandle: order) else { return nil }
    let checked = Promise<Double>(input).recover(on: .background) { (error: any Error) throws -> Double in
        audited.add(1, ordering: .relaxed)
        throw error
    }
    return AnyPromise(checked).unsafeRetainedHandle()
}

/// A live quote that arrives after `seconds`. Cancelling it (from C++: cancel(), or a stop
/// request on a std::stop_token) reaches this producer, which stops the feed.
@_cdecl("quote_live")
public func quote_live(_ symbol: UnsafePointer<CChar>?, _ seconds: Double) -> OpaquePointer {
    let name = symbol.map { String(cString: $0) } ?? ""
    let (quote, resolver) = Promise<Double>.pending()
    resolver.onCancel { cancelledQuotes.add(1, ordering: .relaxed) }
    resolver.resolve(after(seconds: seconds).map { price(of: name) ?? 0 })
    return AnyPromise(quote).unsafeRetainedHandle()
}

/// 0: errors the audit step saw; 1: live quotes whose producer heard a cancellation.
@_cdecl("quote_count")
public func quote_count(_ which: Int32) -> Int64 {
    Int64(which == 0 ? audited.load(ordering: .relaxed) : cancelledQuotes.load(ordering: .relaxed))
}
