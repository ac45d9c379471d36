import WaiSupport
import WaiHost
#if canImport(Glibc)
import Glibc
#endif

/// The `wai.video.int_hyper` side of `waihost encode` and `waihost decode`
/// (docs/capabilities/video_int_hyper.md §8–§9). The options are declared on the tables of
/// EncodeCommand and DecodeCommand; this file reads them and does the work.
enum VideoCodecOptions {
    static let frames = OptionSpec.value("frames", "A..B", help: "only frames A to B of a sequence (0-based, both included)")
    static let fps = OptionSpec.value("fps", "N[/D]", help: "a .rgb input is a sequence of RGB8 frames at this rate (wai.video.int_hyper)")
    static let chroma = OptionSpec.value("chroma", "C", help: "rgb (default), yuv420 or yuv444: how a .rgb sequence decodes to Y4M",
                                         completion: .words(VideoChroma.allCases.map(\.rawValue)))

    /// `--frames A..B`: 0-based, both ends included.
    static func frames(_ p: ParsedArguments) throws(UsageError) -> ClosedRange<Int>? {
        try p.value("frames", expected: "A..B with 0 ≤ A ≤ B (0-based frame numbers, both included)") { text in
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1].isEmpty, let a = Int(parts[0]), let b = Int(parts[2]), a >= 0, b >= a else { return nil }
            return a...b
        }
    }

    /// `--fps N` or `--fps N/D`.
    static func rate(_ p: ParsedArguments) throws(UsageError) -> Rational? {
        try p.value("fps", expected: "N or N/D with N and D in 1…\(Rational.maximumTerm)") { text in
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let n = Int(parts[0]), (1...Rational.maximumTerm).contains(n),
                  let d = parts.count == 2 ? Int(parts[1]) : 1, (1...Rational.maximumTerm).contains(d) else { return nil }
            return Rational(n, d)
        }
    }

    static func chroma(_ p: ParsedArguments) throws(UsageError) -> VideoChroma? {
        try p.value("chroma", expected: VideoChroma.allCases.map(\.rawValue).joined(separator: ", ")) { VideoChroma(rawValue: $0) }
    }

    /// A Y4M stream starts with its magic; standard input is read once and sniffed.
    static func isY4M(_ bytes: [UInt8]) -> Bool { bytes.starts(with: Y4MStream.magic) }
}

enum VideoEncode {
    struct Request {
        var input: String
        /// Standard input, when it was read to tell a Y4M stream from a picture.
        var bytes: [UInt8]?
        var output: String
        var folder: String
        var raw: Bool
        var json: Bool
        var size: (width: Int, height: Int)?
        var fps: Rational?
        var chroma: VideoChroma?
        var frames: ClosedRange<Int>?
        var selection: UnitSelection?
        var configuration: HostConfiguration
    }

    struct Summary: Encodable {
        var capability: String
        var output: String
        var enveloped: Bool
        var width: Int
        var height: Int
        var chroma: VideoChroma
        var frameRate: Rational
        var frames: Int
        var bytes: Int
        var bitsPerPixel: Double
        var pictureBytes: [Int]
        var modelSet: String
        var unit: UnitKind
        var backend: String
        var elapsedMs: Double
        enum CodingKeys: String, CodingKey {
            case capability, output, enveloped, width, height, chroma, frameRate = "frame_rate", frames, bytes
            case bitsPerPixel = "bits_per_pixel", pictureBytes = "picture_bytes", modelSet = "model_set_id", unit, backend
            case elapsedMs = "elapsed_ms"
        }
    }

    /// Frames as RGB8, whatever the input: Y4M planes through §5's conversion, or .rgb rows.
    struct Source {
        var width: Int, height: Int, rate: Rational, aspect: Rational, chroma: VideoChroma, count: Int
        var frame: (Int) throws -> RGB8Image
    }

    static let maximumInputSize = 1 << 30

    static func source(_ r: Request) throws -> Source {
        if r.input == "-" || PictureFormat.of(r.input, sequences: true) == .y4m {
            guard r.size == nil, r.fps == nil, r.chroma == nil else {
                throw UsageError("--size, --fps and --chroma are for .rgb input; a Y4M stream carries them in its header")
            }
            let bytes = try r.bytes ?? ByteIO.read(r.input, limit: maximumInputSize)
            let y4m = try Y4MStream.parse(bytes, source: r.input, maximumFrames: VideoIntHyperPayload.maximumFrames)
            let h = y4m.header
            return Source(width: h.width, height: h.height, rate: h.frameRate, aspect: h.aspect,
                          chroma: h.chroma.isSubsampled ? .yuv420 : .yuv444, count: y4m.frames.count) { i in
                try YCbCrBT601.rgb(planes: y4m.planes(i), width: h.width, height: h.height, chroma: h.chroma)
            }
        }
        guard let size = r.size, let fps = r.fps else {
            throw UsageError("a .rgb sequence needs --size WxH and --fps N[/D]")
        }
        let bytes = try LocalFile.read(r.input, limit: maximumInputSize)
        let frameBytes = size.width * size.height * 3
        guard !bytes.isEmpty, bytes.count % frameBytes == 0 else {
            throw ImageError.sizeMismatch(source: r.input + " (RGB8 frames of \(size.width)×\(size.height))",
                                          expected: (bytes.count / frameBytes + 1) * frameBytes, found: bytes.count)
        }
        return Source(width: size.width, height: size.height, rate: fps, aspect: Rational(0, 0), chroma: r.chroma ?? .rgb,
                      count: bytes.count / frameBytes) { i in
            try RGB8Image(width: size.width, height: size.height, pixels: Array(bytes[(i * frameBytes)..<((i + 1) * frameBytes)]))
        }
    }

    static func run(_ r: Request) throws -> Int32 {
        let start = monotonicMilliseconds()
        let set = try IntHyperModelSet.load(directory: r.folder, needsAnalysis: true)
        let s = try source(r)
        try IntHyperSizeLimit.check(set, width: s.width, height: s.height, encoding: true)
        let range = r.frames ?? 0...(s.count - 1)
        guard range.upperBound < s.count else {
            throw UsageError("--frames \(range.lowerBound)..\(range.upperBound): \(r.input) has \(s.count) frames (0..\(s.count - 1))")
        }
        let host = BackendHost(configuration: r.configuration)
        let runner = HostGraphRunner(host: host, selection: r.selection ?? host.configuration.defaultUnit)
        let encoded = try VideoIntHyperCodec.encode(count: range.count, frame: { try s.frame(range.lowerBound + $0) },
                                                    chroma: s.chroma, width: s.width, height: s.height, frameRate: s.rate,
                                                    aspect: s.aspect, modelSet: set, runner: runner, envelope: !r.raw)
        try ByteIO.write(encoded.bytes, to: r.output)
        guard let first = encoded.reports.first else { throw CLIError(.failure, "\(r.input): no frame was encoded") }
        let summary = Summary(capability: VideoIntHyperCodec.capability, output: r.output, enveloped: !r.raw, width: s.width,
                              height: s.height, chroma: s.chroma, frameRate: s.rate, frames: range.count,
                              bytes: encoded.bytes.count,
                              bitsPerPixel: Double(encoded.bytes.count * 8) / Double(s.width * s.height * range.count),
                              pictureBytes: encoded.pictureBytes, modelSet: set.idHex, unit: first.unit,
                              backend: first.backend, elapsedMs: monotonicMilliseconds() - start)
        try CodecOptions.printEncodeSummary(summary, schema: .videoEncode, json: r.json, output: r.output, set: set,
                                            unit: summary.unit, backend: summary.backend, elapsedMs: summary.elapsedMs,
                                            first: "\(r.output): \(r.raw ? "bare payload" : "WAI1 envelope") of \(VideoIntHyperCodec.capability), "
                                                + "\(range.count) frames of \(s.width)×\(s.height) \(s.chroma.rawValue) at \(s.rate) fps, \(summary.bytes) bytes "
                                                + "(\(CodecOptions.ratio(summary.bitsPerPixel)) bpp)")
        return ExitCode.ok
    }
}

enum VideoDecode {
    struct Request {
        var input: String
        var bytes: [UInt8]
        var output: String
        var model: String?
        var frames: ClosedRange<Int>?
        var reportPath: String?
        var json: Bool
        var selection: UnitSelection?
        var configuration: HostConfiguration
    }

    static func run(_ r: Request) throws -> Int32 {
        let opened = try VideoIntHyperCodec.open(r.bytes)
        let p = opened.payload
        let folder: String
        if let model = r.model {
            folder = model
        } else {
            guard let shipped = try ShippedModelSets.folder(forID: p.modelSetID) else {
                throw ModelSetError(file: r.input, problem: "made with model set \(Hex.encode(p.modelSetID)), which is none of the shipped "
                    + "sets (\(try ShippedModelSets.folders().joined(separator: ", "))); give its folder with --model DIR")
            }
            folder = shipped
        }
        let set = try IntHyperModelSet.load(directory: folder)
        let lower = r.output.lowercased()
        let rgb = lower.hasSuffix(".rgb")
        guard rgb || r.output == "-" || lower.hasSuffix(".y4m") else {
            throw UsageError("-o \(r.output): a sequence decodes to OUT.y4m, OUT.rgb (RGB8 frames) or - (Y4M on standard output)")
        }
        let range = r.frames ?? 0...(p.frames.count - 1)
        guard range.upperBound < p.frames.count else {
            throw VideoPayloadError.frameRange(first: range.lowerBound, last: range.upperBound, frameCount: p.frames.count)
        }
        let host = BackendHost(configuration: r.configuration)
        let selection = r.selection ?? host.configuration.defaultUnit
        // Probe (or read cached verdicts) before decoding, so the timings are the decode's.
        if selection != .reference { _ = try host.currentProbe() }
        let header = Y4MHeader(width: p.width, height: p.height, frameRate: p.frameRate, aspect: p.aspect, chroma: p.chroma.y4m)
        var sink = try FrameSink(path: r.output)
        var report = VideoDecodeReport(opened, modelSet: set, range: range, output: r.output, outputFormat: rgb ? "rgb8" : "y4m")
        // The first frame's unit is the one the report names; its identity comes from its run report.
        var first: RunReport?
        do {
            if !rgb { try sink.write(header.serialized()) }
            let decodeStart = monotonicMilliseconds()
            try VideoIntHyperCodec.decode(opened, modelSet: set, runner: HostGraphRunner(host: host, selection: selection),
                                          frames: range) { frame in
                try sink.write(rgb ? frame.image.pixels : try Y4MWriter.frame(frame.planes, header: header))
                report.add(frame)
                if first == nil { first = frame.report }
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
        emit(r.json ? try JSON.report(Merged(base: report, extra: UnitIdentity(first)), schema: .videoDecode) : text(report))
        return ExitCode.ok
    }

    static func text(_ r: VideoDecodeReport) -> String {
        let t = r.timings
        var lines = [
            "capability: \(r.capability)\(r.enveloped ? " (WAI1 envelope)" : " (bare payload)")",
            "sequence:   \(r.width)×\(r.height) \(r.chroma.rawValue), \(r.frameRate) fps (\(CodecOptions.ratio(r.fps))), "
                + "\(r.frameCount) frames, intra period \(r.intraPeriod), \(r.inputBytes) bytes in",
            "frames:     \(r.firstFrame)..\(r.lastFrame) decoded (\(r.frames.count))",
            "model set:  \(r.modelSet.name) version \(r.modelSet.version)",
            "unit:       \(r.unit?.rawValue ?? "-")",
            "backend:    \(r.backend)",
            "device:     \(r.device)",
            "driver:     \(r.driver)",
            "dispatch:   \(r.dispatch?.rawValue ?? "-")\(r.rank.map { " (rank \($0))" } ?? "")",
            "reason:     \(r.reason)",
        ]
        if r.units.count > 1 {
            lines.append("units:      " + r.units.map { "\($0.backend) (\($0.device)): \($0.frames) frames" }.joined(separator: "; "))
        }
        lines.append("timings:    entropy \(CodecOptions.ms(t.entropyMs)), graphs \(CodecOptions.ms(t.graphMs)), "
            + "colour \(CodecOptions.ms(t.colorMs)), total \(CodecOptions.ms(t.totalMs)), \(CodecOptions.ratio(t.framesPerSecond)) frames/s")
        lines.append("output:     \(r.output == "-" ? "standard output" : r.output ?? "-") (\(r.outputFormat == "y4m" ? "Y4M \(r.y4mChroma)" : "RGB8 frames"))")
        lines.append("frame sha256 (Y4M planes \(r.y4mChroma)):")
        lines += r.frames.map { "  \($0.index) \($0.sha256)" }
        return lines.joined(separator: "\n")
    }
}

/// Decoded frames go out as they are made: to standard output directly, to a file through a
/// temporary file renamed into place at the end (a failed decode leaves no partial file).
struct FrameSink {
    let path: String
    let temporary: String?
    let fd: Int32

    init(path: String) throws {
        self.path = path
        if path == "-" {
            temporary = nil; fd = 1
        } else {
            let tmp = "\(path).tmp.\(getpid())"
            let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw FileError(path: path, problem: "cannot create \(tmp): \(String(cString: strerror(errno)))") }
            temporary = tmp; self.fd = fd
        }
    }

    mutating func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return }
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileError(path: path, problem: "cannot write: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
    }

    func commit() throws {
        guard let temporary else { return }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileError(path: path, problem: "cannot rename \(temporary) into place: \(reason)")
        }
    }

    func abandon() {
        guard let temporary else { return }
        close(fd)
        unlink(temporary)
    }
}
