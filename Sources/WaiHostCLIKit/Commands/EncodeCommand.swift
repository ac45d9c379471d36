import WaiSupport
import WaiHost
#if canImport(Glibc)
import Glibc
#endif

enum EncodeCommand: Command {
    static let spec = CommandSpec(
        name: "encode",
        summary: "encode an RGB8 picture as a wai.neural.int_hyper payload in a WAI1 envelope",
        synopsis: ["PICTURE.png|PICTURE.rgb|- [--quality Q | --model DIR] -o OUT.wai|OUT.payload|- [--raw] [--size WxH]",
                   "    [--payload-version 1|2] [--unit SEL | --backend NAME[:INDEX]] [--json] [--plugin-dir DIR]...",
                   "IN.y4m|-|FRAMES.rgb [--size WxH --fps N[/D] [--chroma C]] [--frames A..B] -o OUT.wai|OUT.payload|- [options above]"],
        description: """
            Reads the picture (PNG through libpng: RGB8 only, i.e. color type 2, bit depth 8, no \
            transparency; or raw RGB8 rows with --size; - reads standard input), runs the model set's \
            analysis side g_a and h_a, then the same integer h_s the decoder runs to choose each latent's \
            entropy table, codes z and y with rANS and writes a WAI1 envelope (docs/capabilities/int_hyper.md, \
            docs/envelope.md). The graphs run on the selected unit; any accepted unit gives the same bytes.

            A Y4M stream (or - with one on standard input, e.g. from `ffmpeg -i IN -f yuv4mpegpipe -`) \
            or .rgb frames with --fps is a sequence: every frame becomes an int_hyper picture in a \
            wai.video.int_hyper payload (docs/capabilities/video_int_hyper.md §8); with --motion-model DIR \
            a wai.video.int_motion one: an intra frame every --gop G frames, P-frames predicted from the \
            previous decoded frame (docs/capabilities/video_int_motion.md §7); with --cond-model DIR a \
            wai.video.int_cond one: P-frames coded conditionally on features of the previous decoded \
            frame (docs/capabilities/video_int_cond.md §7).
            """,
        positionals: [PositionalSpec("PICTURE", help: "the picture: .png, .rgb (with --size) or - for standard input; a sequence: .y4m, - (Y4M), or .rgb frames with --size and --fps",
                                     completion: .file(["png", "rgb", "y4m"]))],
        options: [
            .value("quality", "Q", help: "one of the shipped trained model sets, 1 (smallest) … 3 (best); the default is \(ShippedModelSets.defaultQuality) (samples/models/qQ, or WAIHOST_MODEL_DIR/qQ)",
                   completion: .words(["1", "2", "3"])),
            .value("model", "DIR", help: "another model set (it must include g_a.whm and h_a.whm)", completion: .directory),
            .value("output", short: "o", "OUT", help: "OUT.wai (WAI1 envelope), OUT.payload (bare payload) or - (standard output; the summary goes to standard error)",
                   completion: .file(["wai", "payload"]), required: true),
            .flag("raw", help: "write the bare payload instead of an envelope (what .payload implies)"),
            .value("size", "WxH", help: "picture size of raw RGB8 input (.rgb or -)"),
            .value("payload-version", "V", help: "2 (default): lane streams, decoded on every core; 1: one serial stream per latent, for older decoders. The same picture either way.",
                   completion: .words(["1", "2"])),
            VideoCodecOptions.fps, VideoCodecOptions.chroma, VideoCodecOptions.frames,
            MotionVideoOptions.motionModel, CondVideoOptions.condModel, MotionVideoOptions.gop,
        ] + CodecOptions.configuredSelectionOptions + [CommonOptions.json, CommonOptions.quiet] + HostOptions.options,
        exclusive: [["quality", "model"], ["unit", "backend"], ["motion-model", "cond-model"]],
        notes: """
            A picture too large for the model set's graphs, or a PNG whose header needs more than the \
            decoder's memory bound, is refused from its header, before its pixels are decoded; the message \
            gives the largest size that works.
            """)

    /// What `-o` writes, from its extension.
    enum OutputKind: Equatable {
        case envelope, payload
        static let names = ".wai (WAI1 envelope), .payload (bare payload) or - (standard output)"
    }

    struct Options {
        var input: String
        var model: String?
        var quality: Int?
        var output: String
        var raw: Bool
        var size: (width: Int, height: Int)?
        var payloadVersion: IntHyperPayload.Version
        /// Non-nil: a sequence (a .y4m input, or --fps/--chroma/--frames given). Standard input
        /// without them is told apart when read: Y4M is a sequence, anything else a picture.
        var sequence: SequenceOptions?
        /// nil: the configured default unit (waihost.conf), else best.
        var selection: UnitSelection?
        var json: Bool
        var quiet: Bool
        var host: HostOptions

        struct SequenceOptions: Equatable {
            var fps: Rational?
            var chroma: VideoChroma?
            var frames: ClosedRange<Int>?
        }
        /// wai.video.int_motion (docs/capabilities/video_int_motion.md §9): its model set and GOP.
        var motionModel: String?
        var gop: Int?
        /// wai.video.int_cond (docs/capabilities/video_int_cond.md §9): its model set (the GOP is --gop's).
        var condModel: String?
    }

    static func options(_ p: ParsedArguments) throws(UsageError) -> Options {
        let input = p.positionals[0]
        let out = p.value("output") ?? "-"
        let lower = out.lowercased()
        var raw = p.flag("raw")
        if lower.hasSuffix(".payload") {
            raw = true
        } else if out != "-", !lower.hasSuffix(".wai") {
            throw p.error("-o \(out): cannot write \(PictureFormat.extensionOf(out)); it writes \(OutputKind.names)")
        }
        let format = try PictureFormat.input(input, p, what: "PICTURE", sequences: true)
        let size = try CodecOptions.size(p, "size")
        var version: IntHyperPayload.Version?
        if let v = p.value("payload-version") {
            guard let parsed = UInt8(v).flatMap(IntHyperPayload.Version.init(rawValue:)) else {
                throw p.error("--payload-version is 1 or 2, not '\(v)'")
            }
            version = parsed
        }
        let fps = try VideoCodecOptions.rate(p), chroma = try VideoCodecOptions.chroma(p)
        let frames = try VideoCodecOptions.frames(p)
        let motionModel = p.value("motion-model"), condModel = p.value("cond-model"), gop = try MotionVideoOptions.gop(p)
        if gop != nil, motionModel == nil, condModel == nil {
            throw p.error("--gop is for wai.video.int_motion and wai.video.int_cond sequences: give --motion-model DIR or --cond-model DIR")
        }
        if motionModel != nil, format == .png { throw p.error("--motion-model encodes a sequence; \(input) is a PNG picture") }
        if condModel != nil, format == .png { throw p.error("--cond-model encodes a sequence; \(input) is a PNG picture") }
        var sequence: Options.SequenceOptions?
        if format == .y4m || fps != nil || chroma != nil || frames != nil {
            // docs/capabilities/video_int_hyper.md §8: Y4M carries size, rate and chroma in its header.
            if format == .y4m || format == .standardStream {
                if size != nil || fps != nil || chroma != nil {
                    throw p.error("--size, --fps and --chroma are for .rgb input; a Y4M stream carries them in its header")
                }
            } else if format == .png {
                throw p.error("a sequence is .y4m, - (Y4M) or .rgb frames with --size and --fps; \(input) is a PNG picture")
            } else if size == nil || fps == nil {
                throw p.error("a .rgb sequence needs --size WxH and --fps N[/D]")
            }
            if version != nil { throw p.error("--payload-version is for pictures, not sequences (wai.video.int_hyper)") }
            sequence = Options.SequenceOptions(fps: fps, chroma: chroma, frames: frames)
        } else {
            if size != nil, format == .png { throw p.error("--size is for raw RGB8 input (.rgb or -) only") }
            if size == nil, format == .rgb { throw p.error("a .rgb picture needs --size WxH") }
        }
        return Options(input: input, model: p.value("model"),
                       quality: try p.int("quality", in: ShippedModelSets.qualities), output: out, raw: raw,
                       size: size, payloadVersion: version ?? IntHyperPayload.defaultVersion, sequence: sequence,
                       selection: try CodecOptions.selection(p), json: p.flag("json"),
                       quiet: p.flag("quiet"), host: try HostOptions(p), motionModel: motionModel, gop: gop, condModel: condModel)
    }

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
        var unit: UnitKind
        var backend: String
        var elapsedMs: Double
        var identity: UnitIdentity
        enum CodingKeys: String, CodingKey {
            case capability, output, enveloped, width, height, bytes, unit, backend
            case bitsPerPixel = "bits_per_pixel", zBytes = "z_stream_bytes", yBytes = "y_stream_bytes"
            case modelSet = "model_set_id", elapsedMs = "elapsed_ms"
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(capability, forKey: .capability); try c.encode(output, forKey: .output)
            try c.encode(enveloped, forKey: .enveloped); try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height); try c.encode(bytes, forKey: .bytes)
            try c.encode(unit, forKey: .unit); try c.encode(backend, forKey: .backend)
            try c.encode(bitsPerPixel, forKey: .bitsPerPixel); try c.encode(zBytes, forKey: .zBytes)
            try c.encode(yBytes, forKey: .yBytes); try c.encode(modelSet, forKey: .modelSet)
            try c.encode(elapsedMs, forKey: .elapsedMs)
            try identity.encode(to: encoder)
        }
    }

    static func run(_ o: Options) throws -> Int32 {
        let (input, model, out, quality, raw, json, size) = (o.input, o.model, o.output, o.quality, o.raw, o.json, o.size)
        try ByteIO.checkWritable(out)
        // Standard input with neither --size nor a sequence option: Y4M is a sequence, anything else a picture.
        let standardInput = input == "-" && o.sequence == nil && size == nil
            ? try LocalFile.readStandardInput(limit: max(VideoEncode.maximumInputSize, PictureFile.maximumPNGFileSize)) : nil
        if o.sequence != nil || standardInput.map(VideoCodecOptions.isY4M) == true {
            let folder = try model ?? ShippedModelSets.folder(quality: quality ?? ShippedModelSets.defaultQuality)
            let request = VideoEncode.Request(input: input, bytes: standardInput, output: out, folder: folder, raw: raw, json: json,
                                             size: size, fps: o.sequence?.fps, chroma: o.sequence?.chroma,
                                             frames: o.sequence?.frames, selection: o.selection,
                                             configuration: o.host.configuration())
            if let motion = o.motionModel {
                return try PredictiveVideoEncode.run(IntMotionCLI.self, request, folder: motion, gop: o.gop ?? VideoIntMotionCodec.defaultGOP)
            }
            if let cond = o.condModel {
                return try PredictiveVideoEncode.run(IntCondCLI.self, request, folder: cond, gop: o.gop ?? VideoIntCondCodec.defaultGOP)
            }
            return try VideoEncode.run(request)
        }
        if o.motionModel != nil { throw UsageError("--motion-model encodes a sequence; \(input) is a picture") }
        if o.condModel != nil { throw UsageError("--cond-model encodes a sequence; \(input) is a picture") }
        // With -o - standard error carries the summary: no progress lines in it.
        let progress = Progress(enabled: !o.quiet && (out != "-" || isatty(2) == 1))
        let start = monotonicMilliseconds()
        let folder = try model ?? ShippedModelSets.folder(quality: quality ?? ShippedModelSets.defaultQuality)
        let set = try IntHyperModelSet.load(directory: folder, needsAnalysis: true)
        let picture = try PictureIO.read(input, size: size, standardInput: standardInput) { w, h in
            try IntHyperSizeLimit.check(set, width: w, height: h, encoding: true)
        }
        let host = BackendHost(configuration: o.host.configuration())
        let selection = o.selection ?? host.configuration.defaultUnit
        let runner = ProgressRunner.encoding(set, HostGraphRunner(host: host, selection: selection), progress)
        progress.begin("encoding \(picture.width)×\(picture.height) with model set \(set.name)")
        let (bytes, result) = try IntHyperCodec.encode(picture, modelSet: set, runner: runner, envelope: !raw,
                                                        version: o.payloadVersion)
        progress.end()
        try ByteIO.write(bytes, to: out)
        let s = Summary(capability: IntHyperModelSet.capability, output: out, enveloped: !raw, width: picture.width,
                        height: picture.height, bytes: bytes.count,
                        bitsPerPixel: Double(bytes.count * 8) / Double(picture.width * picture.height),
                        zBytes: result.payload.zStream.count, yBytes: result.payload.yStream.count,
                        modelSet: set.idHex, unit: result.hyperSynthesisReport.unit,
                        backend: result.hyperSynthesisReport.backend, elapsedMs: monotonicMilliseconds() - start,
                        identity: UnitIdentity(result.hyperSynthesisReport))
        try CodecOptions.printEncodeSummary(s, schema: .encode, json: json, output: out, set: set, unit: s.unit,
                                            backend: s.backend, elapsedMs: s.elapsedMs,
                                            first: "\(out): \(raw ? "bare payload" : "WAI1 envelope") of \(IntHyperModelSet.capability), "
                                                + "\(picture.width)×\(picture.height), \(bytes.count) bytes (\(CodecOptions.ratio(s.bitsPerPixel)) bpp; "
                                                + "z \(s.zBytes) bytes, y \(s.yBytes) bytes)")
        return ExitCode.ok
    }
}
