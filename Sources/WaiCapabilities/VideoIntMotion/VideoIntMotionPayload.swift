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

    public static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational, gop: Int,
                            intraModelSetID: [UInt8], motionModelSetID: [UInt8], frames: [[UInt8]]) -> [UInt8] {
        var out = magic
        out += [version, 0, chroma.code, VideoIntHyperPayload.matrixBT601Limited]
        le(&out, width, 2); le(&out, height, 2)
        le(&out, frameRate.numerator, 4); le(&out, frameRate.denominator, 4)
        le(&out, aspect.numerator, 4); le(&out, aspect.denominator, 4)
        le(&out, gop, 4)
        le(&out, frames.count, 4)
        out += intraModelSetID + motionModelSetID
        var offset = headerSize + indexEntrySize * frames.count
        for (i, f) in frames.enumerated() {
            le(&out, offset, 8); le(&out, f.count, 4)
            out += [kind(ofFrame: i, gop: gop).code, 0, 0, 0]
            offset += f.count
        }
        for f in frames { out += f }
        return out
    }

    public static func parse(_ bytes: [UInt8]) throws -> VideoIntMotionPayload {
        typealias E = VideoIntMotionPayloadError
        var r = FieldReader(bytes) { E.truncated(field: $0, offset: $1, needed: $2, available: $3) }
        let m = try r.take(4, "magic")
        guard m.elementsEqual(magic) else { throw E.badMagic(found: Array(m)) }
        let v = try r.u8("version")
        guard v == version else { throw E.unsupportedVersion(v) }
        func invalid(_ field: String, _ offset: Int, _ problem: String) -> E { .invalidField(field: field, offset: offset, problem: problem) }
        let flags = try r.u8("flags")
        guard flags == 0 else { throw invalid("flags", 5, "is \(flags), must be 0") }
        let code = try r.u8("chroma")
        guard let chroma = VideoChroma(code: code) else { throw invalid("chroma", 6, "is \(code); 0 (rgb), 1 (yuv420) or 2 (yuv444)") }
        let matrix = try r.u8("matrix")
        guard matrix == VideoIntHyperPayload.matrixBT601Limited else { throw invalid("matrix", 7, "is \(matrix); 1 (BT.601 limited range) is the only one") }
        let width = try r.uint("width", 2), height = try r.uint("height", 2)
        guard width >= 1 else { throw invalid("width", 8, "is 0; 1…65535 allowed") }
        guard height >= 1 else { throw invalid("height", 10, "is 0; 1…65535 allowed") }
        let rn = try r.uint("frame_rate_numerator", 4), rd = try r.uint("frame_rate_denominator", 4)
        for (field, offset, value) in [("frame_rate_numerator", 12, rn), ("frame_rate_denominator", 16, rd)]
        where !(1...Rational.maximumTerm).contains(value) {
            throw invalid(field, offset, "is \(value); 1…\(Rational.maximumTerm) allowed")
        }
        let an = try r.uint("aspect_numerator", 4), ad = try r.uint("aspect_denominator", 4)
        guard an <= Rational.maximumTerm, ad <= Rational.maximumTerm, (an == 0) == (ad == 0) else {
            throw invalid("aspect_numerator", 20, "with aspect_denominator is \(an):\(ad); both in 1…\(Rational.maximumTerm), or 0:0 (unknown)")
        }
        let gop = try r.uint("intra_period", 4)
        guard gopRange.contains(gop) else { throw invalid("intra_period", 28, "is \(gop); 1…\(gopRange.upperBound) allowed") }
        let count = try r.uint("frame_count", 4)
        guard (1...maximumFrames).contains(count) else { throw invalid("frame_count", 32, "is \(count); 1…\(maximumFrames) allowed") }
        let intraID = Array(try r.take(32, "intra_model_set_id"))
        let motionID = Array(try r.take(32, "motion_model_set_id"))
        let indexEnd = headerSize + indexEntrySize * count
        guard indexEnd <= bytes.count else {
            throw E.truncated(field: "frame index", offset: headerSize, needed: indexEntrySize * count, available: bytes.count - headerSize)
        }
        var frames: [Frame] = []
        frames.reserveCapacity(count)
        var expected = indexEnd
        for i in 0..<count {
            let entry = r.offset
            let offset = try r.uint("frame index", 8), length = try r.uint("frame index", 4)
            let kind = try r.u8("frame index")
            let reserved = try r.take(3, "frame index")
            guard offset == expected else {
                throw E.invalidIndexEntry(frame: i, field: "offset", offset: entry,
                                          problem: "is \(offset); the frame must start at byte \(expected), where the \(i == 0 ? "index" : "previous frame") ends")
            }
            guard length >= 1 else { throw E.invalidIndexEntry(frame: i, field: "length", offset: entry + 8, problem: "is 0") }
            guard length <= bytes.count - offset else {
                throw E.invalidIndexEntry(frame: i, field: "length", offset: entry + 8,
                                          problem: "is \(length); only \(bytes.count - offset) bytes follow byte \(offset)")
            }
            let must = Self.kind(ofFrame: i, gop: gop)
            guard kind == must.code else {
                throw E.invalidIndexEntry(frame: i, field: "kind", offset: entry + 12,
                                          problem: "is \(kind); frame \(i) with intra period \(gop) must be \(must.code) (\(must.rawValue))"
                                              + (must == .intra ? ": a P-frame needs a preceding intra frame of its GOP" : ""))
            }
            guard reserved.allSatisfy({ $0 == 0 }) else {
                throw E.invalidIndexEntry(frame: i, field: "reserved", offset: entry + 13, problem: "must be 0")
            }
            frames.append(Frame(kind: must, range: offset..<(offset + length)))
            expected = offset + length
        }
        guard expected == bytes.count else { throw E.trailingBytes(count: bytes.count - expected, offset: expected) }
        return VideoIntMotionPayload(chroma: chroma, width: width, height: height, frameRate: Rational(rn, rd), aspect: Rational(an, ad),
                                     gop: gop, intraModelSetID: intraID, motionModelSetID: motionID, frames: frames, bytes: bytes)
    }

    static func le(_ out: inout [UInt8], _ v: Int, _ n: Int) {
        for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }
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
