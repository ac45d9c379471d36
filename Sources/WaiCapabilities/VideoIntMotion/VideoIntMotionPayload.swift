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

    public struct Frame: Equatable, Sendable {
        public var kind: Kind
        public var range: Range<Int>
    }

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

    public func frame(_ i: Int) -> [UInt8] { Array(bytes[frames[i].range]) }
    /// The intra frame decoding of frame i starts from (§6 step 5).
    public func intraFrame(before i: Int) -> Int { i - i % gop }

    public static func kind(ofFrame i: Int, gop: Int) -> Kind { i % gop == 0 ? .intra : .predicted }

    /// VIH §4's header with the intra and motion model-set ids and the GOP rule (§5).
    static let layout = VideoSequenceHeader.gopLayout(magic: magic, idFields: ["intra_model_set_id", "motion_model_set_id"])

    public static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational, gop: Int,
                            intraModelSetID: [UInt8], motionModelSetID: [UInt8], frames: [[UInt8]]) -> [UInt8] {
        VideoSequenceHeader.make(layout, chroma: chroma, width: width, height: height, frameRate: frameRate, aspect: aspect,
                                 intraPeriod: gop, modelSetIDs: [intraModelSetID, motionModelSetID],
                                 frames: frames.enumerated().map { (kind: kind(ofFrame: $0.offset, gop: gop).code, bytes: $0.element) })
    }

    public static func parse(_ bytes: [UInt8]) throws -> VideoIntMotionPayload {
        let h: VideoSequenceHeader
        do { h = try VideoSequenceHeader.parse(bytes, layout) } catch let e as VideoSequenceHeaderError { throw VideoIntMotionPayloadError(e) }
        return VideoIntMotionPayload(chroma: h.chroma, width: h.width, height: h.height, frameRate: h.frameRate, aspect: h.aspect,
                                     gop: h.intraPeriod, intraModelSetID: h.modelSetIDs[0], motionModelSetID: h.modelSetIDs[1],
                                     frames: h.frames.enumerated().map { Frame(kind: kind(ofFrame: $0.offset, gop: h.intraPeriod), range: $0.element.range) },
                                     bytes: bytes)
    }

    static func le(_ out: inout [UInt8], _ v: Int, _ n: Int) { VideoSequenceHeader.le(&out, v, n) }
}

/// A P-frame's body (§5): four counts and lengths, then the four lane streams.
public struct VideoIntMotionPFrame: Equatable, Sendable {
    public static let headerSize = 32
    /// The smallest lane stream: a one-lane table (5 bytes) and a flushed state (4).
    public static let minimumStreamLength = 9

    public struct Stream: Equatable, Sendable {
        public var count: Int
        public var bytes: [UInt8]
    }
    /// Motion z, motion y, residual z, residual y.
    public var streams: [Stream]
    public static let fieldNames = ["motion_z", "motion_y", "residual_z", "residual_y"]

    public init(streams: [Stream]) { self.streams = streams }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        for s in streams { VideoIntMotionPayload.le(&out, s.count, 4); VideoIntMotionPayload.le(&out, s.bytes.count, 4) }
        for s in streams { out += s.bytes }
        return out
    }

    /// `at` is the frame's offset in the payload (errors name payload offsets).
    public static func parse(_ bytes: [UInt8], frame: Int, at: Int) throws -> VideoIntMotionPFrame {
        typealias E = VideoIntMotionPayloadError
        var r = FieldReader(bytes) { E.truncated(field: "P-frame \(frame) \($0)", offset: at + $1, needed: $2, available: $3) }
        var heads: [(count: Int, length: Int)] = []
        for name in fieldNames {
            let count = try r.u32(name + "_count")
            let lengthAt = at + r.offset
            let length = try r.u32(name + "_length")
            guard length >= minimumStreamLength else {
                throw E.invalidFrame(frame: frame, field: name + "_length", offset: lengthAt,
                                     problem: "is \(length); a lane stream has at least \(minimumStreamLength) bytes")
            }
            heads.append((count, length))
        }
        let total = heads.reduce(Int64(headerSize)) { $0 + Int64($1.length) }
        guard total == Int64(bytes.count) else {
            throw E.invalidFrame(frame: frame, field: "stream lengths", offset: at + 4,
                                 problem: "add up to \(total) bytes with the header; the frame has \(bytes.count)")
        }
        var streams: [Stream] = [], offset = headerSize
        for (k, h) in heads.enumerated() {
            let s = Array(bytes[offset..<(offset + h.length)])
            do { _ = try RansLanes.laneRanges(s) } catch let e as RansLaneError {
                throw E.framePicture(frame: frame, offset: at + offset, part: fieldNames[k], error: .lanes(name: fieldNames[k], error: e))
            }
            streams.append(Stream(count: h.count, bytes: s))
            offset += h.length
        }
        return VideoIntMotionPFrame(streams: streams)
    }
}
