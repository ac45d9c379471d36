/// The bare `wai.video.int_cond` payload (docs/capabilities/video_int_cond.md §5): the
/// shared 100-byte sequence header (VideoSequenceHeader: VIH §4's with the intra and the
/// conditional model-set ids and the GOP), a frame index of 16 bytes per frame, then the frames
/// back to back: intra frames are int_hyper pictures, P-frames two lane streams
/// (`VideoIntCondPFrame`). The frames themselves are parsed when they are decoded.
public struct VideoIntCondPayload: Equatable, Sendable {
    public static let magic: [UInt8] = [0x89, 0x56, 0x49, 0x43]   // \x89 V I C
    public static let version: UInt8 = 1
    public static let headerSize = 100
    public static let indexEntrySize = 16
    public static let maximumFrames = VideoIntHyperPayload.maximumFrames
    public static let gopRange = VideoIntMotionPayload.gopRange
    /// intra / predicted, as int_motion's (JSON spelling and index codes alike).
    public typealias Kind = VideoIntMotionPayload.Kind

    public typealias Frame = PredictiveVideoIndexEntry

    public var chroma: VideoChroma
    public var width: Int
    public var height: Int
    public var frameRate: Rational
    public var aspect: Rational
    /// G: frame i is intra exactly when i mod G = 0.
    public var gop: Int
    public var intraModelSetID: [UInt8]
    public var condModelSetID: [UInt8]
    public var frames: [Frame]
    public var bytes: [UInt8]

    public static func kind(ofFrame i: Int, gop: Int) -> Kind { VideoIntMotionPayload.kind(ofFrame: i, gop: gop) }

    static let layout = VideoSequenceHeader.gopLayout(magic: magic, idFields: ["intra_model_set_id", "cond_model_set_id"])

    public static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational, gop: Int,
                            intraModelSetID: [UInt8], condModelSetID: [UInt8], frames: [[UInt8]]) -> [UInt8] {
        make(chroma: chroma, width: width, height: height, frameRate: frameRate, aspect: aspect, gop: gop,
             modelSetIDs: [intraModelSetID, condModelSetID], frames: frames)
    }

    public static func parse(_ bytes: [UInt8]) throws -> VideoIntCondPayload { try parsed(bytes) }
}

extension VideoIntCondPayload: PredictiveVideoPayloadCoding {
    public var predictedModelSetID: [UInt8] { condModelSetID }

    init(header h: VideoSequenceHeader, frames: [Frame], bytes: [UInt8]) {
        self.init(chroma: h.chroma, width: h.width, height: h.height, frameRate: h.frameRate, aspect: h.aspect, gop: h.intraPeriod,
                  intraModelSetID: h.modelSetIDs[0], condModelSetID: h.modelSetIDs[1], frames: frames, bytes: bytes)
    }
}

/// A P-frame's body (§5): z's and y's count and length, then the two lane streams.
public struct VideoIntCondPFrame: PredictiveVideoPFrame, Equatable {
    public typealias Format = VideoIntCondPayload
    public typealias Stream = PredictiveVideoStream
    /// z, then y.
    public var streams: [Stream]
    public static let fieldNames = ["z", "y"]

    public init(streams: [Stream]) { self.streams = streams }
}
