/// How a sequence's frames are meant to be shown (docs/capabilities/video_int_hyper.md §3).
/// The coded pictures are RGB in every case; this says what the decoder writes.
public enum VideoChroma: String, Sendable, Codable, CaseIterable {
    /// The source was RGB: decoded frames are the model's RGB8 rows (Y4M output: C444).
    case rgb
    /// Y'CbCr 4:2:0 (Y4M output: C420jpeg).
    case yuv420
    /// Y'CbCr 4:4:4 (Y4M output: C444).
    case yuv444

    public var code: UInt8 {
        switch self { case .rgb: return 0; case .yuv420: return 1; case .yuv444: return 2 }
    }

    public init?(code: UInt8) {
        guard let c = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = c
    }

    /// The Y4M layout a decoder writes for this sequence.
    public var y4m: Y4MChroma { self == .yuv420 ? .c420jpeg : .c444 }
}

/// What a frame's index entry says it is.
public enum VideoFrameKind: UInt8, Sendable, Codable {
    /// Decodable on its own: a whole int_hyper picture (a seek point).
    case intra = 1
}

/// The bare `wai.video.int_hyper` payload (§4): a 68-byte sequence header, a frame index of
/// 16 bytes per frame, then each frame's int_hyper picture payload, back to back. Parsing
/// checks every header field, every index entry and that the frames fill the payload
/// exactly; the pictures themselves are parsed when they are decoded.
public struct VideoIntHyperPayload: Equatable, Sendable {
    /// Not ASCII, so never "WAI1" (docs/envelope.md) and never text.
    public static let magic: [UInt8] = [0x89, 0x56, 0x49, 0x48]   // \x89 V I H
    public static let version: UInt8 = 1
    public static let headerSize = 68
    public static let indexEntrySize = 16
    /// The only colour matrix defined (§5): BT.601, limited range.
    public static let matrixBT601Limited: UInt8 = 1
    public static let maximumFrames = 1 << 20

    public struct Frame: Equatable, Sendable {
        public var kind: VideoFrameKind
        /// Where the frame's picture lies in the payload.
        public var range: Range<Int>
    }

    public var chroma: VideoChroma
    public var width: Int
    public var height: Int
    public var frameRate: Rational
    /// Pixel aspect ratio; 0:0 is unknown.
    public var aspect: Rational
    /// Frames from one intra frame to the next: 1 here, every frame is intra.
    public var intraPeriod: Int
    public var modelSetID: [UInt8]
    public var frames: [Frame]
    /// The whole payload (the frames' pictures are slices of it).
    public var bytes: [UInt8]

    public func picture(_ frame: Int) -> [UInt8] { Array(bytes[frames[frame].range]) }

    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }

    /// A payload from a sequence's description and its frames' int_hyper pictures.
    public static func make(chroma: VideoChroma, width: Int, height: Int, frameRate: Rational, aspect: Rational,
                            modelSetID: [UInt8], pictures: [[UInt8]]) -> [UInt8] {
        var out = magic
        out += [version, 0, chroma.code, matrixBT601Limited]
        le(&out, width, 2); le(&out, height, 2)
        le(&out, frameRate.numerator, 4); le(&out, frameRate.denominator, 4)
        le(&out, aspect.numerator, 4); le(&out, aspect.denominator, 4)
        le(&out, 1, 4)   // intra period
        le(&out, pictures.count, 4)
        out += modelSetID
        var offset = headerSize + indexEntrySize * pictures.count
        for p in pictures {
            le(&out, offset, 8); le(&out, p.count, 4)
            out += [VideoFrameKind.intra.rawValue, 0, 0, 0]
            offset += p.count
        }
        for p in pictures { out += p }
        return out
    }

    public static func parse(_ bytes: [UInt8]) throws -> VideoIntHyperPayload {
        var r = FieldReader(bytes) { VideoPayloadError.truncated(field: $0, offset: $1, needed: $2, available: $3) }
        let m = try r.take(4, "magic")
        guard m.elementsEqual(magic) else { throw VideoPayloadError.badMagic(found: Array(m)) }
        let v = try r.u8("version")
        guard v == version else { throw VideoPayloadError.unsupportedVersion(v) }
        func invalid(_ field: String, _ offset: Int, _ problem: String) -> VideoPayloadError {
            .invalidField(field: field, offset: offset, problem: problem)
        }
        let flags = try r.u8("flags")
        guard flags == 0 else { throw invalid("flags", 5, "is \(flags), must be 0") }
        let code = try r.u8("chroma")
        guard let chroma = VideoChroma(code: code) else { throw invalid("chroma", 6, "is \(code); 0 (rgb), 1 (yuv420) or 2 (yuv444)") }
        let matrix = try r.u8("matrix")
        guard matrix == matrixBT601Limited else { throw invalid("matrix", 7, "is \(matrix); 1 (BT.601 limited range) is the only one") }
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
        let period = try r.uint("intra_period", 4)
        guard period == 1 else { throw invalid("intra_period", 28, "is \(period); every frame of wai.video.int_hyper is intra, so it must be 1") }
        let count = try r.uint("frame_count", 4)
        guard (1...maximumFrames).contains(count) else { throw invalid("frame_count", 32, "is \(count); 1…\(maximumFrames) allowed") }
        let id = Array(try r.take(32, "model_set_id"))
        // Checked before the index is read or anything sized by the count is kept.
        let indexEnd = headerSize + indexEntrySize * count
        guard indexEnd <= bytes.count else {
            throw VideoPayloadError.truncated(field: "frame index", offset: headerSize, needed: indexEntrySize * count,
                                              available: bytes.count - headerSize)
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
                throw VideoPayloadError.invalidIndexEntry(frame: i, field: "offset", offset: entry,
                                                          problem: "is \(offset); the frame must start at byte \(expected), where the \(i == 0 ? "index" : "previous frame") ends")
            }
            guard length >= 1 else {
                throw VideoPayloadError.invalidIndexEntry(frame: i, field: "length", offset: entry + 8, problem: "is 0")
            }
            guard length <= bytes.count - offset else {
                throw VideoPayloadError.invalidIndexEntry(frame: i, field: "length", offset: entry + 8,
                                                          problem: "is \(length); only \(bytes.count - offset) bytes follow byte \(offset)")
            }
            guard let k = VideoFrameKind(rawValue: kind) else {
                throw VideoPayloadError.invalidIndexEntry(frame: i, field: "kind", offset: entry + 12,
                                                          problem: "is \(kind); 1 (intra) is the only kind in wai.video.int_hyper")
            }
            guard reserved.allSatisfy({ $0 == 0 }) else {
                throw VideoPayloadError.invalidIndexEntry(frame: i, field: "reserved", offset: entry + 13, problem: "must be 0")
            }
            frames.append(Frame(kind: k, range: offset..<(offset + length)))
            expected = offset + length
        }
        guard expected == bytes.count else {
            throw VideoPayloadError.trailingBytes(count: bytes.count - expected, offset: expected)
        }
        return VideoIntHyperPayload(chroma: chroma, width: width, height: height, frameRate: Rational(rn, rd),
                                    aspect: Rational(an, ad), intraPeriod: period, modelSetID: id, frames: frames, bytes: bytes)
    }

    private static func le(_ out: inout [UInt8], _ v: Int, _ n: Int) {
        for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }
}
