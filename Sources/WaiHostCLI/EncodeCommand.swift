import WaiHost

enum EncodeCommand: Command {
    static let name = "encode"
    static let summary = "encode an RGB8 picture as a wai.neural.int_hyper payload in a WAI1 envelope"
    static let help = """
        usage: waihost encode PICTURE.png|PICTURE.rgb [--quality Q | --model DIR] -o OUT.wai [--raw] [--size WxH]
                              [--payload-version 1|2] [--unit SEL | --backend NAME[:INDEX]] [--json] [--plugin-dir DIR]...
               waihost encode IN.y4m|-|FRAMES.rgb --size WxH --fps N[/D] [--chroma C] [--frames A..B] [options above]

        A Y4M stream (or - for one on standard input, e.g. from `ffmpeg -i IN -f yuv4mpegpipe -`)
        or .rgb frames with --fps is a sequence: every frame becomes an int_hyper picture in a
        wai.video.int_hyper payload (docs/capabilities/video_int_hyper.md).

        Reads the picture (PNG through libpng: RGB8 only, i.e. color type 2, bit depth 8, no
        transparency; or raw RGB8 rows with --size), runs the model set's analysis side g_a
        and h_a, then the same integer h_s the decoder runs to choose each latent's entropy
        table, codes z and y with rANS and writes a WAI1 envelope
        (docs/capabilities/int_hyper.md, docs/envelope.md). The graphs run on the selected
        unit; any accepted unit gives the same bytes.

          --quality Q        one of the shipped trained model sets, 1 (smallest) … 3 (best);
                             the default is \(ShippedModelSets.defaultQuality) (samples/models/qQ, or WAIHOST_MODEL_DIR/qQ)
          --model DIR        another model set (it must include g_a.whm and h_a.whm)
          -o OUT.wai         output file
          --raw              write the bare payload instead of an envelope
          --size WxH         picture size of a .rgb input
          --payload-version V  2 (default): lane streams, decoded on every core; 1: one serial
                             stream per latent, for older decoders. The same picture either way.
          --fps N[/D]        a .rgb input is a sequence of RGB8 frames at this rate (wai.video.int_hyper)
          --chroma C         rgb (default), yuv420 or yuv444: how a .rgb sequence decodes to Y4M
          --frames A..B      encode only frames A to B of a sequence (0-based, both included)
        \(CodecOptions.selectionHelp)
          --json             print one JSON object instead
        \(HostOptions.help)

        A picture too large for the model set's graphs, or a PNG whose header needs more than
        the decoder's memory bound, is refused from its header, before its pixels are decoded;
        the message gives the largest size that works.

        Exit status: 0 when written, 1 on an error (unreadable or non-RGB8 picture, refused
        model set, unit failure), 2 on a usage error.
        """

    struct Summary: Encodable {
        var capability: String
        var output: String
        var enveloped: Bool
        var width: Int
        var height: Int
        var bytes: Int
        var bitsPerPixel: Double
        var zBytes: Int
        var yBytes: Int
        var modelSet: String
        var unit: String
        var backend: String
        var elapsedMs: Double
        enum CodingKeys: String, CodingKey {
            case capability, output, enveloped, width, height, bytes, unit, backend
            case bitsPerPixel = "bits_per_pixel", zBytes = "z_stream_bytes", yBytes = "y_stream_bytes"
            case modelSet = "model_set_id", elapsedMs = "elapsed_ms"
        }
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        var input: String?, model: String?, out: String?, quality: Int?
        var raw = false, json = false
        var size: (width: Int, height: Int)?
        var selection: UnitSelection?
        var options = HostOptions()
        var version = IntHyperPayload.defaultVersion
        var fps: Rational?, chroma: VideoChroma?, frames: ClosedRange<Int>?
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--fps": fps = try VideoCodecOptions.rate(try args.value(for: a), flag: a)
            case "--chroma":
                let v = try args.value(for: a)
                guard let c = VideoChroma(rawValue: v) else { throw UsageError(message: "--chroma needs rgb, yuv420 or yuv444, got \(v)") }
                chroma = c
            case "--frames": frames = try VideoCodecOptions.frames(try args.value(for: a), flag: a)
            case "--model": model = try args.value(for: a)
            case "--quality":
                quality = try CodecOptions.unsigned(try args.value(for: a), flag: a, range: ShippedModelSets.qualities)
            case "-o", "--output": out = try args.value(for: a)
            case "--raw": raw = true
            case "--json": json = true
            case "--size": size = try CodecOptions.size(try args.value(for: a), flag: a)
            case "--payload-version":
                let v = try args.value(for: a)
                guard let parsed = UInt8(v).flatMap(IntHyperPayload.Version.init(rawValue:)) else {
                    throw UsageError(message: "--payload-version is 1 or 2, not '\(v)'")
                }
                version = parsed
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
        guard let input, let out else { throw UsageError(message: "encode needs PICTURE and -o OUT") }
        if model != nil, quality != nil { throw UsageError(message: "give one of --quality and --model") }
        // A sequence (docs/capabilities/video_int_hyper.md §8): Y4M, or .rgb frames with --fps.
        if VideoCodecOptions.isVideoInput(input) || fps != nil || chroma != nil || frames != nil {
            let folder = try model ?? ShippedModelSets.folder(quality: quality ?? ShippedModelSets.defaultQuality)
            return try VideoEncode.run(.init(input: input, output: out, folder: folder, raw: raw, json: json, size: size,
                                             fps: fps, chroma: chroma, frames: frames, selection: selection ?? .best,
                                             configuration: options.configuration()))
        }
        if size != nil, !input.lowercased().hasSuffix(".rgb") { throw UsageError(message: "--size is for .rgb input only") }

        let start = monotonicMs()
        let folder = try model ?? ShippedModelSets.folder(quality: quality ?? ShippedModelSets.defaultQuality)
        let set = try IntHyperModelSet.load(directory: folder, needsAnalysis: true)
        let picture = try PictureFile.read(path: input, size: size) { w, h in
            try IntHyperSizeLimit.check(set, width: w, height: h, encoding: true)
        }
        let host = BackendHost(configuration: options.configuration())
        let runner = HostGraphRunner(host: host, selection: selection ?? host.configuration.defaultUnit)
        let (bytes, result) = try IntHyperCodec.encode(picture, modelSet: set, runner: runner, envelope: !raw,
                                                        version: version)
        try LocalFile.write(bytes, to: out)
        let s = Summary(capability: IntHyperModelSet.capability, output: out, enveloped: !raw, width: picture.width,
                        height: picture.height, bytes: bytes.count,
                        bitsPerPixel: Double(bytes.count * 8) / Double(picture.width * picture.height),
                        zBytes: result.payload.zStream.count, yBytes: result.payload.yStream.count,
                        modelSet: set.idHex, unit: result.hyperSynthesisReport.unit,
                        backend: result.hyperSynthesisReport.backend, elapsedMs: monotonicMs() - start)
        if json {
            Output.out(try JSON.text(s))
        } else {
            Output.out("\(out): \(raw ? "bare payload" : "WAI1 envelope") of \(IntHyperModelSet.capability), "
                + "\(picture.width)×\(picture.height), \(bytes.count) bytes (\(CodecOptions.ratio(s.bitsPerPixel)) bpp; "
                + "z \(s.zBytes) bytes, y \(s.yBytes) bytes)")
            Output.out("model set \(set.name) version \(set.version), id \(set.idHex)")
            Output.out("graphs ran on \(s.unit) (\(s.backend)) in \(CodecOptions.ms(s.elapsedMs)) total")
        }
        return ExitCode.ok
    }
}
