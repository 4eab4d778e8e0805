import Dispatch
import Vow

/// The workloads on Vow's Swift API, with callbacks on `.inline` or on `.default` (the
/// library's serial queue).
enum VowWorkloads {
    static func trial(_ workload: Workload, inline: Bool, ops: Int) throws(Skip) -> Trial {
        let on: any Dispatcher = inline ? .inline : .default
        switch workload {
        case .createThenResolve:
            var result = 0
            return Trial(run: {
                var last: Promise<Int>?
                for _ in 0..<ops {
                    let (promise, resolver) = Promise<Int>.pending()
                    last = promise.then(on: on) { $0 + 1 }
                    resolver.fulfill(1)
                }
                // Waited for inside the measured run, as every other row does: on a queue
                // the callbacks may still be running when the loop ends.
                result = (try? last!.wait()) ?? -1
            }, finish: {
                expect(result, 2, "last handler's value")
            })

        case .chain1k:
            let chains = Swift.max(1, ops / 1_000)
            var total = 0
            return Trial(run: {
                for _ in 0..<chains {
                    var promise = Promise.value(0)
                    for _ in 0..<1_000 { promise = promise.then(on: on) { $0 + 1 } }
                    total += (try? promise.wait()) ?? -1
                }
            }, finish: {
                expect(total, chains * 1_000, "sum of chain ends")
            })

        case .fanIn:
            // `when` takes no dispatcher: one row, under .default.
            guard !inline else { throw .notApplicable }
            var result = 0
            return Trial(run: {
                var promises: [Promise<Int>] = []
                promises.reserveCapacity(ops)
                for _ in 0..<ops { promises.append(.value(1)) }
                result = (try? when(fulfilled: promises).wait())?.count ?? -1
            }, finish: {
                expect(result, ops, "values in the fan-in")
            })

        case .fanInPending:
            guard !inline else { throw .notApplicable }
            var result = 0
            return Trial(run: {
                var promises: [Promise<Int>] = []
                var resolvers: [Resolver<Int>] = []
                promises.reserveCapacity(ops)
                resolvers.reserveCapacity(ops)
                for _ in 0..<ops {
                    let (promise, resolver) = Promise<Int>.pending()
                    promises.append(promise)
                    resolvers.append(resolver)
                }
                let all = when(fulfilled: promises)
                for resolver in resolvers { resolver.fulfill(1) }
                result = (try? all.wait())?.count ?? -1
            }, finish: {
                expect(result, ops, "values in the fan-in")
            })

        case .deepChain:
            var result = 0
            return Trial(run: {
                let (head, resolver) = Promise<Int>.pending()
                var last = head
                for _ in 0..<ops { last = last.then(on: on) { $0 + 1 } }
                resolver.fulfill(0)
                result = (try? last.wait()) ?? -1
            }, finish: {
                expect(result, ops, "chain end")
            })

        case .hop:
            guard !inline else { throw .notApplicable }
            var resolvers: [Resolver<Int>] = []
            var ends: [Promise<Int>] = []
            resolvers.reserveCapacity(ops)
            ends.reserveCapacity(ops)
            for _ in 0..<ops {
                let (promise, resolver) = Promise<Int>.pending()
                resolvers.append(resolver)
                ends.append(promise.then(on: on) { $0 + 1 })
            }
            let settlers = UncheckedBox(resolvers)
            var result = 0
            return Trial(run: {
                let thread = DispatchQueue(label: "bench.resolver")
                thread.async { for resolver in settlers.value { resolver.fulfill(1) } }
                result = (try? ends.last!.wait()) ?? -1
            }, finish: {
                expect(result, 2, "last handler's value")
            })
        }
    }
}

/// Hands a value to another thread that uses it alone while the sender waits.
struct UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked: the sending thread does not touch `value` until the receiver is done.
    let value: Value
    init(_ value: Value) { self.value = value }
}
