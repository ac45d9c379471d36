import WaiSupport
import WaiHost

/// The `wai.video.int_motion` side of `waihost encode` and `waihost decode`
/// (docs/capabilities/video_int_motion.md §9): VIH's inputs, outputs, frame sink and report,
/// with the motion set and the GOP added.
enum MotionVideoOptions {
    static let motionModel = OptionSpec.value("motion-model", "DIR", help: "a wai.video.int_motion model set: encode a motion-compensated sequence with it (its encoder files needed) / decode one",
                                              completion: .directory)
    static let gop = OptionSpec.value("gop", "G", help: "wai.video.int_motion: frames from one intra frame to the next, 1…65535 (default \(VideoIntMotionCodec.defaultGOP))")

    static func gop(_ p: ParsedArguments) throws(UsageError) -> Int? {
        try p.int("gop", in: VideoIntMotionPayload.gopRange)
    }
}

enum MotionVideoEncode {
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
        var motionModelSet: String
        var unit: UnitKind
        var backend: String
        var elapsedMs: Double
        enum CodingKeys: String, CodingKey {
            case capability, output, enveloped, width, height, chroma, frameRate = "frame_rate", intraPeriod = "intra_period", frames, bytes
            case bitsPerPixel = "bits_per_pixel", frameBytes = "frame_bytes", modelSet = "model_set_id"
            case motionModelSet = "motion_model_set_id", unit, backend, elapsedMs = "elapsed_ms"
        }
    }

    static func run(_ r: VideoEncode.Request, motionFolder: String, gop: Int) throws -> Int32 {
        let start = monotonicMilliseconds()
        let intra = try IntHyperModelSet.load(directory: r.folder, needsAnalysis: true)
        let motion = try MotionModelSet.load(directory: motionFolder, needsAnalysis: true)
        let s = try VideoEncode.source(r)
        try IntHyperSizeLimit.check(intra, width: s.width, height: s.height, encoding: true)
        let range = r.frames ?? 0...(s.count - 1)
        guard range.upperBound < s.count else {
            throw UsageError("--frames \(range.lowerBound)..\(range.upperBound): \(r.input) has \(s.count) frames (0..\(s.count - 1))")
        }
        let host = BackendHost(configuration: r.configuration)
        let runner = HostGraphRunner(host: host, selection: r.selection ?? host.configuration.defaultUnit)
        let encoded = try VideoIntMotionCodec.encode(count: range.count, frame: { try s.frame(range.lowerBound + $0) }, chroma: s.chroma,
                                                     width: s.width, height: s.height, frameRate: s.rate, aspect: s.aspect, gop: gop,
                                                     intraSet: intra, motionSet: motion, runner: runner, envelope: !r.raw)
        try ByteIO.write(encoded.bytes, to: r.output)
        guard let first = encoded.reports.first else { throw CLIError(.failure, "\(r.input): no frame was encoded") }
        let summary = Summary(capability: VideoIntMotionCodec.capability, output: r.output, enveloped: !r.raw, width: s.width,
                              height: s.height, chroma: s.chroma, frameRate: s.rate, intraPeriod: gop, frames: range.count,
                              bytes: encoded.bytes.count,
                              bitsPerPixel: Double(encoded.bytes.count * 8) / Double(s.width * s.height * range.count),
                              frameBytes: encoded.frameBytes, modelSet: intra.idHex, motionModelSet: motion.idHex, unit: first.unit,
                              backend: first.backend, elapsedMs: monotonicMilliseconds() - start)
        try CodecOptions.printEncodeSummary(summary, schema: .videoEncode, json: r.json, output: r.output, set: intra,
                                            unit: summary.unit, backend: summary.backend, elapsedMs: summary.elapsedMs,
                                            first: "\(r.output): \(r.raw ? "bare payload" : "WAI1 envelope") of \(VideoIntMotionCodec.capability), "
                                                + "\(range.count) frames of \(s.width)×\(s.height) \(s.chroma.rawValue) at \(s.rate) fps, GOP \(gop), "
                                                + "\(summary.bytes) bytes (\(CodecOptions.ratio(summary.bitsPerPixel)) bpp); motion model set \(motion.name) version \(motion.version), id \(motion.idHex)")
        return ExitCode.ok
    }
}

enum MotionVideoDecode {
    static func run(_ r: VideoDecode.Request, motionModel: String?) throws -> Int32 {
        let opened = try VideoIntMotionCodec.open(r.bytes)
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
        guard let motionFolder = try motionModel ?? ShippedModelSets.motionFolder(forID: p.motionModelSetID) else {
            throw UsageError("\(r.input) is a \(VideoIntMotionCodec.capability) sequence (P-frames made with model set "
                + "\(Hex.encode(p.motionModelSetID)), not the shipped \(try ShippedModelSets.motionFolder())); "
                + "give that set's folder with --motion-model DIR")
        }
        let intra = try IntHyperModelSet.load(directory: folder)
        let motion = try MotionModelSet.load(directory: motionFolder)
        let lower = r.output.lowercased()
        let rgb = lower.hasSuffix(".rgb")
        guard rgb || r.output == "-" || lower.hasSuffix(".y4m") else {
            throw UsageError("-o \(r.output): a sequence decodes to OUT.y4m, OUT.rgb (RGB8 frames) or - (Y4M on standard output)")
        }
        let range = r.frames ?? 0...(p.frames.count - 1)
        guard range.upperBound < p.frames.count else {
            throw VideoIntMotionPayloadError.frameRange(first: range.lowerBound, last: range.upperBound, frameCount: p.frames.count)
        }
        let host = BackendHost(configuration: r.configuration)
        let selection = r.selection ?? host.configuration.defaultUnit
        if selection != .reference { _ = try host.currentProbe() }
        let header = Y4MHeader(width: p.width, height: p.height, frameRate: p.frameRate, aspect: p.aspect, chroma: p.chroma.y4m)
        var sink = try FrameSink(path: r.output)
        var report = VideoDecodeReport(opened, intraSet: intra, motionSet: motion, range: range, output: r.output, outputFormat: rgb ? "rgb8" : "y4m")
        var first: RunReport?
        do {
            if !rgb { try sink.write(header.serialized()) }
            let decodeStart = monotonicMilliseconds()
            try VideoIntMotionCodec.decode(opened, intraSet: intra, motionSet: motion, runner: HostGraphRunner(host: host, selection: selection),
                                           frames: range) { frame in
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
            emit(VideoDecode.text(report) + "\nmotion set: \(motion.name) version \(motion.version)\nkinds:      "
                + report.frames.map { $0.kind == .predicted ? "P" : "I" }.joined())
        }
        return ExitCode.ok
    }
}
