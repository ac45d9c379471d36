/// `wai.video.int_hyper` (docs/capabilities/video_int_hyper.md): intra-only video, every frame
/// an int_hyper picture decoded by `IntHyperDecoder` (its payload parser and graphs, not a
/// copy), then converted to Y'CbCr planes by the exact integer conversion of §5.
public enum VideoIntHyperCodec {
    public static let capability = "wai.video.int_hyper"

    public struct Opened: Sendable {
        public var payload: VideoIntHyperPayload
        public var enveloped: Bool
        public var inputBytes: Int
    }

    /// An envelope (its SHA-256 checked) or a bare payload of this capability, parsed (§6 steps 1–2).
    public static func open(_ bytes: [UInt8]) throws -> Opened {
        let opened = try CapabilityRegistry.open(bytes, expecting: capability)
        return Opened(payload: try VideoIntHyperPayload.parse(opened.payload), enveloped: opened.enveloped,
                      inputBytes: bytes.count)
    }

    /// True when `bytes` are this capability's envelope or bare payload (whatever else is wrong with them).
    public static func isVideo(_ bytes: [UInt8]) -> Bool {
        (try? CapabilityRegistry.open(bytes))?.capability == capability
    }

    public struct Frame: Sendable {
        public var index: Int
        /// The model's output, RGB8 rows.
        public var image: RGB8Image
        /// The frame's planes in the sequence's Y4M layout (§5): what `-o OUT.y4m` writes.
        public var planes: [UInt8]
        public var pictureBytes: Int
        /// g_s's run: the unit that made this frame's pixels.
        public var report: RunReport
        public var hyperReport: RunReport
        public var timings: IntHyperDecoder.Timings
        /// RGB → Y'CbCr, milliseconds.
        public var colorMs: Double
    }

    /// Decodes frames `range` (default all) in order, handing each to `each` as soon as it is
    /// decoded, so a pipe gets frames while the rest decode (§6).
    public static func decode(_ opened: Opened, modelSet: IntHyperModelSet, runner: GraphRunner,
                              frames range: ClosedRange<Int>? = nil, each: (Frame) throws -> Void) throws {
        let p = opened.payload
        guard p.modelSetID == modelSet.id else {
            throw VideoPayloadError.modelSetMismatch(payload: Hex.encode(p.modelSetID), modelSet: modelSet.idHex,
                                                     name: modelSet.name, version: modelSet.version)
        }
        let all = 0...(p.frames.count - 1)
        let wanted = range ?? all
        guard all.contains(wanted.lowerBound), all.contains(wanted.upperBound) else {
            throw VideoPayloadError.frameRange(first: wanted.lowerBound, last: wanted.upperBound, frameCount: p.frames.count)
        }
        // Decoding starts at the last intra frame at or before the first one asked for; in
        // this capability every frame is intra, so that is the first one asked for.
        let decoder = IntHyperDecoder(modelSet: modelSet)
        for i in wanted {
            let at = p.frames[i].range.lowerBound
            let picture: IntHyperPayload
            do {
                picture = try IntHyperPayload.parse(p.picture(i))
            } catch let e as IntHyperPayloadError {
                throw VideoPayloadError.framePicture(frame: i, offset: at, error: e)
            }
            guard picture.width == p.width, picture.height == p.height else {
                throw VideoPayloadError.frameMismatch(frame: i, offset: at,
                                                      problem: "the picture is \(picture.width)×\(picture.height), the sequence \(p.width)×\(p.height)")
            }
            guard picture.modelSetID == p.modelSetID else {
                throw VideoPayloadError.frameMismatch(frame: i, offset: at,
                                                      problem: "the picture names model set \(Hex.encode(picture.modelSetID)), the sequence \(Hex.encode(p.modelSetID))")
            }
            let result: IntHyperDecoder.Result
            do {
                result = try decoder.decode(picture, runner: runner)
            } catch let e as IntHyperPayloadError {
                throw VideoPayloadError.framePicture(frame: i, offset: at, error: e)
            }
            let (planes, colorMs) = Stopwatch.time { YCbCrBT601.planes(result.image, chroma: p.chroma.y4m) }
            try each(Frame(index: i, image: result.image, planes: planes, pictureBytes: p.frames[i].range.count,
                           report: result.synthesisReport, hyperReport: result.hyperSynthesisReport,
                           timings: result.timings, colorMs: colorMs))
        }
    }

    public struct Encoded: Sendable {
        public var bytes: [UInt8]
        public var pictureBytes: [Int]
        /// h_s's run of each frame (the unit that chose the tables).
        public var reports: [RunReport]
    }

    /// Encodes `count` frames, `frame(i)` giving frame i as RGB8 (§8): each an int_hyper
    /// picture made by `IntHyperEncoder`.
    public static func encode(count: Int, frame: (Int) throws -> RGB8Image, chroma: VideoChroma, width: Int, height: Int,
                              frameRate: Rational, aspect: Rational, modelSet: IntHyperModelSet, runner: GraphRunner,
                              envelope: Bool = true) throws -> Encoded {
        guard (1...VideoIntHyperPayload.maximumFrames).contains(count) else {
            throw VideoPayloadError.invalidField(field: "frame_count", offset: 32,
                                                 problem: "would be \(count); 1…\(VideoIntHyperPayload.maximumFrames) allowed")
        }
        let encoder = IntHyperEncoder(modelSet: modelSet)
        var pictures: [[UInt8]] = [], reports: [RunReport] = []
        for i in 0..<count {
            let image = try frame(i)
            guard image.width == width, image.height == height else {
                throw VideoPayloadError.frameMismatch(frame: i, offset: 0,
                                                      problem: "the frame is \(image.width)×\(image.height), the sequence \(width)×\(height)")
            }
            let r = try encoder.encode(image, runner: runner)
            pictures.append(r.bytes)
            reports.append(r.hyperSynthesisReport)
        }
        let payload = VideoIntHyperPayload.make(chroma: chroma, width: width, height: height, frameRate: frameRate,
                                                aspect: aspect, modelSetID: modelSet.id, pictures: pictures)
        let bytes = envelope ? try Envelope.encode(capability: capability, payload: payload) : payload
        return Encoded(bytes: bytes, pictureBytes: pictures.map(\.count), reports: reports)
    }
}
