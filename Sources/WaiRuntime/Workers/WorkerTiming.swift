/// Speed for ranking, measured by the host around runs of the calibration graph through
/// the unit's worker (docs/probe.md §4): one warm-up run, then at least 3 timed runs and
/// until 0.1 s have passed (at most 50) — one timed run when the warm-up alone took that
/// long; the median ranks. Every run's outputs are compared with the reference: a unit
/// that is fast and wrong is rejected, not ranked.
enum WorkerTiming {
    static let stage = VerdictStage.calibration
    /// Seconds of timed runs per unit: units are timed one after another, so this, times
    /// the number of units, is part of every cold probe.
    static let budget = 0.1

    struct Wrong: Error { var mismatch: ProbeMismatch }

    static func measure(_ unit: any GraphUnit, _ c: ProbeCase, expected: [TensorValue]) throws -> ProbeSpeed {
        let prepared = try unit.prepare(c.graph)
        let warm = monotonicSeconds()
        try check(try prepared.run(c.inputs), c, expected, run: 0)
        // A unit this slow is ranked as well by one run as by three: its place among the
        // others does not hang on a few percent.
        let least = monotonicSeconds() - warm >= budget ? 1 : 3
        var times: [Double] = []
        let start = monotonicSeconds()
        while times.count < least || (times.count < 50 && monotonicSeconds() - start < budget) {
            let t0 = monotonicSeconds()
            let got = try prepared.run(c.inputs)
            times.append(monotonicSeconds() - t0)
            try check(got, c, expected, run: times.count)
        }
        times.sort()
        let median = times.count % 2 == 1 ? times[times.count / 2]
                                          : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        let safe = max(median, 1e-9)
        return ProbeSpeed(runsPerSecond: 1 / safe, medianMilliseconds: median * 1000, runs: times.count, graph: c.name)
    }

    private static func check(_ got: [TensorValue], _ c: ProbeCase, _ expected: [TensorValue], run: Int) throws {
        guard got.count == expected.count else {
            throw Wrong(mismatch: mismatch(c, output: 0, index: 0, expected: 0, got: 0, run: run,
                                           note: "\(got.count) outputs, expected \(expected.count)"))
        }
        for (k, (e, g)) in zip(expected, got).enumerated() {
            guard g.shape == e.shape, g.values.count == e.values.count else {
                throw Wrong(mismatch: mismatch(c, output: k, index: 0, expected: 0, got: 0, run: run,
                                               note: "shape \(g.shape), expected \(e.shape)"))
            }
            if let i = ExactnessProbe.firstDifference(e.values, g.values) {
                throw Wrong(mismatch: mismatch(c, output: k, index: i, expected: e.values[i], got: g.values[i], run: run, note: nil))
            }
        }
    }

    private static func mismatch(_ c: ProbeCase, output k: Int, index i: Int, expected: Int32, got: Int32,
                                 run: Int, note: String?) -> ProbeMismatch {
        let graph = c.graph
        let t = graph.outputs[min(k, graph.outputs.count - 1)]
        let spec = graph.tensors[t]
        let node = graph.nodes.firstIndex { $0.output == t } ?? -1
        let plane = max(spec.shape.height * spec.shape.width, 1)
        let what = run == 0 ? "warm-up run" : "timed run \(run)"
        return ProbeMismatch(stage: stage, graph: c.name + " (\(what)" + (note.map { ", \($0)" } ?? "") + ")",
                             op: MismatchSite(tensor: t, in: graph), node: node, tensor: spec.name,
                             index: i, channel: i / plane, y: (i % plane) / max(spec.shape.width, 1),
                             x: i % max(spec.shape.width, 1), expected: expected, got: got)
    }
}
