/// Speed for ranking, measured by the host around runs of the calibration graph through
/// the units' workers (docs/probe.md §4): each unit prepared and given one warm-up run, then
/// timed runs **in turns** — one run of each unit still timing, round after round — until
/// each has at least 3 timed runs and 0.1 s of them (at most 50); one timed run for a unit
/// whose warm-up alone took that long. The median ranks. Taking turns matters: on a shared
/// or virtual machine the first tens of milliseconds after the exactness probe are often
/// slower (other workers' threads winding down, idle vCPUs being woken), and timing units
/// one after another gave that to whichever came first — enough to rank a path 1.3× faster
/// second. Every run's outputs are compared with the reference: a unit that is fast and
/// wrong is rejected, not ranked.
enum WorkerTiming {
    static let stage = VerdictStage.calibration
    /// Seconds of timed runs per unit: every unit gets this much, so this, times the number
    /// of units, is part of every cold probe.
    static let budget = 0.1
    static let maximumRuns = 50

    struct Wrong: Error { var mismatch: ProbeMismatch }

    /// One unit alone: its speed, or the error its timing ended with.
    static func measure(_ unit: any GraphUnit, _ c: ProbeCase, expected: [TensorValue]) throws -> ProbeSpeed {
        try measure([unit], c, expected: expected)[0].get()
    }

    /// Each unit's speed, or the error that ended its timing (`Wrong` for a mismatch), in
    /// the order given. A unit that fails leaves the others' turns as they were.
    static func measure(_ units: [any GraphUnit], _ c: ProbeCase, expected: [TensorValue]) -> [Result<ProbeSpeed, any Error>] {
        var timing: [Timing] = units.map { unit in
            do { return Timing(try warmUp(unit, c, expected)) } catch { return Timing(failure: error) }
        }
        while true {
            let turn = timing.indices.filter { timing[$0].wantsAnotherRun }
            if turn.isEmpty { break }
            for i in turn {
                do {
                    // Units of one plugin share its worker: when another unit's run took the
                    // worker down (a crash, a time-out), this graph went with it, and the
                    // crash is not this unit's. Prepare it again in the restarted worker.
                    if let prepared = timing[i].prepared, !prepared.isUsable {
                        timing[i].prepared = try warmUp(units[i], c, expected).prepared
                    }
                    guard let prepared = timing[i].prepared else { continue }
                    let t0 = monotonicSeconds()
                    let got = try prepared.run(c.inputs)
                    timing[i].times.append(monotonicSeconds() - t0)
                    try check(got, c, expected, run: timing[i].times.count)
                } catch {
                    timing[i].failure = error
                }
            }
        }
        return timing.map { t in
            if let failure = t.failure { return .failure(failure) }
            let median = t.times.median ?? 0
            let safe = max(median, 1e-9)
            return .success(ProbeSpeed(runsPerSecond: 1 / safe, medianMilliseconds: median * 1000, runs: t.times.count, graph: c.name))
        }
    }

    /// Prepares the graph and runs it once, checked; how many timed runs it needs at least.
    private static func warmUp(_ unit: any GraphUnit, _ c: ProbeCase, _ expected: [TensorValue]) throws
        -> (prepared: any PreparedGraphRun, least: Int) {
        let prepared = try unit.prepare(c.graph)
        let warm = monotonicSeconds()
        try check(try prepared.run(c.inputs), c, expected, run: 0)
        // A unit this slow is ranked as well by one run as by three: its place among the
        // others does not hang on a few percent.
        return (prepared, monotonicSeconds() - warm >= budget ? 1 : 3)
    }

    private struct Timing {
        var prepared: (any PreparedGraphRun)?
        var least = 3
        var times: [Double] = []
        var failure: (any Error)?

        init(_ warm: (prepared: any PreparedGraphRun, least: Int)) { prepared = warm.prepared; least = warm.least }
        init(failure: any Error) { self.failure = failure }

        var wantsAnotherRun: Bool {
            guard failure == nil, prepared != nil else { return false }
            return times.count < least || (times.count < maximumRuns && times.reduce(0, +) < budget)
        }
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
