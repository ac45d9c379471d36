/// The bare `wai.video.int_motion` payload (docs/capabilities/video_int_motion.md §5): a
/// 100-byte sequence header (VIH §4's with a second model-set id and the GOP), a frame index
/// of 16 bytes per frame, then the frames back to back: intra frames are int_hyper pictures,
/// P-frames four lane streams (`VideoIntMotionPFrame`). Parsing checks every header field,
/// every index entry (kind by `i mod G`) and that the frames fill the payload exactly; the
/// frames themselves are parsed when they are decoded.
public struct VideoIntMotionPayload: Equatable, Sendable {
    public static let magic: [UInt8] = [0x89, 0x56, 0x49, 0x4D]   // \x89 V I M
    public static let version: UInt8 = 1
    public static let headerSize = 100
    public static let indexEntrySize = 16
    public static let maximumFrames = VideoIntHyperPayload.maximumFrames
    public static let gopRange = 1...65535

    /// A frame's kind; JSON spells it `intra` / `predicted`, the index entry by its code.
    public enum Kind: String, Sendable, Codable {
        case intra, predicted
        public var code: UInt8 { self == .intra ? 1 : 2 }
    }

    public typealias Frame = PredictiveVideoIndexEntry

    public var chroma: VideoChroma
    public var width: Int
    public var height: Int
    public var frameRate: Rational
    public var aspect: Rational
    /// G: frame i is intra exactly when i mod G = 0.
    public var gop: Int
    public var intraModelSetID: [UInt8]
    public var motionModelSetID: [UInt8]
    public var frames: [Frame]
    public var bytes: [UInt8]

    public static func kind(ofFrame i: Int, gop: Int) -> Kind { i % gop == 0 ? .intra : .predicted }

    /// VIH §4's header with the intra and motion model-set ids and the GOP rule (§5).
    static let layout = VideoSequenceHeader.gopLayout(magic: magic, idFields: ["intra_model_set_id", "motion_model_set_id"])

    public static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational, gop: Int,
                            intraModelSetID: [UInt8], motionModelSetID: [UInt8], frames: [[UInt8]]) -> [UInt8] {
        make(chroma: chroma, width: width, height: height, frameRate: frameRate, aspect: aspect, gop: gop,
             modelSetIDs: [intraModelSetID, motionModelSetID], frames: frames)
    }

    public static func parse(_ bytes: [UInt8]) throws -> VideoIntMotionPayload { try parsed(bytes) }
}

extension VideoIntMotionPayload: PredictiveVideoPayloadCoding {
    public var predictedModelSetID: [UInt8] { motionModelSetID }

    init(header h: VideoSequenceHeader, frames: [Frame], bytes: [UInt8]) {
        self.init(chroma: h.chroma, width: h.width, height: h.height, frameRate: h.frameRate, aspect: h.aspect, gop: h.intraPeriod,
                  intraModelSetID: h.modelSetIDs[0], motionModelSetID: h.modelSetIDs[1], frames: frames, bytes: bytes)
    }
}

/// A P-frame's body (§5): four counts and lengths, then the four lane streams.
public struct VideoIntMotionPFrame: PredictiveVideoPFrame, Equatable {
    public typealias Format = VideoIntMotionPayload
    public typealias Stream = PredictiveVideoStream
    /// Motion z, motion y, residual z, residual y.
    public var streams: [Stream]
    public static let fieldNames = ["motion_z", "motion_y", "residual_z", "residual_y"]

    public init(streams: [Stream]) { self.streams = streams }
}
