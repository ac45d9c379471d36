import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// The cost of running a plugin in its unit worker instead of in the host process
/// (docs/probe.md §3), measured by `swift run -c release IsolationBench PLUGIN.so`: the
/// calibration graph and a whole int_hyper decode, each run alternately in process and
/// through the worker in the same run, medians compared. A benchmark, not a test.
public enum IsolationBenchmark {
    /// Prepares each graph once per side and reuses it, as BackendHost does.
    final class CachedRunner: GraphRunner {
        let unit: any GraphUnit
        let name: String
        private var prepared: [(IntegerGraph, any PreparedGraphRun)] = []
        init(_ unit: any GraphUnit, name: String) { self.unit = unit; self.name = name }

        func run(_ graph: IntegerGraph, inputs: [TensorValue]) throws -> (outputs: [TensorValue], report: RunReport) {
            let p: any PreparedGraphRun
            if let hit = prepared.first(where: { $0.0 == graph }) { p = hit.1 } else {
                p = try unit.prepare(graph)
                prepared.append((graph, p))
            }
            return (try p.run(inputs), RunReport(unit: .cpu, ref: .unit(backend: name, index: 0), device: "", driver: "", dispatch: .forced,
                                                  reason: "benchmark", rank: nil))
        }
    }

    public static func run(plugin path: String, worker: String, runs: Int, width: Int, height: Int,
                           n: Int, m: Int, modelDirectory: String) throws -> String {
        let plugin = try BackendPlugin.load(path: path)
        let local = CachedRunner(InProcessUnit(plugin: plugin, unit: 0), name: "in-process")
        let pool = WorkerPool(executable: worker)
        let isolated = CachedRunner(WorkerUnit(worker: pool.worker(for: path, sha256: nil), unit: 0, timeout: 600),
                                    name: "unit worker")
        var lines: [String] = []

        // The fixed cost of one request: a 1-element graph, where copying costs nothing.
        var tiny = GraphBuilder()
        let x = tiny.input("x", Shape(1, 1, 1), storage: .wide, interval: Interval(lo: -10, hi: 10))
        let y = try tiny.clamp(x, lo: -5, hi: 5)
        let tinyGraph = try tiny.build(outputs: [y])
        let tinyInput = [TensorValue(shape: Shape(1, 1, 1), values: [7])]
        let (t0, t1) = try alternate(runs: 2000, local, isolated) { r in _ = try r.run(tinyGraph, inputs: tinyInput) }
        lines.append(row("one request (1-element graph)", t0, t1))

        let c = try ProbeSuite.calibration()
        let (inProcess, inWorker) = try alternate(runs: max(runs, 20), local, isolated) { r in
            _ = try r.run(c.graph, inputs: c.inputs)
        }
        lines.append(row("calibration graph \(c.name)", inProcess, inWorker))

        try SampleModelGenerator.generate(seed: 1, n: n, m: m).write(to: modelDirectory)
        let set = try IntHyperModelSet.load(directory: modelDirectory, needsAnalysis: true)
        let picture = try SamplePicture.make(width: width, height: height)
        let (bytes, _) = try IntHyperCodec.encode(picture, modelSet: set, runner: local, envelope: true)
        let reference = try IntHyperCodec.decode(bytes, modelSet: set, runner: local).image
        let (d0, d1) = try alternate(runs: runs, local, isolated) { r in
            let got = try IntHyperCodec.decode(bytes, modelSet: set, runner: r).image
            guard got == reference else { throw WorkerError.refused("\(r.name): decoded picture differs") }
        }
        lines.append(row("int_hyper decode \(width)×\(height), N=\(n) M=\(m)", d0, d1))
        return lines.joined(separator: "\n")
    }

    /// One warm-up each, then `runs` rounds of in-process then worker; the medians.
    static func alternate(runs: Int, _ a: CachedRunner, _ b: CachedRunner,
                          _ body: (CachedRunner) throws -> Void) throws -> (Timing, Timing) {
        try body(a); try body(b)
        var ta: [Double] = [], tb: [Double] = []
        for _ in 0..<runs {
            for (r, k) in [(a, 0), (b, 1)] {
                let t0 = monotonicSeconds()
                try body(r)
                let dt = (monotonicSeconds() - t0) * 1000
                if k == 0 { ta.append(dt) } else { tb.append(dt) }
            }
        }
        return (Timing(ta), Timing(tb))
    }

    struct Timing {
        var median: Double
        var min: Double
        init(_ v: [Double]) { median = v.median ?? 0; self.min = v.min() ?? 0 }
    }

    static func row(_ what: String, _ a: Timing, _ b: Timing) -> String {
        func f(_ x: Double) -> String { let r = (x * 1000).rounded() / 1000; return "\(r)" }
        func pct(_ x: Double, _ y: Double) -> String { f(((y - x) / x * 10000).rounded() / 100) + "%" }
        return "\(what): in process \(f(a.median)) ms (min \(f(a.min))), through the unit worker \(f(b.median)) ms (min \(f(b.min)));"
            + " difference of medians \(f(b.median - a.median)) ms = \(pct(a.median, b.median)), of minima \(f(b.min - a.min)) ms = \(pct(a.min, b.min))"
    }
}
