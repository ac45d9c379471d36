import WaiHost
#if canImport(Glibc)
import Glibc
#endif

enum DecodeCommand: Command {
    static let spec = CommandSpec(
        name: "decode",
        summary: "decode a WAI1 envelope or payload: a picture to PNG/RGB8, a sequence to Y4M",
        synopsis: ["IN.wai|- [--model DIR] -o OUT.png|OUT.rgb|- [--compare ORIGINAL.png]",
                   "    [--unit SEL | --backend NAME[:INDEX]] [--report FILE.json] [--latents DIR] [--json] [--plugin-dir DIR]...",
                   "SEQUENCE.wai|- -o OUT.y4m|OUT.rgb|- [--frames A..B] [options above]"],
        description: """
            Decodes a WAI1 envelope (its SHA-256 checked) or a bare payload with the model set it was made \
            with: z and y are entropy-decoded on the host CPU, h_s and g_s run on the best unit that passed \
            the exactness probe (or the one forced), and the picture is written as PNG, or as raw RGB8 rows \
            for .rgb and - (standard output). Prints the report: capability, unit, backend, device, dispatch \
            and why, the SHA-256 of the decoded RGB8 rows (the same on every unit), each graph's \
            qualification verdicts (docs/probe.md §9), and timings.

            A wai.video.int_hyper sequence decodes to Y4M (C420jpeg or C444; - streams it to standard \
            output, e.g. into `ffmpeg -f yuv4mpegpipe -i -`) or to RGB8 frames (.rgb); the report gives \
            the frames, the rate, each frame's SHA-256 and the unit that decoded the sequence \
            (docs/capabilities/video_int_hyper.md §9). --frames A..B (0-based, both included) decodes \
            only those frames, starting at the intra frame at or before A. A wai.video.int_motion sequence needs its motion model set: \
            the shipped one when the sequence names it, else --motion-model DIR (docs/capabilities/video_int_motion.md §9); \
            a wai.video.int_cond sequence its conditional model set, --cond-model DIR (docs/capabilities/video_int_cond.md §9).
            """,
        positionals: [PositionalSpec("IN", help: "the envelope or bare payload, or - for standard input",
                                     completion: .file(["wai", "payload"]))],
        options: [
            .value("model", "DIR", help: "the model set (manifest.json, entropy.json, h_s.whm, g_s.whm); without it, the shipped set (samples/models) whose id the payload names",
                   completion: .directory),
            .value("output", short: "o", "OUT", help: "OUT.png, OUT.rgb, or - for raw RGB8 rows on standard output (the report then goes to standard error); a sequence: OUT.y4m, OUT.rgb (RGB8 frames) or - (Y4M)",
                   completion: .file(["png", "rgb", "y4m"]), required: true),
            .value("compare", "ORIGINAL", help: "add PSNR (R, G, B together, dB) against ORIGINAL (.png, or .rgb at the decoded size) and the bits per pixel",
                   completion: .file(["png", "rgb"])),
            VideoCodecOptions.frames,
            MotionVideoOptions.motionModel,
            CondVideoOptions.condModel,
        ] + CodecOptions.configuredSelectionOptions + [
            .value("report", "FILE", help: "also write the report as JSON to FILE (- for standard output, unless the picture goes there)", completion: .file(["json"])),
            .value("latents", "DIR", help: "a picture: also write z, y and y's scale indices to DIR as little-endian int32 files, with latents.json giving their shapes (docs/capabilities/int_hyper.md §8.1)",
                   completion: .directory),
            CommonOptions.json,
            CommonOptions.quiet,
        ] + HostOptions.options,
        exclusive: [["unit", "backend"]])

    struct Options {
        var input: String
        var model: String?
        var output: String
        var compare: String?
        var report: String?
        var latents: String?
        var frames: ClosedRange<Int>?
        var motionModel: String?
        var condModel: String?
        /// nil: the configured default unit (waihost.conf), else best.
        var selection: UnitSelection?
        var json: Bool
        var quiet: Bool
        var host: HostOptions
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        let out = p.value("output") ?? "-"
        _ = try PictureFormat.output(out, p, sequences: true)
        if let original = p.value("compare"), try PictureFormat.input(original, p, what: "--compare") == .standardStream {
            throw p.error("--compare needs a file, not -")
        }
        if p.value("report") == "-", out == "-" { throw p.error("--report - and -o - would both write standard output") }
        return Options(input: p.positionals[0], model: p.value("model"), output: out, compare: p.value("compare"),
                       report: p.value("report"), latents: p.value("latents"), frames: try VideoCodecOptions.frames(p), motionModel: p.value("motion-model"),
                       condModel: p.value("cond-model"), selection: try CodecOptions.selection(p),
                       json: p.flag("json"), quiet: p.flag("quiet"), host: try HostOptions(p))
    }

    static let maximumInputSize = 1 << 30

    static func run(_ o: Options) throws -> Int32 {
        let (input, model, out, reportPath, original, json) = (o.input, o.model, o.output, o.report, o.compare, o.json)
        try ByteIO.checkWritable(out)
        try ByteIO.checkWritable(reportPath)
        if let latents = o.latents { try LatentDump.check(latents) }
        // With -o - the report is what standard error carries: no progress lines in it.
        let progress = Progress(enabled: !o.quiet && (out != "-" || isatty(2) == 1))
        let bytes = try ByteIO.read(input, limit: maximumInputSize)
        if o.latents != nil, VideoIntMotionCodec.isVideo(bytes) || VideoIntCondCodec.isVideo(bytes) || VideoIntHyperCodec.isVideo(bytes) {
            throw UsageError("--latents is for wai.neural.int_hyper pictures; \(input) is a sequence")
        }
        // A sequence (docs/capabilities/video_int_hyper.md §9).
        // A motion-compensated sequence (docs/capabilities/video_int_motion.md §9).
        if VideoIntMotionCodec.isVideo(bytes) {
            guard original == nil else { throw UsageError("--compare is for pictures, not sequences") }
            return try PredictiveVideoDecode.run(IntMotionCLI.self, .init(input: input, bytes: bytes, output: out, model: model, frames: o.frames,
                                                                          reportPath: reportPath, json: json, selection: o.selection,
                                                                          configuration: o.host.configuration()), setFolder: o.motionModel)
        }
        if o.motionModel != nil { throw UsageError("--motion-model is for wai.video.int_motion sequences; \(input) is not one") }
        // A conditionally coded sequence (docs/capabilities/video_int_cond.md §9).
        if VideoIntCondCodec.isVideo(bytes) {
            guard original == nil else { throw UsageError("--compare is for pictures, not sequences") }
            return try PredictiveVideoDecode.run(IntCondCLI.self, .init(input: input, bytes: bytes, output: out, model: model, frames: o.frames,
                                                                        reportPath: reportPath, json: json, selection: o.selection,
                                                                        configuration: o.host.configuration()), setFolder: o.condModel)
        }
        if o.condModel != nil { throw UsageError("--cond-model is for wai.video.int_cond sequences; \(input) is not one") }
        if VideoIntHyperCodec.isVideo(bytes) {
            guard original == nil else { throw UsageError("--compare is for pictures, not sequences") }
            return try VideoDecode.run(.init(input: input, bytes: bytes, output: out, model: model, frames: o.frames,
                                             reportPath: reportPath, json: json, selection: o.selection,
                                             configuration: o.host.configuration()))
        }
        if o.frames != nil { throw UsageError("--frames is for sequences (wai.video.int_hyper); \(input) is not one") }
        if PictureFormat.of(out) == nil {
            throw UsageError("-o \(out): a picture decodes to \(PictureFormat.written); \(input) is not a sequence")
        }
        let folder: String
        if let model {
            folder = model
        } else {
            let id = try IntHyperCodec.modelSetID(of: bytes)
            guard let shipped = try ShippedModelSets.folder(forID: id) else {
                throw ModelSetError(file: input, problem: "made with model set \(Hex.encode(id)), which is none of the shipped "
                    + "sets (\(try ShippedModelSets.folders().joined(separator: ", "))); give its folder with --model DIR")
            }
            folder = shipped
        }
        let set = try IntHyperModelSet.load(directory: folder)
        let host = BackendHost(configuration: o.host.configuration())
        let sel = o.selection ?? host.configuration.defaultUnit
        // Probe (or read cached verdicts) before decoding, so the timings are the decode's.
        if sel != .reference { _ = try host.currentProbe() }
        progress.begin("decoding \(input == "-" ? "standard input" : input) (\(bytes.count) bytes)")
        let runner = ProgressRunner.decoding(set, HostGraphRunner(host: host, selection: sel), progress)
        let decoded = try IntHyperCodec.decode(bytes, modelSet: set, runner: runner, keepingScaleIndices: o.latents != nil)
        progress.end()
        try PictureIO.write(decoded.image, to: out)
        var report = IntHyperDecodeReport(decoded, modelSet: set, output: out)
        if let latents = o.latents {
            try LatentDump.write(decoded, report: report, to: latents)
            report.latents = latents
        }
        if let original {
            let size = (width: decoded.image.width, height: decoded.image.height)
            let reference = try PictureFile.read(path: original, size: size) { w, h in
                guard w == size.width, h == size.height else {
                    throw CLIError(.picture, "--compare \(original) is \(w)×\(h), the decoded picture \(size.width)×\(size.height)")
                }
            }
            report.comparison = try PictureComparison(decoded: decoded.image, original: reference, originalName: original,
                                                      codedBytes: decoded.inputBytes)
        }
        if let reportPath { try ByteIO.write(Array((try JSON.text(report) + "\n").utf8), to: reportPath) }
        let emit: (String) -> Void = out == "-" ? Output.err : Output.out
        let identity = UnitIdentity(decoded.result.synthesisReport)
        if json {
            emit(try JSON.report(Merged(base: report, extra: identity), schema: .decode))
        } else {
            emit(text(report, identity))
        }
        return ExitCode.ok
    }

    static func text(_ r: IntHyperDecodeReport, _ identity: UnitIdentity) -> String {
        var lines = [
            "capability: \(r.capability)\(r.enveloped ? " (WAI1 envelope)" : " (bare payload)")",
            "picture:    \(r.width)×\(r.height), \(r.inputBytes) bytes in (\(CodecOptions.ratio(r.bitsPerPixel)) bpp)",
            "model set:  \(r.modelSet.name) version \(r.modelSet.version)",
            "unit:       \(r.unit)" + (identity.unitIndex.map { " (\(identity.selector), unit \($0))" } ?? ""),
            "backend:    \(r.backend)",
            "device:     \(r.device)" + (identity.deviceIdentity?.text.map { ", " + $0 } ?? ""),
            "driver:     \(r.driver)",
            "dispatch:   \(r.dispatch)\(r.rank.map { " (rank \($0))" } ?? "")",
            "reason:     \(r.reason)",
        ]
        if let hs = r.runs.first, hs.backend != r.backend || hs.unit != r.unit {
            lines.append("h_s ran on: \(hs.unit) (\(hs.backend), \(hs.dispatch))")
        }
        // docs/probe.md §9: each unit's qualification verdict for each graph.
        let verdicts = r.runs.flatMap { run in
            (run.qualification ?? []).map { n in
                "\(run.graph) on \(n.unit) \(n.verdict.state.rawValue)"
                    + (n.cached ? " (cached)" : n.milliseconds.map { " in \(CodecOptions.ms($0))" } ?? "")
            }
        }
        if !verdicts.isEmpty { lines.append("qualify:    " + verdicts.joined(separator: ", ")) }
        for w in Set(r.runs.flatMap { ($0.qualification ?? []).compactMap(\.warning) }).sorted() {
            lines.append("warning:    \(w)")
        }
        let t = r.timings
        lines += [
            "sha256:     \(r.sha256) (decoded RGB8 rows)",
            "timings:    entropy z \(CodecOptions.ms(t.entropyZ)), h_s \(CodecOptions.ms(t.hyperSynthesis)), "
                + "entropy y \(CodecOptions.ms(t.entropyY)), g_s \(CodecOptions.ms(t.synthesis)), total \(CodecOptions.ms(t.total))",
            "output:     \(r.output == "-" ? "standard output (RGB8 rows)" : r.output ?? "-")",
        ]
        if let l = r.latents { lines.append("latents:    \(l)/\(LatentDump.descriptionFile) (z, y, y_scale_index)") }
        if let c = r.comparison {
            let psnr = c.psnrDB.map { "\(CodecOptions.ratio($0)) dB" } ?? "identical (infinite)"
            lines.append("compare:    PSNR \(psnr) (RGB) against \(c.original), \(CodecOptions.ratio(c.bitsPerPixel)) bpp")
        }
        return lines.joined(separator: "\n")
    }
}
