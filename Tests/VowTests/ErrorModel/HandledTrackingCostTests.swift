import Testing
@testable import Vow

extension ErrorModel {
    /// Rule 6: what tracking "handled" costs. The tracking is one flag set when a handler
    /// is attached (under the lock `attach` takes anyway) and one check in `Core.deinit`
    /// (is the state `.rejected` and are both flags clear?). These tests time whole
    /// chains to put a per-link figure beside that, and print it.
    @Suite struct HandledTrackingCostTests {
        static func nanosecondsPerLink(_ duration: Duration, _ links: Int) -> Double {
            let (seconds, attoseconds) = duration.components
            return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(links)
        }

        static var buildKind: String {
            #if DEBUG
            return "debug build"
            #else
            return "release build"
            #endif
        }

        @Test func fulfilledChainOf200000Links() {
            let links = ErrorModel.scaled(200_000)
            let clock = ContinuousClock()
            let start = clock.now
            var tail = Promise<Int>.value(0)
            for _ in 0..<links { tail = tail.then { $0 + 1 } }
            let value = ErrorModel.value(of: tail, within: 120)
            let elapsed = clock.now - start
            #expect(value == links)
            print("ErrorModel cost: \(links) `then` links on a resolved promise, built and run: "
                  + "\(elapsed), \(Self.nanosecondsPerLink(elapsed, links)) ns per link (\(Self.buildKind))")
        }

        @Test func rejectedChainOf200000LinksReportsOnlyItsEnd() {
            // Every link is rejected and goes through the deinit check with the state
            // `.rejected`: the path where the check does the most work.
            let links = ErrorModel.scaled(200_000)
            let clock = ContinuousClock()
            let start = clock.now
            var tail = Promise<Int>(error: TokenError("cost"))
            for _ in 0..<links { tail = tail.then { $0 + 1 } }
            let error = ErrorModel.error(of: tail, within: 120)
            let elapsed = clock.now - start
            #expect(error.flatMap(ErrorModel.token(of:)) == "cost")
            print("ErrorModel cost: \(links) `then` links passing a rejection on, built and run: "
                  + "\(elapsed), \(Self.nanosecondsPerLink(elapsed, links)) ns per link (\(Self.buildKind))")
        }
    }
}
