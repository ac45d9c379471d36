import WaiHost

enum BenchCommand: Command {
    static let spec = CommandSpec(
        name: "bench",
        summary: "time wai.neural.int_hyper decoding on a unit against the reference interpreter",
        description: """
            Encodes the synthetic picture (default 768x512) with a model set (default: the seed-1 N=128, \
            M=192 set, bmshj2018-hyperprior's sizes, generated on first use into DIR or the cache folder), \
            decodes it K times (default 3, after one warm-up) on the selected unit and once on the reference \
            interpreter, and prints the median time of entropy decoding, h_s and g_s on each and the \
            reference's time divided by the unit's. The decoded bytes must be identical. Also prints the \
            bits per pixel of the bench picture and of the sample payload (default samples/sample.wai when present).
            """,
        options: [
            .value("model", "DIR", help: "model set to use; generated there when DIR does not exist", completion: .directory),
            .value("seed", "S", help: "generator seed when the model set is generated (default 1)"),
            .value("n", "N", help: "z channels when the model set is generated (default 128)"),
            .value("m", "M", help: "y channels when the model set is generated (default 192)"),
            .value("size", "WxH", help: "picture size (default 768x512)"),
            .value("runs", "K", help: "timed decodes on the unit (default 3)"),
        ] + CodecOptions.configuredSelectionOptions + [
            .flag("no-reference", help: "skip the reference interpreter (no ratios)"),
            .value("sample", "FILE", help: "payload or envelope whose bits per pixel to report (- for standard input)", completion: .file(["wai", "payload"])),
            CommonOptions.json,
            CommonOptions.quiet,
        ] + HostOptions.options,
        exclusive: [["unit", "backend"]],
        exitStatus: [])

    struct Options {
        var model: String?
        var sample: String?
        var seed: UInt64
        var n: Int
        var m: Int
        var runs: Int
        var size: (width: Int, height: Int)
        /// nil: the configured default unit (waihost.conf), else best.
        var selection: UnitSelection?
        var reference: Bool
        var json: Bool
        var quiet: Bool
        var host: HostOptions
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        Options(model: p.value("model"), sample: p.value("sample"), seed: try p.uint64("seed") ?? 1,
                n: try p.int("n", in: SampleModelGenerator.channelRange) ?? 128,
                m: try p.int("m", in: SampleModelGenerator.channelRange) ?? 192,
                runs: try p.int("runs", in: 1...1000) ?? 3, size: try CodecOptions.size(p, "size") ?? (768, 512),
                selection: try CodecOptions.selection(p), reference: !p.flag("no-reference"),
                json: p.flag("json"), quiet: p.flag("quiet"), host: try HostOptions(p))
    }

    struct Stages: Encodable {
        var entropyMs: Double
        var hyperSynthesisMs: Double
        var synthesisMs: Double
        var totalMs: Double
        /// The spot checks (docs/probe.md §7): CPU time of their windows, and the decode's
        /// wait for them after the unit answered; nil when runs were not checked.
        var spotCheckCPUMs: Double?
        var spotCheckWaitMs: Double?
        enum CodingKeys: String, CodingKey {
            case entropyMs = "entropy_ms", hyperSynthesisMs = "h_s_ms", synthesisMs = "g_s_ms", totalMs = "total_ms"
            case spotCheckCPUMs = "spot_check_cpu_ms", spotCheckWaitMs = "spot_check_wait_ms"
        }
    }

    struct Side: Encodable {
        var unit: UnitKind
        var backend: String
        var device: String
        var dispatch: DispatchKind
        /// Why the graphs ran where they did: a unit that failed in the warm-up shows here
        /// (the timed runs then say `dispatch_unit_inexact` or `dispatch_unit_failed`).
        var reason: String
        var runs: Int
        var median: Stages
        var sha256: String
        var identity: UnitIdentity
        enum CodingKeys: String, CodingKey { case unit, backend, device, dispatch, reason, runs, median, sha256 }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(unit, forKey: .unit); try c.encode(backend, forKey: .backend)
            try c.encode(device, forKey: .device); try c.encode(dispatch, forKey: .dispatch)
            try c.encode(reason, forKey: .reason)
            try c.encode(runs, forKey: .runs); try c.encode(median, forKey: .median); try c.encode(sha256, forKey: .sha256)
            try identity.encode(to: encoder)
        }
    }

    struct Result: Encodable {
        var modelSet: String
        var n: Int
        var m: Int
        var width: Int
        var height: Int
        var payloadBytes: Int
        var bitsPerPixel: Double
        var unit: Side
        var reference: Side?
        /// Reference time ÷ unit time, per stage.
        var speedup: Stages?
        var identical: Bool?
        var sample: SampleRate?
        enum CodingKeys: String, CodingKey {
            case modelSet = "model_set", n, m, width, height, payloadBytes = "payload_bytes"
            case bitsPerPixel = "bits_per_pixel", unit, reference, speedup, identical, sample
        }
    }

    struct SampleRate: Encodable {
        var file: String
        var width: Int
        var height: Int
        var fileBytes: Int
        var payloadBytes: Int
        var bitsPerPixel: Double
        var payloadBitsPerPixel: Double
        enum CodingKeys: String, CodingKey {
            case file, width, height, fileBytes = "file_bytes", payloadBytes = "payload_bytes"
            case bitsPerPixel = "bits_per_pixel", payloadBitsPerPixel = "payload_bits_per_pixel"
        }
    }

    static func run(_ o: Options) throws -> Int32 {
        let (model, sample, seed, n, m, runs, size, reference, json) = (o.model, o.sample, o.seed, o.n, o.m, o.runs, o.size, o.reference, o.json)
        let configuration = o.host.configuration()
        let progress = Progress(enabled: !o.quiet)

        // The model set: given, or generated once and kept.
        let dir = model ?? (configuration.cacheDirectory ?? ".") + "/models/" + SampleModelGenerator.defaultName(seed: seed, n: n, m: m)
        if !LocalFile.exists(dir + "/manifest.json") {
            progress.begin("generating model set (seed \(seed), N = \(n), M = \(m)) into \(dir)")
            try SampleModelGenerator.generate(seed: seed, n: n, m: m).write(to: dir)
            progress.end()
        }
        let set = try IntHyperModelSet.load(directory: dir, needsAnalysis: true)

        let host = BackendHost(configuration: configuration)
        let sel = o.selection ?? host.configuration.defaultUnit
        if sel != .reference {
            let probeProgress = ProbeProgress(enabled: !o.quiet, progress: progress)
            _ = try host.probe(progress: probeProgress.line)
            probeProgress.finish()
        }
        let runner = HostGraphRunner(host: host, selection: sel)
        let picture = try SamplePicture.make(width: size.width, height: size.height)
        progress.begin("encoding the \(size.width)×\(size.height) picture")
        let (bytes, _) = try IntHyperCodec.encode(picture, modelSet: set, runner: runner, envelope: true)
        progress.end()

        progress.begin("decoding on \(sel) (1 warm-up + \(runs) timed)")
        progress.update(0, of: runs + 1, detail: "warm-up")
        _ = try IntHyperCodec.decode(bytes, modelSet: set, runner: runner)
        var unitRuns: [IntHyperCodec.Decoded] = []
        for k in 0..<runs {
            progress.update(k + 1, of: runs + 1, detail: "run \(k + 1) of \(runs)")
            unitRuns.append(try IntHyperCodec.decode(bytes, modelSet: set, runner: runner))
        }
        progress.update(runs + 1, of: runs + 1)
        progress.end()
        let unitSide = side(unitRuns)

        var refSide: Side?
        if reference {
            progress.begin("decoding on the reference interpreter (slow)")
            let r = try IntHyperCodec.decode(bytes, modelSet: set,
                                             runner: ProgressRunner.decoding(set, HostGraphRunner(host: host, selection: .reference), progress))
            progress.end()
            refSide = side([r])
        }
        let speedup = refSide.map { r in
            Stages(entropyMs: r.median.entropyMs / unitSide.median.entropyMs,
                   hyperSynthesisMs: r.median.hyperSynthesisMs / unitSide.median.hyperSynthesisMs,
                   synthesisMs: r.median.synthesisMs / unitSide.median.synthesisMs,
                   totalMs: r.median.totalMs / unitSide.median.totalMs)
        }
        let samplePath = sample ?? (LocalFile.exists("samples/sample.wai") ? "samples/sample.wai" : nil)
        let result = Result(modelSet: set.name, n: set.hyperChannels, m: set.latentChannels, width: size.width,
                            height: size.height, payloadBytes: bytes.count,
                            bitsPerPixel: Double(bytes.count * 8) / Double(size.width * size.height),
                            unit: unitSide, reference: refSide, speedup: speedup,
                            identical: refSide.map { $0.sha256 == unitSide.sha256 },
                            sample: try samplePath.map(sampleRate))
        if json {
            Output.out(try JSON.report(result, schema: .bench))
        } else {
            Output.out(text(result))
        }
        return result.identical == false ? ExitCode.failure : ExitCode.ok
    }

    static func side(_ runs: [IntHyperCodec.Decoded]) -> Side {
        func median(_ f: (IntHyperDecoder.Timings) -> Double) -> Double {
            runs.map { f($0.result.timings) }.median ?? 0
        }
        let checked = runs.allSatisfy { $0.result.timings.spotCheckCPU != nil }
        let r = runs[0].result.synthesisReport
        let hs = runs[0].result.hyperSynthesisReport
        let reason = hs.reason == r.reason ? r.reason : "h_s: \(hs.reason); g_s: \(r.reason)"
        return Side(unit: r.unit, backend: r.backend, device: r.device, dispatch: r.dispatch, reason: reason, runs: runs.count,
                    median: Stages(entropyMs: median { $0.entropy }, hyperSynthesisMs: median { $0.hyperSynthesis },
                                   synthesisMs: median { $0.synthesis }, totalMs: median { $0.total },
                                   spotCheckCPUMs: checked ? median { $0.spotCheckCPU ?? 0 } : nil,
                                   spotCheckWaitMs: checked ? median { $0.spotCheckWait ?? 0 } : nil),
                    sha256: runs[0].image.sha256, identity: UnitIdentity(r))
    }

    static func sampleRate(_ path: String) throws -> SampleRate {
        let bytes = try ByteIO.read(path, limit: 1 << 30)
        let opened = try CapabilityRegistry.open(bytes, expecting: IntHyperModelSet.capability)
        let p = try IntHyperPayload.parse(opened.payload)
        let pixels = Double(p.width * p.height)
        return SampleRate(file: path, width: p.width, height: p.height, fileBytes: bytes.count,
                          payloadBytes: opened.payload.count, bitsPerPixel: Double(bytes.count * 8) / pixels,
                          payloadBitsPerPixel: Double(opened.payload.count * 8) / pixels)
    }

    static func text(_ r: Result) -> String {
        var lines = ["wai.neural.int_hyper decode, \(r.width)×\(r.height), model set \(r.modelSet) (N = \(r.n), M = \(r.m)), "
            + "\(r.payloadBytes) bytes (\(CodecOptions.ratio(r.bitsPerPixel)) bpp)"]
        let u = r.unit
        lines.append("unit: \(u.unit) (\(u.backend), \(u.device), \(u.dispatch)); median of \(u.runs) runs")
        if u.dispatch != .rankedFirst && u.dispatch != .forced { lines.append("reason: \(u.reason)") }
        func row(_ name: String, _ get: (Stages) -> Double) -> String {
            var s = name.padding(16) + CodecOptions.ms(get(u.median)).padding(14)
            if let ref = r.reference, let sp = r.speedup {
                s += CodecOptions.ms(get(ref.median)).padding(14) + CodecOptions.ratio(get(sp)) + "×"
            }
            return s
        }
        lines.append("stage".padding(16) + "unit".padding(14) + (r.reference == nil ? "" : "reference".padding(14) + "reference ÷ unit"))
        lines.append(row("entropy decode", { $0.entropyMs }))
        lines.append(row("h_s", { $0.hyperSynthesisMs }))
        lines.append(row("g_s", { $0.synthesisMs }))
        lines.append(row("total", { $0.totalMs }))
        if let cpu = u.median.spotCheckCPUMs, let wait = u.median.spotCheckWaitMs {
            lines.append("spot checks: \(CodecOptions.ms(cpu)) of CPU, the decode waited \(CodecOptions.ms(wait)) for them")
        }
        lines.append("sha256 \(u.sha256)" + (r.identical.map { $0 ? " (identical on the reference)" : " DIFFERS from the reference" } ?? ""))
        if let s = r.sample {
            lines.append("sample \(s.file): \(s.width)×\(s.height), \(s.fileBytes) bytes = \(CodecOptions.ratio(s.bitsPerPixel)) bpp "
                + "(payload alone \(s.payloadBytes) bytes = \(CodecOptions.ratio(s.payloadBitsPerPixel)) bpp)")
        }
        return lines.joined(separator: "\n")
    }
}
