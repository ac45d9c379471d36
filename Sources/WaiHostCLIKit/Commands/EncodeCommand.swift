import WaiHost
#if canImport(Glibc)
import Glibc
#endif

enum EncodeCommand: Command {
    static let spec = CommandSpec(
        name: "encode",
        summary: "encode an RGB8 picture as a wai.neural.int_hyper payload in a WAI1 envelope",
        synopsis: ["PICTURE.png|PICTURE.rgb|- [--quality Q | --model DIR] -o OUT.wai|OUT.payload|- [--raw] [--size WxH]",
                   "    [--unit SEL | --backend NAME[:INDEX]] [--json] [--plugin-dir DIR]..."],
        description: """
            Reads the picture (PNG through libpng: RGB8 only, i.e. color type 2, bit depth 8, no \
            transparency; or raw RGB8 rows with --size; - reads standard input), runs the model set's \
            analysis side g_a and h_a, then the same integer h_s the decoder runs to choose each latent's \
            entropy table, codes z and y with rANS and writes a WAI1 envelope (docs/capabilities/int_hyper.md, \
            docs/envelope.md). The graphs run on the selected unit; any accepted unit gives the same bytes.
            """,
        positionals: [PositionalSpec("PICTURE", help: "the picture: .png, .rgb (with --size) or - for standard input",
                                     completion: .file(["png", "rgb"]))],
        options: [
            .value("quality", "Q", help: "one of the shipped trained model sets, 1 (smallest) … 3 (best); the default is \(ShippedModelSets.defaultQuality) (samples/models/qQ, or WAIHOST_MODEL_DIR/qQ)",
                   completion: .words(["1", "2", "3"])),
            .value("model", "DIR", help: "another model set (it must include g_a.whm and h_a.whm)", completion: .directory),
            .value("output", short: "o", "OUT", help: "OUT.wai (WAI1 envelope), OUT.payload (bare payload) or - (standard output; the summary goes to standard error)",
                   completion: .file(["wai", "payload"]), required: true),
            .flag("raw", help: "write the bare payload instead of an envelope (what .payload implies)"),
            .value("size", "WxH", help: "picture size of raw RGB8 input (.rgb or -)"),
        ] + CodecOptions.selectionOptions + [CommonOptions.json, CommonOptions.quiet] + HostOptions.options,
        exclusive: [["quality", "model"], ["unit", "backend"]],
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
        var selection: UnitSelection
        var json: Bool
        var quiet: Bool
        var host: HostOptions
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
        let format = try PictureFormat.input(input, p, what: "PICTURE")
        let size = try CodecOptions.size(p, "size")
        if size != nil, format == .png { throw p.error("--size is for raw RGB8 input (.rgb or -) only") }
        if size == nil, format == .rgb { throw p.error("a .rgb picture needs --size WxH") }
        return Options(input: input, model: p.value("model"),
                       quality: try p.int("quality", in: ShippedModelSets.qualities), output: out, raw: raw,
                       size: size, selection: try CodecOptions.selection(p) ?? .best, json: p.flag("json"),
                       quiet: p.flag("quiet"), host: try HostOptions(p))
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
        var unit: String
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
        // With -o - standard error carries the summary: no progress lines in it.
        let progress = Progress(enabled: !o.quiet && (out != "-" || isatty(2) == 1))
        let start = monotonicMs()
        let folder = try model ?? ShippedModelSets.folder(quality: quality ?? ShippedModelSets.defaultQuality)
        let set = try IntHyperModelSet.load(directory: folder, needsAnalysis: true)
        let picture = try PictureIO.read(input, size: size) { w, h in
            try IntHyperSizeLimit.check(set, width: w, height: h, encoding: true)
        }
        let host = BackendHost(configuration: o.host.configuration())
        let runner = ProgressRunner.encoding(set, HostGraphRunner(host: host, selection: o.selection), progress)
        progress.begin("encoding \(picture.width)×\(picture.height) with model set \(set.name)")
        let (bytes, result) = try IntHyperCodec.encode(picture, modelSet: set, runner: runner, envelope: !raw)
        progress.end()
        try ByteIO.write(bytes, to: out)
        let s = Summary(capability: IntHyperModelSet.capability, output: out, enveloped: !raw, width: picture.width,
                        height: picture.height, bytes: bytes.count,
                        bitsPerPixel: Double(bytes.count * 8) / Double(picture.width * picture.height),
                        zBytes: result.payload.zStream.count, yBytes: result.payload.yStream.count,
                        modelSet: set.idHex, unit: result.hyperSynthesisReport.unit,
                        backend: result.hyperSynthesisReport.backend, elapsedMs: monotonicMs() - start,
                        identity: UnitIdentity(result.hyperSynthesisReport,
                                               probe: o.selection == .reference ? nil : try host.currentProbe()))
        let emit: (String) -> Void = out == "-" ? Output.err : Output.out
        if json {
            emit(try JSON.report(s, schema: .encode))
        } else {
            emit("\(out): \(raw ? "bare payload" : "WAI1 envelope") of \(IntHyperModelSet.capability), "
                + "\(picture.width)×\(picture.height), \(bytes.count) bytes (\(CodecOptions.ratio(s.bitsPerPixel)) bpp; "
                + "z \(s.zBytes) bytes, y \(s.yBytes) bytes)")
            emit("model set \(set.name) version \(set.version), id \(set.idHex)")
            emit("graphs ran on \(s.unit) (\(s.backend)) in \(CodecOptions.ms(s.elapsedMs)) total")
        }
        return ExitCode.ok
    }
}
