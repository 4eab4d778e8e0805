import Dispatch

/// The workloads on the bare box (see `Box`).
enum BoxWorkloads {
    /// One queue for every queued-mode trial, as Vow has one default queue.
    static let queue = BoxQueue(label: "bench.box")

    static func trial(_ workload: Workload, queued: Bool, ops: Int) throws(Skip) -> Trial {
        let queue: BoxQueue? = queued ? Self.queue : nil
        switch workload {
        case .createThenResolve:
            var result = 0
            return Trial(run: {
                var last: Box?
                for _ in 0..<ops {
                    let box = Box(queue: queue)
                    last = box.then { $0 + 1 }
                    box.resolve(1)
                }
                // Waited for inside the measured run, as every other row does.
                result = last!.wait()
            }, finish: {
                expect(result, 2, "last handler's value")
            })

        case .chain1k:
            let chains = Swift.max(1, ops / 1_000)
            var total = 0
            return Trial(run: {
                for _ in 0..<chains {
                    var box = Box(value: 0, queue: queue)
                    for _ in 0..<1_000 { box = box.then { $0 + 1 } }
                    total += box.wait()
                }
            }, finish: {
                expect(total, chains * 1_000, "sum of chain ends")
            })

        case .fanIn:
            var result = 0
            return Trial(run: {
                var boxes: [Box] = []
                boxes.reserveCapacity(ops)
                for _ in 0..<ops { boxes.append(Box(value: 1, queue: queue)) }
                result = Box.all(boxes, queue: queue).wait()
            }, finish: {
                expect(result, ops, "sum of inputs")
            })

        case .fanInPending:
            var result = 0
            return Trial(run: {
                var boxes: [Box] = []
                boxes.reserveCapacity(ops)
                for _ in 0..<ops { boxes.append(Box(queue: queue)) }
                let all = Box.all(boxes, queue: queue)
                for box in boxes { box.resolve(1) }
                result = all.wait()
            }, finish: {
                expect(result, ops, "sum of inputs")
            })

        case .deepChain:
            guard queued else { throw .recursive }
            var result = 0
            return Trial(run: {
                let head = Box(queue: queue)
                var last = head
                for _ in 0..<ops { last = last.then { $0 + 1 } }
                head.resolve(0)
                result = last.wait()
            }, finish: {
                expect(result, ops, "chain end")
            })

        case .hop:
            guard queued else { throw .notApplicable }
            let heads = (0..<ops).map { _ in Box(queue: queue) }
            let ends = heads.map { $0.then { $0 + 1 } }
            var result = 0
            return Trial(run: {
                let resolver = DispatchQueue(label: "bench.resolver")
                resolver.async { for head in heads { head.resolve(1) } }
                result = ends.last!.wait()
            }, finish: {
                expect(result, 2, "last handler's value")
            })
        }
    }
}
