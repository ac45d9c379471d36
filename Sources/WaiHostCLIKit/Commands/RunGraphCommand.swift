import WaiSupport
import WaiHost

enum RunGraphCommand: Command {
    static let spec = CommandSpec(
        name: "run-graph",
        summary: "run a .whm model graph on the selected unit with seeded inputs",
        synopsis: ["MODEL.whm|--calibration [--unit SEL] [--input-seed N] [--runs K] [--json] [--plugin-dir DIR]..."],
        description: """
            Loads the model (its certificate is verified), fills every graph input with values drawn from a \
            seeded generator inside the input's declared interval (the input contract), runs the graph on the \
            selected unit and prints the run report (unit, backend, device, dispatch, reason) and the SHA-256 \
            of the outputs. The hash is the same whichever unit ran. It probes first (using the cache).
            """,
        positionals: [PositionalSpec("MODEL.whm", help: "the model container (docs/model-container.md), or - for standard input", optional: true,
                                     completion: .file(["whm"]))],
        options: [
            CodecOptions.unit,
            .value("input-seed", "N", help: "seed of the input generator (default 1)"),
            .flag("calibration", help: "run the probe's calibration graph with its fixed inputs instead of a model (docs/probe.md, \"Ranking\")"),
            .value("runs", "K", help: "after one warm-up, time K runs and report the median (default: one run, no warm-up)"),
            CommonOptions.json,
        ] + HostOptions.options)

    struct Options: Equatable {
        var model: String?
        var selection: UnitSelection
        var seed: UInt64
        var runs: Int
        var json: Bool
        var host: HostOptions
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        let model = p.positionals.first
        guard (model == nil) == p.flag("calibration") else {
            throw p.error("give a MODEL.whm or --calibration (one of them)")
        }
        return Options(model: model, selection: try CodecOptions.selection(p) ?? .best,
                       seed: try p.uint64("input-seed") ?? 1, runs: try p.int("runs", in: 1...10_000) ?? 0,
                       json: p.flag("json"), host: try HostOptions(p))
    }

    struct Result: Encodable {
        var model: String
        var seed: UInt64
        var report: RunReport
        var outputs: [OutputHash]
        var outputsSHA256: String
        var elapsedMs: Double
        var runs: Int
        /// The unit's index and device identity, beside the library's report.
        var identity: UnitIdentity
        enum CodingKeys: String, CodingKey {
            case model, seed, report, outputs, outputsSHA256 = "outputs_sha256", elapsedMs = "elapsed_ms", runs
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(model, forKey: .model)
            try c.encode(seed, forKey: .seed)
            try c.encode(Merged(base: report, extra: identity), forKey: .report)
            try c.encode(outputs, forKey: .outputs)
            try c.encode(outputsSHA256, forKey: .outputsSHA256)
            try c.encode(elapsedMs, forKey: .elapsedMs)
            try c.encode(runs, forKey: .runs)
        }
    }

    struct OutputHash: Encodable {
        var tensor: String
        var shape: [Int]
        var sha256: String
    }

    static func run(_ o: Options) throws -> Int32 {
        let (selection, seed, runs, json, options) = (o.selection, o.seed, o.runs, o.json, o.host)
        let graph: IntegerGraph, inputs: [TensorValue], name: String
        if let model = o.model {
            graph = model == "-" ? try ModelContainer.decode(try LocalFile.readStandardInput(limit: 1 << 30), source: "standard input")
                                 : try ModelContainer.load(path: model)
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
            let start = monotonicMilliseconds()
            (outputs, report) = try host.run(graph, inputs: inputs, on: selection)
            times.append(monotonicMilliseconds() - start)
        }
        guard let report else { return ExitCode.failure }
        let elapsed = times.median ?? 0

        var all: [UInt8] = []
        var hashes: [OutputHash] = []
        for (k, o) in outputs.enumerated() {
            // The outputs as hashed: int32 little-endian, CHW, outputs in graph order.
            let bytes = Int32LE.bytes(o.values)
            all += bytes
            let spec = graph.tensors[graph.outputs[k]]
            hashes.append(OutputHash(tensor: spec.name, shape: [o.shape.channels, o.shape.height, o.shape.width],
                                     sha256: SHA256.hex(bytes)))
        }
        let result = Result(model: name, seed: seed, report: report, outputs: hashes,
                            outputsSHA256: SHA256.hex(all), elapsedMs: elapsed, runs: times.count,
                            identity: UnitIdentity(report))
        if json {
            Output.out(try JSON.report(result, schema: .runGraph))
        } else {
            Output.out("unit:     \(report.unit)" + (result.identity.unitIndex.map { " (\(result.identity.selector), unit \($0))" } ?? ""))
            Output.out("backend:  \(report.backend)")
            Output.out("device:   \(report.device)" + (result.identity.deviceIdentity?.text.map { ", " + $0 } ?? ""))
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
}
