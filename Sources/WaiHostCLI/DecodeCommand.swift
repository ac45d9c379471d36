import WaiHost

enum DecodeCommand: Command {
    static let name = "decode"
    static let summary = "decode a wai.neural.int_hyper payload or WAI1 envelope to PNG or RGB8 rows"
    static let help = """
        usage: waihost decode IN.wai [--model DIR] -o OUT.png|OUT.rgb|- [--compare ORIGINAL.png]
                              [--unit SEL | --backend NAME[:INDEX]] [--report FILE.json] [--json] [--plugin-dir DIR]...
               waihost decode SEQUENCE.wai -o OUT.y4m|OUT.rgb|- [--frames A..B] [options above]

        A wai.video.int_hyper sequence decodes to Y4M (C420jpeg or C444; `-` streams it to
        standard output, e.g. into `ffmpeg -f yuv4mpegpipe -i -`) or to RGB8 frames; the report
        gives the frames, the rate, each frame's SHA-256 and the unit that decoded the
        sequence (docs/capabilities/video_int_hyper.md). --frames A..B (0-based, both
        included) decodes only those frames, starting at the intra frame at or before A.

        Decodes a WAI1 envelope (its SHA-256 checked) or a bare payload with the model set it
        was made with: z and y are entropy-decoded on the host CPU, h_s and g_s run on the
        best unit that passed the exactness probe (or the one forced), and the picture is
        written as PNG, or as raw RGB8 rows for `.rgb` and `-` (standard output). Prints
        the report: capability, unit, backend, device, dispatch and why, the SHA-256 of the
        decoded RGB8 rows (the same on every unit), and timings. `IN.wai` may be `-`.

          --model DIR        the model set (manifest.json, entropy.json, h_s.whm, g_s.whm); without
                             it, the shipped set (samples/models) whose id the payload names
          -o OUT             .png, .rgb, or - for raw rows on standard output
          --compare ORIG     add PSNR (R, G, B together, dB) against ORIG and the bits per pixel
        \(CodecOptions.selectionHelp)
          --report FILE      also write the report as JSON to FILE
          --json             print the report as one JSON object (on standard error with -o -)
        \(HostOptions.help)

        Exit status: 0 when decoded, 1 on an error (corrupt or truncated input, a payload of
        another model set, refused model set, unit failure), 2 on a usage error.
        """

    static let maximumInputSize = 1 << 30

    static func run(_ arguments: [String]) throws -> Int32 {
        var input: String?, model: String?, out: String?, reportPath: String?, original: String?
        var json = false
        var selection: UnitSelection?
        var options = HostOptions()
        var frames: ClosedRange<Int>?
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--frames": frames = try VideoCodecOptions.frames(try args.value(for: a), flag: a)
            case "--model": model = try args.value(for: a)
            case "-o", "--output": out = try args.value(for: a)
            case "--report": reportPath = try args.value(for: a)
            case "--compare": original = try args.value(for: a)
            case "--json": json = true
            case "--unit", "--backend":
                guard selection == nil else { throw UsageError(message: "give one of --unit and --backend, once") }
                let v = try args.value(for: a)
                selection = a == "--unit" ? try UnitSelection(parsing: v) : try CodecOptions.backendSelection(v)
            default:
                if try options.parse(a, &args) { continue }
                guard a == "-" || !a.hasPrefix("-"), input == nil else { throw UsageError(message: "unknown argument \(a)") }
                input = a
            }
        }
        guard let input, let out else { throw UsageError(message: "decode needs IN and -o OUT") }

        let bytes = input == "-" ? try LocalFile.readStandardInput(limit: maximumInputSize) : try LocalFile.read(input, limit: maximumInputSize)
        // A sequence (docs/capabilities/video_int_hyper.md §9).
        if VideoIntHyperCodec.isVideo(bytes) {
            guard original == nil else { throw UsageError(message: "--compare is for pictures, not sequences") }
            return try VideoDecode.run(.init(input: input, bytes: bytes, output: out, model: model, frames: frames,
                                             reportPath: reportPath, json: json, selection: selection ?? .best,
                                             configuration: options.configuration()))
        }
        if frames != nil { throw UsageError(message: "--frames is for sequences (wai.video.int_hyper); \(input) is not one") }
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
        let host = BackendHost(configuration: options.configuration())
        let sel = selection ?? host.configuration.defaultUnit
        // Probe (or read cached verdicts) before decoding, so the timings are the decode's.
        if sel != .reference { _ = try host.currentProbe() }
        let decoded = try IntHyperCodec.decode(bytes, modelSet: set, runner: HostGraphRunner(host: host, selection: sel))
        if out == "-" {
            try LocalFile.writeStandardOutput(decoded.image.pixels)
        } else {
            try PictureFile.write(decoded.image, path: out)
        }
        var report = IntHyperDecodeReport(decoded, modelSet: set, output: out)
        if let original {
            let reference = try PictureFile.read(path: original) { w, h in
                guard w == decoded.image.width, h == decoded.image.height else {
                    throw UsageError(message: "--compare \(original) is \(w)×\(h), the decoded picture \(decoded.image.width)×\(decoded.image.height)")
                }
            }
            report.comparison = try PictureComparison(decoded: decoded.image, original: reference, originalName: original,
                                                      codedBytes: decoded.inputBytes)
        }
        if let reportPath { try LocalFile.write(Array((try JSON.text(report) + "\n").utf8), to: reportPath) }
        let emit: (String) -> Void = out == "-" ? Output.err : Output.out
        if json {
            emit(try JSON.text(report))
        } else {
            emit(text(report))
        }
        return ExitCode.ok
    }

    static func text(_ r: IntHyperDecodeReport) -> String {
        var lines = [
            "capability: \(r.capability)\(r.enveloped ? " (WAI1 envelope)" : " (bare payload)")",
            "picture:    \(r.width)×\(r.height), \(r.inputBytes) bytes in (\(CodecOptions.ratio(r.bitsPerPixel)) bpp)",
            "model set:  \(r.modelSet.name) version \(r.modelSet.version)",
            "unit:       \(r.unit)",
            "backend:    \(r.backend)",
            "device:     \(r.device)",
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
        let t = r.timings
        lines += [
            "sha256:     \(r.sha256) (decoded RGB8 rows)",
            "timings:    entropy z \(CodecOptions.ms(t.entropyZ)), h_s \(CodecOptions.ms(t.hyperSynthesis)), "
                + "entropy y \(CodecOptions.ms(t.entropyY)), g_s \(CodecOptions.ms(t.synthesis)), total \(CodecOptions.ms(t.total))",
            "output:     \(r.output == "-" ? "standard output (RGB8 rows)" : r.output ?? "-")",
        ]
        if let c = r.comparison {
            let psnr = c.psnrDB.map { "\(CodecOptions.ratio($0)) dB" } ?? "identical (infinite)"
            lines.append("compare:    PSNR \(psnr) (RGB) against \(c.original), \(CodecOptions.ratio(c.bitsPerPixel)) bpp")
        }
        return lines.joined(separator: "\n")
    }
}
