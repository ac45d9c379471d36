import WaiSupport
import WaiHost

/// What a predictive video capability (int_hyper intra frames and a P-frame model set:
/// int_motion, int_cond) names in `waihost encode` and `waihost decode` (each spec's §9);
/// `PredictiveVideoEncode` and `PredictiveVideoDecode` do the rest once for both.
protocol PredictiveVideoCLI {
    associatedtype PSet: PredictiveModelSet
    associatedtype Payload: PredictiveVideoPayload & PredictiveVideoFormat
    static var capability: String { get }
    /// The option naming the P-frame set's folder, without its dashes.
    static var option: String { get }
    /// The encode summary's JSON key for the P-frame set's id.
    static var summaryKey: String { get }
    /// How the text output names the P-frame set: after encoding, and after decoding.
    static var encodeLabel: String { get }
    static var decodeLabel: String { get }
    static func load(_ folder: String, needsAnalysis: Bool) throws -> PSet
    static func encode(count: Int, frame: (Int) throws -> RGB8Image, chroma: VideoChroma, width: Int, height: Int, frameRate: Rational,
                       aspect: Rational, gop: Int, intraSet: IntHyperModelSet, set: PSet, runner: GraphRunner,
                       envelope: Bool) throws -> PredictiveVideoEncoded
    static func open(_ bytes: [UInt8]) throws -> PredictiveVideoOpened<Payload>
    /// The shipped P-frame set with this id, when the capability ships one.
    static func shippedFolder(forID id: [UInt8]) throws -> String?
    /// What the error for a missing P-frame set says after the set's id.
    static func notShipped() throws -> String
    static func report(_ opened: PredictiveVideoOpened<Payload>, intraSet: IntHyperModelSet, set: PSet, range: ClosedRange<Int>,
                       output: String?, outputFormat: String) -> VideoDecodeReport
    static func decode(_ opened: PredictiveVideoOpened<Payload>, intraSet: IntHyperModelSet, set: PSet, runner: GraphRunner,
                       frames: ClosedRange<Int>, each: (PredictiveVideoFrame) throws -> Void) throws
}

enum PredictiveVideoEncode {
    struct Summary: Encodable {
        var capability: String
        var output: String
        var enveloped: Bool
        var width: Int
        var height: Int
        var chroma: VideoChroma
        var frameRate: Rational
        var intraPeriod: Int
        var frames: Int
        var bytes: Int
        var bitsPerPixel: Double
        var frameBytes: [Int]
        var modelSet: String
        /// Under the capability's own key (`motion_model_set_id`, `cond_model_set_id`).
        var predictedModelSet: String
        var predictedKey: String
        var unit: UnitKind
        var backend: String
        var elapsedMs: Double

        struct Key: CodingKey {
            var stringValue: String
            init(_ s: String) { stringValue = s }
            init?(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(capability, forKey: Key("capability")); try c.encode(output, forKey: Key("output"))
            try c.encode(enveloped, forKey: Key("enveloped")); try c.encode(width, forKey: Key("width"))
            try c.encode(height, forKey: Key("height")); try c.encode(chroma, forKey: Key("chroma"))
            try c.encode(frameRate, forKey: Key("frame_rate")); try c.encode(intraPeriod, forKey: Key("intra_period"))
            try c.encode(frames, forKey: Key("frames")); try c.encode(bytes, forKey: Key("bytes"))
            try c.encode(bitsPerPixel, forKey: Key("bits_per_pixel")); try c.encode(frameBytes, forKey: Key("frame_bytes"))
            try c.encode(modelSet, forKey: Key("model_set_id")); try c.encode(predictedModelSet, forKey: Key(predictedKey))
            try c.encode(unit, forKey: Key("unit")); try c.encode(backend, forKey: Key("backend"))
            try c.encode(elapsedMs, forKey: Key("elapsed_ms"))
        }
    }

    static func run<C: PredictiveVideoCLI>(_: C.Type, _ r: VideoEncode.Request, folder pFolder: String, gop: Int) throws -> Int32 {
        let start = monotonicMilliseconds()
        let intra = try IntHyperModelSet.load(directory: r.folder, needsAnalysis: true)
        let set = try C.load(pFolder, needsAnalysis: true)
        let s = try VideoEncode.source(r)
        try IntHyperSizeLimit.check(intra, width: s.width, height: s.height, encoding: true)
        let range = r.frames ?? 0...(s.count - 1)
        guard range.upperBound < s.count else {
            throw UsageError("--frames \(range.lowerBound)..\(range.upperBound): \(r.input) has \(s.count) frames (0..\(s.count - 1))")
        }
        let host = BackendHost(configuration: r.configuration)
        let runner = HostGraphRunner(host: host, selection: r.selection ?? host.configuration.defaultUnit)
        let encoded = try C.encode(count: range.count, frame: { try s.frame(range.lowerBound + $0) }, chroma: s.chroma,
                                   width: s.width, height: s.height, frameRate: s.rate, aspect: s.aspect, gop: gop,
                                   intraSet: intra, set: set, runner: runner, envelope: !r.raw)
        try ByteIO.write(encoded.bytes, to: r.output)
        guard let first = encoded.reports.first else { throw CLIError(.failure, "\(r.input): no frame was encoded") }
        let summary = Summary(capability: C.capability, output: r.output, enveloped: !r.raw, width: s.width,
                              height: s.height, chroma: s.chroma, frameRate: s.rate, intraPeriod: gop, frames: range.count,
                              bytes: encoded.bytes.count,
                              bitsPerPixel: Double(encoded.bytes.count * 8) / Double(s.width * s.height * range.count),
                              frameBytes: encoded.frameBytes, modelSet: intra.idHex, predictedModelSet: set.idHex,
                              predictedKey: C.summaryKey, unit: first.unit, backend: first.backend,
                              elapsedMs: monotonicMilliseconds() - start)
        try CodecOptions.printEncodeSummary(summary, schema: .videoEncode, json: r.json, output: r.output, set: intra,
                                            unit: summary.unit, backend: summary.backend, elapsedMs: summary.elapsedMs,
                                            first: "\(r.output): \(r.raw ? "bare payload" : "WAI1 envelope") of \(C.capability), "
                                                + "\(range.count) frames of \(s.width)×\(s.height) \(s.chroma.rawValue) at \(s.rate) fps, GOP \(gop), "
                                                + "\(summary.bytes) bytes (\(CodecOptions.ratio(summary.bitsPerPixel)) bpp); \(C.encodeLabel) \(set.name) version \(set.version), id \(set.idHex)")
        return ExitCode.ok
    }
}

enum PredictiveVideoDecode {
    static func run<C: PredictiveVideoCLI>(_: C.Type, _ r: VideoDecode.Request, setFolder: String?) throws -> Int32 {
        let opened = try C.open(r.bytes)
        let p = opened.payload
        let folder: String
        if let model = r.model {
            folder = model
        } else {
            guard let shipped = try ShippedModelSets.folder(forID: p.intraModelSetID) else {
                throw ModelSetError(file: r.input, problem: "intra frames made with model set \(Hex.encode(p.intraModelSetID)), which is none of the shipped "
                    + "sets (\(try ShippedModelSets.folders().joined(separator: ", "))); give its folder with --model DIR")
            }
            folder = shipped
        }
        guard let pFolder = try setFolder ?? C.shippedFolder(forID: p.predictedModelSetID) else {
            throw UsageError("\(r.input) is a \(C.capability) sequence (P-frames made with model set "
                + "\(Hex.encode(p.predictedModelSetID))\(try C.notShipped())); give that set's folder with --\(C.option) DIR")
        }
        let intra = try IntHyperModelSet.load(directory: folder)
        let set = try C.load(pFolder, needsAnalysis: false)
        let lower = r.output.lowercased()
        let rgb = lower.hasSuffix(".rgb")
        guard rgb || r.output == "-" || lower.hasSuffix(".y4m") else {
            throw UsageError("-o \(r.output): a sequence decodes to OUT.y4m, OUT.rgb (RGB8 frames) or - (Y4M on standard output)")
        }
        let range = r.frames ?? 0...(p.frameCount - 1)
        guard range.upperBound < p.frameCount else {
            throw PredictiveVideoPayloadError<C.Payload>.frameRange(first: range.lowerBound, last: range.upperBound, frameCount: p.frameCount)
        }
        let host = BackendHost(configuration: r.configuration)
        let selection = r.selection ?? host.configuration.defaultUnit
        if selection != .reference { _ = try host.currentProbe() }
        let header = Y4MHeader(width: p.width, height: p.height, frameRate: p.frameRate, aspect: p.aspect, chroma: p.chroma.y4m)
        var sink = try FrameSink(path: r.output)
        var report = C.report(opened, intraSet: intra, set: set, range: range, output: r.output, outputFormat: rgb ? "rgb8" : "y4m")
        var first: RunReport?
        do {
            if !rgb { try sink.write(header.serialized()) }
            let decodeStart = monotonicMilliseconds()
            try C.decode(opened, intraSet: intra, set: set, runner: HostGraphRunner(host: host, selection: selection), frames: range) { frame in
                try sink.write(rgb ? frame.frame.image.pixels : try Y4MWriter.frame(frame.frame.planes, header: header))
                report.add(frame)
                if first == nil { first = frame.frame.report }
            }
            report.finish(totalMs: monotonicMilliseconds() - decodeStart)
            try sink.commit()
        } catch {
            sink.abandon()
            throw error
        }
        if let path = r.reportPath { try ByteIO.write(Array((try JSON.text(report) + "\n").utf8), to: path) }
        let emit: (String) -> Void = r.output == "-" ? Output.err : Output.out
        guard let first else { throw CLIError(.failure, "\(r.input): no frame was decoded") }
        if r.json {
            emit(try JSON.report(Merged(base: report, extra: UnitIdentity(first)), schema: .videoDecode))
        } else {
            emit(VideoDecode.text(report) + "\n\(C.decodeLabel): \(set.name) version \(set.version)\nkinds:      "
                + report.frames.map { $0.kind == .predicted ? "P" : "I" }.joined())
        }
        return ExitCode.ok
    }
}
