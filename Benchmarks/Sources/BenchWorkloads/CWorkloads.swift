import CVowBench

/// The workloads through Vow's C interface (Sources/CVowBench/cvowbench.c calls vow.h).
/// C links pass the value on unchanged (`vow_result_return(out, value)`), so a chain's
/// end holds the head's value, 1.
enum CWorkloads {
    /// True when the linked libvow exports the C interface.
    static var available: Bool { cvb_available() != 0 }

    static func trial(_ workload: Workload, inline: Bool, ops: Int) throws(Skip) -> Trial {
        guard available else { throw .noCInterface }
        let number: Int32
        let expected: Int
        switch workload {
        case .createThenResolve: number = 0; expected = 1
        case .chain1k: number = 1; expected = Swift.max(1, ops / 1_000)
        case .fanIn: number = 2; expected = ops
        case .fanInPending: number = 5; expected = ops
        case .deepChain: number = 3; expected = 1
        case .hop: number = 4; expected = 1
        }
        guard let trial = cvb_prepare(number, inline ? 1 : 0, ops) else { throw .notApplicable }
        return Trial(run: {
            cvb_run(trial)
        }, finish: {
            expect(cvb_finish(trial), expected, "C result")
        })
    }
}
