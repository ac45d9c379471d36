import WaiHost

enum RunGraphCommand: Command {
    static let name = "run-graph"
    static let summary = "run a .whm model graph on the selected unit with seeded inputs"
    static let help = """
        usage: waihost run-graph MODEL.whm|--calibration [--unit SEL] [--input-seed N] [--runs K]
                                 [--json] [--plugin-dir DIR]...

        Loads the model (its certificate is verified), fills every graph input with
        values drawn from a seeded generator inside the input's declared interval (the
        input contract), runs the graph on the selected unit and prints the run report
        (unit, backend, device, dispatch, reason) and the SHA-256 of the outputs. The
        hash is the same whichever unit ran.

          --unit SEL         best (default), reference, cpu, gpu, other, NAME or NAME:INDEX
          --input-seed N     seed of the input generator (default 1)
          --calibration      run the probe's calibration graph with its fixed inputs
                             instead of a model (docs/probe.md, "Ranking")
          --runs K           after one warm-up, time K runs and report the median (default:
                             one run, no warm-up); compare units by running this per unit
          --json             print one JSON object instead
        \(HostOptions.help)

        Exit status: 0 when the graph ran, 1 on an error (unreadable or refused model,
        unknown unit, run failure), 2 on a usage error.
        """

    struct Result: Encodable {
        var model: String
        var seed: UInt64
        var report: RunReport
        var outputs: [OutputHash]
        var outputsSHA256: String
        var elapsedMs: Double
        var runs: Int
        enum CodingKeys: String, CodingKey {
            case model, seed, report, outputs, outputsSHA256 = "outputs_sha256", elapsedMs = "elapsed_ms", runs
        }
    }

    struct OutputHash: Encodable {
        var tensor: String
        var shape: [Int]
        var sha256: String
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        var model: String?
        var selection = UnitSelection.best
        var seed: UInt64 = 1
        var json = false, calibration = false
        var runs = 0
        var options = HostOptions()
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--unit": selection = try UnitSelection(parsing: try args.value(for: a))
            case "--calibration": calibration = true
            case "--runs":
                let v = try args.value(for: a)
                guard let k = Int(v), (1...10_000).contains(k) else { throw UsageError(message: "--runs needs an integer in 1…10000, got \(v)") }
                runs = k
            case "--input-seed":
                let v = try args.value(for: a)
                guard let s = UInt64(v) else { throw UsageError(message: "--input-seed needs a non-negative integer, got \(v)") }
                seed = s
            case "--json": json = true
            default:
                if try options.parse(a, &args) { continue }
                guard !a.hasPrefix("-"), model == nil else { throw UsageError(message: "unknown argument \(a)") }
                model = a
            }
        }
        guard (model == nil) != !calibration else {
            throw UsageError(message: "run-graph needs a MODEL.whm or --calibration (one of them)")
        }

        let graph: IntegerGraph, inputs: [TensorValue], name: String
        if let model {
            graph = try ModelContainer.load(path: model)
            inputs = seededInputs(graph, seed: seed)
            name = model
        } else {
            let c = try ProbeSuite.calibration()
            (graph, inputs, name) = (c.graph, c.inputs, "calibration:" + c.name)
        }
        let host = BackendHost(configuration: options.configuration())
        if runs > 0 { _ = try host.run(graph, inputs: inputs, on: selection) }   // warm-up: prepare, caches
        var outputs: [TensorValue] = [], report: RunReport?
        var times: [Double] = []
        for _ in 0..<max(runs, 1) {
            let start = monotonicMs()
            (outputs, report) = try host.run(graph, inputs: inputs, on: selection)
            times.append(monotonicMs() - start)
        }
        guard let report else { return ExitCode.failure }
        times.sort()
        let elapsed = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2

        var all: [UInt8] = []
        var hashes: [OutputHash] = []
        for (k, o) in outputs.enumerated() {
            let bytes = littleEndianBytes(o.values)
            all += bytes
            let spec = graph.tensors[graph.outputs[k]]
            hashes.append(OutputHash(tensor: spec.name, shape: [o.shape.channels, o.shape.height, o.shape.width],
                                     sha256: SHA256.hex(bytes)))
        }
        let result = Result(model: name, seed: seed, report: report, outputs: hashes,
                            outputsSHA256: SHA256.hex(all), elapsedMs: elapsed, runs: times.count)
        if json {
            Output.out(try JSON.text(result))
        } else {
            Output.out("unit:     \(report.unit)")
            Output.out("backend:  \(report.backend)")
            Output.out("device:   \(report.device)")
            Output.out("driver:   \(report.driver)")
            Output.out("dispatch: \(report.dispatch)\(report.rank.map { " (rank \($0))" } ?? "")")
            Output.out("reason:   \(report.reason)")
            for h in hashes { Output.out("output \(h.tensor) \(h.shape.map(String.init).joined(separator: "×")): sha256 \(h.sha256)") }
            Output.out("outputs sha256: \(result.outputsSHA256)")
            Output.out("elapsed: \(Double(Int(elapsed * 100)) / 100) ms" + (runs > 0 ? " (median of \(runs) runs after a warm-up)" : ""))
        }
        return ExitCode.ok
    }

    /// Every input's values uniform in its declared interval: inside the input contract
    /// by construction, and the same for a given seed on every host.
    static func seededInputs(_ graph: IntegerGraph, seed: UInt64) -> [TensorValue] {
        var rng = SplitMix64(seed: seed)
        return graph.inputs.map { t in
            let spec = graph.tensors[t]
            return TensorValue(shape: spec.shape,
                               values: (0..<spec.shape.count).map { _ in Int32(rng.int(spec.interval.lo, spec.interval.hi)) })
        }
    }

    /// The outputs as hashed: int32 little-endian, CHW, outputs in graph order.
    static func littleEndianBytes(_ values: [Int32]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(values.count * 4)
        for v in values {
            let u = UInt32(bitPattern: v)
            bytes += [UInt8(u & 0xff), UInt8((u >> 8) & 0xff), UInt8((u >> 16) & 0xff), UInt8(u >> 24)]
        }
        return bytes
    }
}
