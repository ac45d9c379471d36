import WaiHost

enum BenchCommand: Command {
    static let name = "bench"
    static let summary = "time wai.neural.int_hyper decoding on a unit against the reference interpreter"
    static let help = """
        usage: waihost bench [--model DIR] [--seed S] [--n N] [--m M] [--size WxH] [--runs K]
                             [--unit SEL | --backend NAME[:INDEX]] [--no-reference]
                             [--sample FILE.wai] [--json] [--plugin-dir DIR]...

        Encodes the synthetic picture (default 768x512) with a model set (default: the
        seed-1 N=128, M=192 set, bmshj2018-hyperprior's sizes, generated on first use into
        DIR or the cache folder), decodes it K times (default 3, after one warm-up) on the
        selected unit and once on the reference interpreter, and prints the median time
        of entropy decoding, h_s and g_s on each and the reference's time divided by the
        unit's. The decoded bytes must be identical. Also prints the bits per pixel of the
        bench picture and of the sample payload (default samples/sample.wai when present).

          --model DIR        model set to use; generated there when DIR does not exist
          --seed S, --n N, --m M
                             generator settings when the model set is generated (1, 128, 192)
          --size WxH         picture size (default 768x512)
          --runs K           timed decodes on the unit (default 3)
        \(CodecOptions.selectionHelp)
          --no-reference     skip the reference interpreter (no ratios)
          --sample FILE      payload or envelope whose bits per pixel to report
          --json             print one JSON object instead
        \(HostOptions.help)

        Exit status: 0 when measured and identical, 1 on an error or differing bytes,
        2 on a usage error.
        """

    struct Stages: Encodable {
        var entropyMs: Double
        var hyperSynthesisMs: Double
        var synthesisMs: Double
        var totalMs: Double
        enum CodingKeys: String, CodingKey {
            case entropyMs = "entropy_ms", hyperSynthesisMs = "h_s_ms", synthesisMs = "g_s_ms", totalMs = "total_ms"
        }
    }

    struct Side: Encodable {
        var unit: String
        var backend: String
        var device: String
        var dispatch: String
        var runs: Int
        var median: Stages
        var sha256: String
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

    static func run(_ arguments: [String]) throws -> Int32 {
        var model: String?, sample: String?
        var seed: UInt64 = 1, n = 128, m = 192, runs = 3
        var size = (width: 768, height: 512)
        var selection: UnitSelection?
        var reference = true, json = false
        var options = HostOptions()
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--model": model = try args.value(for: a)
            case "--seed":
                let v = try args.value(for: a)
                guard let s = UInt64(v) else { throw UsageError(message: "--seed needs an unsigned integer, got \(v)") }
                seed = s
            case "--n": n = try CodecOptions.unsigned(try args.value(for: a), flag: a, range: SampleModelGenerator.channelRange)
            case "--m": m = try CodecOptions.unsigned(try args.value(for: a), flag: a, range: SampleModelGenerator.channelRange)
            case "--size": size = try CodecOptions.size(try args.value(for: a), flag: a)
            case "--runs": runs = try CodecOptions.unsigned(try args.value(for: a), flag: a, range: 1...1000)
            case "--unit", "--backend":
                guard selection == nil else { throw UsageError(message: "give one of --unit and --backend, once") }
                let v = try args.value(for: a)
                selection = a == "--unit" ? try UnitSelection(parsing: v) : try CodecOptions.backendSelection(v)
            case "--no-reference": reference = false
            case "--sample": sample = try args.value(for: a)
            case "--json": json = true
            default:
                if try options.parse(a, &args) { continue }
                throw UsageError(message: "unknown argument \(a)")
            }
        }
        let configuration = options.configuration()
        let log: (String) -> Void = { Output.err($0) }

        // The model set: given, or generated once and kept.
        let dir = model ?? (configuration.cacheDirectory ?? ".") + "/models/" + SampleModelGenerator.defaultName(seed: seed, n: n, m: m)
        if !LocalFile.exists(dir + "/manifest.json") {
            log("generating model set (seed \(seed), N = \(n), M = \(m)) into \(dir) …")
            try SampleModelGenerator.generate(seed: seed, n: n, m: m).write(to: dir)
        }
        let set = try IntHyperModelSet.load(directory: dir, needsAnalysis: true)

        let host = BackendHost(configuration: configuration)
        let sel = selection ?? host.configuration.defaultUnit
        if sel != .reference { _ = try host.currentProbe() }
        let runner = HostGraphRunner(host: host, selection: sel)
        let picture = try SamplePicture.make(width: size.width, height: size.height)
        log("encoding the \(size.width)×\(size.height) picture …")
        let (bytes, _) = try IntHyperCodec.encode(picture, modelSet: set, runner: runner, envelope: true)

        log("decoding on \(sel) (1 warm-up + \(runs) timed) …")
        _ = try IntHyperCodec.decode(bytes, modelSet: set, runner: runner)
        var unitRuns: [IntHyperCodec.Decoded] = []
        for _ in 0..<runs { unitRuns.append(try IntHyperCodec.decode(bytes, modelSet: set, runner: runner)) }
        let unitSide = side(unitRuns)

        var refSide: Side?
        if reference {
            log("decoding on the reference interpreter (slow) …")
            let r = try IntHyperCodec.decode(bytes, modelSet: set, runner: HostGraphRunner(host: host, selection: .reference))
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
            Output.out(try JSON.text(result))
        } else {
            Output.out(text(result))
        }
        return result.identical == false ? ExitCode.failure : ExitCode.ok
    }

    static func side(_ runs: [IntHyperCodec.Decoded]) -> Side {
        func median(_ f: (IntHyperDecoder.Timings) -> Double) -> Double {
            let v = runs.map { f($0.result.timings) }.sorted()
            return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
        }
        let r = runs[0].result.synthesisReport
        return Side(unit: r.unit, backend: r.backend, device: r.device, dispatch: r.dispatch, runs: runs.count,
                    median: Stages(entropyMs: median { $0.entropy }, hyperSynthesisMs: median { $0.hyperSynthesis },
                                   synthesisMs: median { $0.synthesis }, totalMs: median { $0.total }),
                    sha256: runs[0].image.sha256)
    }

    static func sampleRate(_ path: String) throws -> SampleRate {
        let bytes = try LocalFile.read(path, limit: 1 << 30)
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
        lines.append("sha256 \(u.sha256)" + (r.identical.map { $0 ? " (identical on the reference)" : " DIFFERS from the reference" } ?? ""))
        if let s = r.sample {
            lines.append("sample \(s.file): \(s.width)×\(s.height), \(s.fileBytes) bytes = \(CodecOptions.ratio(s.bitsPerPixel)) bpp "
                + "(payload alone \(s.payloadBytes) bytes = \(CodecOptions.ratio(s.payloadBitsPerPixel)) bpp)")
        }
        return lines.joined(separator: "\n")
    }
}
