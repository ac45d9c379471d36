/// What `waihost decode` reports for a `wai.video.int_hyper` sequence
/// (docs/capabilities/video_int_hyper.md §9): the sequence, the unit that decoded it and why,
/// every decoded frame's hashes and the entropy / graph / colour split of the time.
public struct VideoDecodeReport: Codable, Sendable, Equatable {
    public struct FrameInfo: Codable, Sendable, Equatable {
        public var index: Int
        /// Presentation time in seconds: index · denominator / numerator of the frame rate.
        public var time: Double
        /// SHA-256 of the frame's Y4M planes (Y, Cb, Cr; no FRAME line).
        public var sha256: String
        /// SHA-256 of the model's RGB8 rows for this frame.
        public var rgbSHA256: String
        public var pictureBytes: Int
        public var backend: String
        public var device: String
        /// wai.video.int_motion and wai.video.int_cond (their §9): intra or predicted; absent otherwise.
        public var kind: VideoIntMotionPayload.Kind?
        enum CodingKeys: String, CodingKey {
            case index, time, sha256, rgbSHA256 = "rgb_sha256", pictureBytes = "picture_bytes", backend, device, kind
        }
    }

    /// One unit and how many of the decoded frames it made (more than one entry only when a
    /// unit failed or was demoted mid-sequence and the host moved to the next).
    public struct UnitShare: Codable, Sendable, Equatable {
        public var unit: UnitKind
        public var backend: String
        public var device: String
        public var frames: Int
    }

    public struct Timings: Codable, Sendable, Equatable {
        public var entropyMs: Double
        public var graphMs: Double
        public var colorMs: Double
        public var totalMs: Double
        public var framesPerSecond: Double
        enum CodingKeys: String, CodingKey {
            case entropyMs = "entropy_ms", graphMs = "graph_ms", colorMs = "color_ms", totalMs = "total_ms"
            case framesPerSecond = "frames_per_second"
        }
    }

    public var capability: String
    public var enveloped: Bool
    public var width: Int
    public var height: Int
    public var chroma: VideoChroma
    public var frameRate: Rational
    public var fps: Double
    public var intraPeriod: Int
    public var frameCount: Int
    public var firstFrame: Int
    public var lastFrame: Int
    public var modelSet: IntHyperDecodeReport.ModelSetInfo
    /// wai.video.int_motion: the P-frames' model set (video_int_motion.md §9); absent otherwise.
    public var motionModelSet: IntHyperDecodeReport.ModelSetInfo?
    /// wai.video.int_cond: the P-frames' model set (video_int_cond.md §9); absent otherwise.
    public var condModelSet: IntHyperDecodeReport.ModelSetInfo?
    /// The unit that decoded the sequence: the one that made the first decoded frame; nil
    /// only until `add` is given a frame.
    public var unit: UnitKind?
    public var backend: String
    public var device: String
    public var driver: String
    /// How the first frame's graphs were dispatched; nil only until `add` is given a frame.
    public var dispatch: DispatchKind?
    public var reason: String
    public var rank: Int?
    public var units: [UnitShare]
    public var inputBytes: Int
    public var output: String?
    /// `y4m` (planes as `frames[].sha256` hashes them) or `rgb8` (the RGB8 rows of `rgb_sha256`).
    public var outputFormat: String
    /// The Y4M chroma tag written (`C420jpeg`, `C444`); the layout `sha256` is of in either format.
    public var y4mChroma: String
    public var frames: [FrameInfo]
    public var timings: Timings

    enum CodingKeys: String, CodingKey {
        case capability, enveloped, width, height, chroma, frameRate = "frame_rate", fps, intraPeriod = "intra_period"
        case frameCount = "frame_count", firstFrame = "first_frame", lastFrame = "last_frame", modelSet = "model_set"
        case motionModelSet = "motion_model_set", condModelSet = "cond_model_set"
        case unit, backend, device, driver, dispatch, reason, rank, units, inputBytes = "input_bytes", output
        case outputFormat = "output_format", y4mChroma = "y4m_chroma", frames, timings
    }

    /// Built as frames arrive (`add`), finished with the wall time.
    public init(_ opened: VideoIntHyperCodec.Opened, modelSet: IntHyperModelSet, range: ClosedRange<Int>,
                output: String?, outputFormat: String) {
        let p = opened.payload
        capability = VideoIntHyperCodec.capability
        enveloped = opened.enveloped
        width = p.width; height = p.height; chroma = p.chroma
        frameRate = p.frameRate; fps = p.frameRate.value; intraPeriod = p.intraPeriod
        frameCount = p.frames.count; firstFrame = range.lowerBound; lastFrame = range.upperBound
        self.modelSet = .init(name: modelSet.name, version: modelSet.version, id: modelSet.idHex)
        motionModelSet = nil
        condModelSet = nil
        unit = nil; backend = ""; device = ""; driver = ""; dispatch = nil; reason = ""; rank = nil
        units = []
        inputBytes = opened.inputBytes
        self.output = output
        self.outputFormat = outputFormat
        y4mChroma = "C" + p.chroma.y4m.rawValue
        frames = []
        timings = Timings(entropyMs: 0, graphMs: 0, colorMs: 0, totalMs: 0, framesPerSecond: 0)
    }

    public mutating func add(_ f: VideoIntHyperCodec.Frame) {
        let r = f.report
        if frames.isEmpty {
            unit = r.unit; backend = r.backend; device = r.device; driver = r.driver
            dispatch = r.dispatch; reason = r.reason; rank = r.rank
        }
        if let k = units.firstIndex(where: { $0.backend == r.backend && $0.device == r.device && $0.unit == r.unit }) {
            units[k].frames += 1
        } else {
            units.append(UnitShare(unit: r.unit, backend: r.backend, device: r.device, frames: 1))
        }
        let time = Double(f.index) * Double(frameRate.denominator) / Double(frameRate.numerator)
        frames.append(FrameInfo(index: f.index, time: time, sha256: SHA256.hex(f.planes), rgbSHA256: f.image.sha256,
                                pictureBytes: f.pictureBytes, backend: r.backend, device: r.device, kind: nil))
        timings.entropyMs += f.timings.entropy
        timings.graphMs += f.timings.hyperSynthesis + f.timings.synthesis
        timings.colorMs += f.colorMs
    }

    public mutating func finish(totalMs: Double) {
        timings.totalMs = totalMs
        timings.framesPerSecond = totalMs > 0 ? Double(frames.count) * 1000 / totalMs : 0
    }
}
