// Issue 36: the PromiseKit idioms Vow alone refused, with the compatibility layer: each
// line is PromiseKit 6/8 code, unchanged but for the import (`import PromiseKit` →
// `import VowPromiseKit`), and must type-check in Swift 6 mode with warnings as errors.
import Dispatch
import VowPromiseKit

struct Note: Sendable { let text: String }

/// PromiseKit's NotificationCenter pattern: the guarantee's resolve function is handed to
/// an API that takes a completion handler (`addObserver(..., using: fulfill)`).
final class Center: Sendable {
    func addObserver(using block: @escaping @Sendable (Note) -> Void) { block(Note(text: "n")) }
}

func observe(_ center: Center) -> Guarantee<Note> {
    let (promise, fulfill) = Guarantee<Note>.pending()
    center.addObserver(using: fulfill)
    return promise
}

func idioms(_ p: Promise<Int>, _ q: DispatchQueue, _ voids: [Promise<Void>]) throws {
    _ = p.value!                                     // p.value!
    _ = p.map(on: nil) { $0 + 1 }                    // on: nil
    after(.milliseconds(10)).done { }                // after(.milliseconds(n))
    p.ensure { print("always") }.catch { _ in }      // ensure
    p.catch { error in _ = error.isCancelled }       // error.isCancelled
    when(fulfilled: voids).done { }                  // Void-specialised when
    when(fulfilled: voids[0], voids[0]).done { _ in }
    _ = p.tap { result in                            // .fulfilled / .rejected
        switch result {
        case .fulfilled(let value): print(value)
        case .rejected(let error): print(error)
        }
    }
    if p.isResolved { print("settled") }              // isResolved
    race(fulfilled: [p, p]).done { _ in }.catch { _ in }   // race(fulfilled:)
    _ = try hang(p)                                  // hang
    Guarantee { seal in seal(1) }.done { _ in }       // Guarantee
    DispatchQueue.global().async(.promise) { 1 }.done { _ in }   // async(.promise)
    p.done(on: q, flags: .barrier) { _ in }.catch { _ in }        // flags:
    Guarantee.value([5, 2, 3]).sortedValues { $0 > $1 }.done { _ in }   // sortedValues(_:)
    p.recover { _ in .value(0) }.done { _ in }        // recover returning a Guarantee
    let (promise, seal) = Promise<Void>.pending()
    seal.fulfill_()
    _ = promise
    let error: Error = PMKError.invalidCallingConvention
    _ = [PMKError.returnedSelf, .badInput, .cancelled, .emptySequence, .noWinner,
         .compactMap(1, Int.self)].map { "\($0)" } + ["\(error)"]
    _ = PMKNamespacer.promise
    after(seconds: 1).wait()                          // a Guarantee's wait() does not throw
}
