import WaiHost

enum EncodeCommand: Command {
    static let name = "encode"
    static let summary = "encode an RGB8 picture as a wai.neural.int_hyper payload in a WAI1 envelope"
    static let help = """
        usage: waihost encode PICTURE.png|PICTURE.rgb [--quality Q | --model DIR] -o OUT.wai [--raw] [--size WxH]
                              [--unit SEL | --backend NAME[:INDEX]] [--json] [--plugin-dir DIR]...

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
        var args = ArgumentCursor(arguments)
        while let a = args.next() {
            switch a {
            case "--model": model = try args.value(for: a)
            case "--quality":
                quality = try CodecOptions.unsigned(try args.value(for: a), flag: a, range: ShippedModelSets.qualities)
            case "-o", "--output": out = try args.value(for: a)
            case "--raw": raw = true
            case "--json": json = true
            case "--size": size = try CodecOptions.size(try args.value(for: a), flag: a)
            case "--unit", "--backend":
                guard selection == nil else { throw UsageError(message: "give one of --unit and --backend, once") }
                let v = try args.value(for: a)
                selection = a == "--unit" ? try UnitSelection(parsing: v) : try CodecOptions.backendSelection(v)
            default:
                if try options.parse(a, &args) { continue }
                guard !a.hasPrefix("-"), input == nil else { throw UsageError(message: "unknown argument \(a)") }
                input = a
            }
        }
        guard let input, let out else { throw UsageError(message: "encode needs PICTURE and -o OUT") }
        if model != nil, quality != nil { throw UsageError(message: "give one of --quality and --model") }
        if size != nil, !input.lowercased().hasSuffix(".rgb") { throw UsageError(message: "--size is for .rgb input only") }

        let start = monotonicMs()
        let folder = try model ?? ShippedModelSets.folder(quality: quality ?? ShippedModelSets.defaultQuality)
        let set = try IntHyperModelSet.load(directory: folder, needsAnalysis: true)
        let picture = try PictureFile.read(path: input, size: size) { w, h in
            try IntHyperSizeLimit.check(set, width: w, height: h, encoding: true)
        }
        let host = BackendHost(configuration: options.configuration())
        let runner = HostGraphRunner(host: host, selection: selection ?? host.configuration.defaultUnit)
        let (bytes, result) = try IntHyperCodec.encode(picture, modelSet: set, runner: runner, envelope: !raw)
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
