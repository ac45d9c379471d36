/// How int_motion's and int_cond's payloads are read and written alike (each spec's §5):
/// the shared header with the GOP rule and two model-set ids (intra, then the P-frame set),
/// the index with each frame's kind by `i mod G`; each payload names its own fields.
protocol PredictiveVideoPayloadCoding: PredictiveVideoPayload, PredictiveVideoFormat {
    static var layout: VideoSequenceHeader.Layout { get }
    var frames: [PredictiveVideoIndexEntry] { get }
    var bytes: [UInt8] { get }
    init(header h: VideoSequenceHeader, frames: [PredictiveVideoIndexEntry], bytes: [UInt8])
}

/// A frame of a predictive sequence's index: its kind and where its bytes are in the payload.
public struct PredictiveVideoIndexEntry: Equatable, Sendable {
    public var kind: VideoIntMotionPayload.Kind
    public var range: Range<Int>
}

extension PredictiveVideoPayloadCoding {
    public var frameCount: Int { frames.count }
    public func frame(_ i: Int) -> [UInt8] { Array(bytes[frames[i].range]) }
    /// The intra frame decoding of frame i starts from (§6 step 5).
    public func intraFrame(before i: Int) -> Int { i - i % gop }

    static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational, gop: Int,
                     modelSetIDs: [[UInt8]], frames: [[UInt8]]) -> [UInt8] {
        VideoSequenceHeader.make(layout, chroma: chroma, width: width, height: height, frameRate: frameRate, aspect: aspect,
                                 intraPeriod: gop, modelSetIDs: modelSetIDs,
                                 frames: frames.enumerated().map {
                                     (kind: VideoIntMotionPayload.kind(ofFrame: $0.offset, gop: gop).code, bytes: $0.element)
                                 })
    }

    /// §5.1: the header and the index checked; the frames are parsed when they are decoded.
    static func parsed(_ bytes: [UInt8]) throws -> Self {
        let h: VideoSequenceHeader
        do { h = try VideoSequenceHeader.parse(bytes, layout) } catch let e as VideoSequenceHeaderError {
            throw PredictiveVideoPayloadError<Self>(e)
        }
        let frames = h.frames.enumerated().map {
            PredictiveVideoIndexEntry(kind: VideoIntMotionPayload.kind(ofFrame: $0.offset, gop: h.intraPeriod), range: $0.element.range)
        }
        return Self(header: h, frames: frames, bytes: bytes)
    }
}

/// A P-frame's body (each spec's §5): a count and a length per lane stream, then the streams.
public protocol PredictiveVideoPFrame: Sendable {
    associatedtype Format: PredictiveVideoFormat
    /// The streams' names, in order (errors and the `_count` / `_length` fields use them).
    static var fieldNames: [String] { get }
    var streams: [PredictiveVideoStream] { get }
    init(streams: [PredictiveVideoStream])
}

/// One lane stream of a P-frame and the number of values it codes.
public struct PredictiveVideoStream: Equatable, Sendable {
    public var count: Int
    public var bytes: [UInt8]
}

extension PredictiveVideoPFrame {
    public static var headerSize: Int { 8 * fieldNames.count }
    /// The smallest lane stream: a one-lane table (5 bytes) and a flushed state (4).
    public static var minimumStreamLength: Int { 9 }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        for s in streams { VideoSequenceHeader.le(&out, s.count, 4); VideoSequenceHeader.le(&out, s.bytes.count, 4) }
        for s in streams { out += s.bytes }
        return out
    }

    /// `at` is the frame's offset in the payload (errors name payload offsets).
    public static func parse(_ bytes: [UInt8], frame: Int, at: Int) throws -> Self {
        typealias E = PredictiveVideoPayloadError<Format>
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
        var streams: [PredictiveVideoStream] = [], offset = headerSize
        for (k, h) in heads.enumerated() {
            let s = Array(bytes[offset..<(offset + h.length)])
            do { _ = try RansLanes.laneRanges(s) } catch let e as RansLaneError {
                throw E.framePicture(frame: frame, offset: at + offset, part: fieldNames[k], error: .lanes(name: fieldNames[k], error: e))
            }
            streams.append(PredictiveVideoStream(count: h.count, bytes: s))
            offset += h.length
        }
        return Self(streams: streams)
    }
}
