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
    public var condModelSetID: [UInt8]
    public var frames: [Frame]
    public var bytes: [UInt8]

    public func frame(_ i: Int) -> [UInt8] { Array(bytes[frames[i].range]) }
    /// The intra frame decoding of frame i starts from (§6 step 5).
    public func intraFrame(before i: Int) -> Int { i - i % gop }

    public static func kind(ofFrame i: Int, gop: Int) -> Kind { VideoIntMotionPayload.kind(ofFrame: i, gop: gop) }

    static let layout = VideoSequenceHeader.gopLayout(magic: magic, idFields: ["intra_model_set_id", "cond_model_set_id"])

    public static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational, gop: Int,
                            intraModelSetID: [UInt8], condModelSetID: [UInt8], frames: [[UInt8]]) -> [UInt8] {
        VideoSequenceHeader.make(layout, chroma: chroma, width: width, height: height, frameRate: frameRate, aspect: aspect,
                                 intraPeriod: gop, modelSetIDs: [intraModelSetID, condModelSetID],
                                 frames: frames.enumerated().map { (kind: kind(ofFrame: $0.offset, gop: gop).code, bytes: $0.element) })
    }

    /// §5.1.
    public static func parse(_ bytes: [UInt8]) throws -> VideoIntCondPayload {
        let h: VideoSequenceHeader
        do { h = try VideoSequenceHeader.parse(bytes, layout) } catch let e as VideoSequenceHeaderError { throw VideoIntCondPayloadError(e) }
        return VideoIntCondPayload(chroma: h.chroma, width: h.width, height: h.height, frameRate: h.frameRate, aspect: h.aspect,
                                   gop: h.intraPeriod, intraModelSetID: h.modelSetIDs[0], condModelSetID: h.modelSetIDs[1],
                                   frames: h.frames.enumerated().map { Frame(kind: kind(ofFrame: $0.offset, gop: h.intraPeriod), range: $0.element.range) },
                                   bytes: bytes)
    }
}

/// A P-frame's body (§5): z's and y's count and length, then the two lane streams.
public struct VideoIntCondPFrame: Equatable, Sendable {
    public static let headerSize = 16
    /// The smallest lane stream: a one-lane table (5 bytes) and a flushed state (4).
    public static let minimumStreamLength = VideoIntMotionPFrame.minimumStreamLength
    public static let fieldNames = ["z", "y"]

    public typealias Stream = VideoIntMotionPFrame.Stream
    /// z, then y.
    public var streams: [Stream]

    public init(streams: [Stream]) { self.streams = streams }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        for s in streams { VideoSequenceHeader.le(&out, s.count, 4); VideoSequenceHeader.le(&out, s.bytes.count, 4) }
        for s in streams { out += s.bytes }
        return out
    }

    /// `at` is the frame's offset in the payload (errors name payload offsets).
    public static func parse(_ bytes: [UInt8], frame: Int, at: Int) throws -> VideoIntCondPFrame {
        typealias E = VideoIntCondPayloadError
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
        return VideoIntCondPFrame(streams: streams)
    }
}
